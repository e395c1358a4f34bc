# End-to-end fixture sites: tests/sites/<name>/site is built with the real
# binary and tests/sites/<name>/test.yaml says what must be written and
# reported (see tests/sites/run.py). One ctest per fixture: sites/<name>.
file(GLOB SITE_FIXTURES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/sites/*/test.yaml)
foreach(spec IN LISTS SITE_FIXTURES)
  get_filename_component(dir ${spec} DIRECTORY)
  get_filename_component(name ${dir} NAME)
  add_test(NAME sites/${name}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/sites/run.py
                   $<TARGET_FILE:sheaf> ${name})
  set_tests_properties(sites/${name} PROPERTIES TIMEOUT 120)
endforeach()
