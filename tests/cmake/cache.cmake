# The build cache (src/cache, .sheaf-cache/): a build killed midway, a
# damaged entry and an unwritable cache folder still give the right output.
add_test(NAME cache/kill
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cache/kill.py $<TARGET_FILE:sheaf>)
set_tests_properties(cache/kill PROPERTIES TIMEOUT 300)
