# Template engine: every tests/tpl/cases/*.html rendered by Jinja2 3.1 and by
# `sheaf render` must match byte for byte; every tests/tpl/errors/*.html
# must fail with the first line of its .err file. Both need Debian's python3
# with python3-jinja2 and python3-yaml.
add_test(NAME tpl/differential
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tpl/diff.py $<TARGET_FILE:sheaf>)
add_test(NAME tpl/errors
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/tpl/errors.py $<TARGET_FILE:sheaf>)
set_tests_properties(tpl/differential tpl/errors PROPERTIES TIMEOUT 300)
