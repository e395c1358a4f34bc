# `sheaf import`: each tests/import/<name>/ (a Jekyll or Hugo site in src/)
# is imported, compared with its golden tree, built, and its old URLs are
# checked in the build (tests/import/run.py). One ctest per fixture.
file(GLOB IMPORT_FIXTURES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/import/*/kind)
foreach(spec IN LISTS IMPORT_FIXTURES)
  get_filename_component(dir ${spec} DIRECTORY)
  get_filename_component(name ${dir} NAME)
  add_test(NAME import/${name}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/import/run.py
                   $<TARGET_FILE:sheaf> ${name})
  set_tests_properties(import/${name} PROPERTIES TIMEOUT 120)
endforeach()
