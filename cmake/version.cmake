# Writes OUT (version_info.h): the git commit sheaf is built from, or
# "unknown" outside a git checkout, with "-dirty" when tracked files differ
# from it. Run at every build (target sheaf_version_info); the file is
# rewritten only when its text changes, so an unchanged tree relinks nothing.
set(commit unknown)
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${SRC_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE c RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND c)
    set(commit ${c})
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE dirty RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND dirty)
      set(commit "${commit}-dirty")
    endif()
  endif()
endif()
set(text "/* Made by cmake/version.cmake at build time. */\n#define SHEAF_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
