# Images (src/img, src/site/images.c) beyond the fixture sites/images:
# libvips is loaded only for a site with an image that gets variants.
add_test(NAME images/no-libvips
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" "python3"
                 sh ${CMAKE_CURRENT_SOURCE_DIR}/images/no_libvips.sh $<TARGET_FILE:sheaf>)
set_tests_properties(images/no-libvips PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
