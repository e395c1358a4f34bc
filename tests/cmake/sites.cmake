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
# Three cold builds in CSL styles: citeproc-js in Duktape builds APA's
# processor in about 2.5 s of CPU per engine (docs/citations.md), so this
# fixture takes ~15 s of CPU alone; its quick stand-ins are sites/csl-zh
# and sites/csl-errors.
set_tests_properties(sites/csl-styles PROPERTIES TIMEOUT 600)
sheaf_label_slow(sites/csl-styles)
set_tests_properties(sites/csl-zh PROPERTIES TIMEOUT 300)
set_tests_properties(sites/csl-page PROPERTIES TIMEOUT 300)
