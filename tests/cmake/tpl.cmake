# Template engine: every tests/tpl/cases/*.html rendered by Jinja2 3.1 and by
# `sheaf render` must match byte for byte; every tests/tpl/errors/*.html
# must fail with the first line of its .err file. Both need Debian's python3
# with python3-jinja2 and python3-yaml.
add_test(NAME tpl/differential
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tpl/diff.py $<TARGET_FILE:sheaf>)
add_test(NAME tpl/errors
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tpl/errors.py $<TARGET_FILE:sheaf>)
set_tests_properties(tpl/differential tpl/errors PROPERTIES TIMEOUT 300)

# The generated tables (util/entities.c: Python's html.unescape;
# tpl/casemap.c: where Python's case mapping differs from the installed
# libutf8proc's) are what their generators in tools/tpl write today: a
# Python or utf8proc update that changes them fails here, and the fix is
# to run the generator (its first lines say how) and review the diff.
foreach(table util/entities tpl/casemap)
  get_filename_component(name ${table} NAME)
  add_test(NAME tpl/generated-${name}
           COMMAND sh -c "/usr/bin/python3 '${CMAKE_SOURCE_DIR}/tools/tpl/gen_${name}.py' | diff -u '${CMAKE_SOURCE_DIR}/src/${table}.c' -")
endforeach()
