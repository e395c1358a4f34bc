# The command line: the completion scripts work in each shell (zsh and fish
# tests are skipped, saying so, when the shell is not installed), and the
# man pages are well-formed and found by `man` after `cmake --install`.
# (unit/test_cli checks the man pages and the scripts against the command
# table.)
add_test(NAME cli/completion-bash
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/completion.sh $<TARGET_FILE:sheaf> bash)
add_test(NAME cli/completion-zsh
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" zsh
                 sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/completion.sh $<TARGET_FILE:sheaf> zsh)
add_test(NAME cli/completion-fish
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" fish
                 sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/completion.sh $<TARGET_FILE:sheaf> fish)
add_test(NAME cli/man
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" "groff man"
                 sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/man.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(cli/completion-bash cli/completion-zsh cli/completion-fish cli/man
                     PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)
# Every flag of every command acts as its help says: for each flag of the
# command table, long and short, a scenario runs the command with and
# without it and checks the difference (tests/cli/flags.py; strace watches
# threads and the cache).
add_test(NAME cli/flags
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "" strace
                 /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/flags.py $<TARGET_FILE:sheaf>)
set_tests_properties(cli/flags PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
# The command line as a newcomer meets it: messages, exit codes, the help
# and the commands a Hugo or Zola user expects (tests/cli/commands.py).
add_test(NAME cli/commands
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/commands.py $<TARGET_FILE:sheaf>)
set_tests_properties(cli/commands PROPERTIES TIMEOUT 120)
