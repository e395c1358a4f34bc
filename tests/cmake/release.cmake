# The release files (docs/install.md), tried as a user gets them.
# release/files runs scripts/release.sh into the build folder's dist/ (a
# static build, a Debian package: minutes); the others use what it made:
#   release/static-root  the static binary in an empty root, byte-identical output, serve
#   release/deb          lintian, then apt-get install in a fresh Debian root
#   release/container    the Containerfile's image, built and run with podman
#   release/recipes      the CI recipes install it from a loopback releases folder
# All are `slow` (only ./scripts/test.sh --full runs them) and need no
# sanitizer build; a test that cannot run here says why and is skipped.
set(release_dist ${CMAKE_BINARY_DIR}/dist)
add_test(NAME release/files COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/release.sh ${release_dist})
set_tests_properties(release/files PROPERTIES FIXTURES_SETUP release TIMEOUT 1800
                     LABELS "slow;no-asan" RUN_SERIAL TRUE)
add_test(NAME release/static-root
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/release/static_root.sh ${release_dist} $<TARGET_FILE:sheaf>)
add_test(NAME release/deb COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/release/deb.sh ${release_dist})
add_test(NAME release/container COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/release/container.sh ${release_dist})
add_test(NAME release/recipes COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/release/recipes.sh ${release_dist})
set_tests_properties(release/static-root release/deb release/container release/recipes PROPERTIES
                     FIXTURES_REQUIRED release TIMEOUT 900 LABELS "slow;no-asan" SKIP_RETURN_CODE 77)

# `sheaf --version` names the version, the commit (or "unknown" outside a
# git checkout: cmake/version.cmake run on a folder that is not one), the
# target and linkage, and the KaTeX and highlight.js compiled in.
add_test(NAME cli/version COMMAND sheaf --version)
set_tests_properties(cli/version PROPERTIES PASS_REGULAR_EXPRESSION
  "^sheaf ${PROJECT_VERSION} \\(commit ([0-9a-f]+(-dirty)?|unknown), linux-[a-z0-9_]+, (static|dynamic)\\)\nKaTeX [0-9]+\\.[0-9]+\\.[0-9]+, highlight\\.js [0-9]+\\.[0-9]+\\.[0-9]+\n$")
add_test(NAME cli/version-outside-git
         COMMAND sh -c "d=$(mktemp -d) && ${CMAKE_COMMAND} -DSRC_DIR=$d -DOUT=$d/v.h -P ${CMAKE_SOURCE_DIR}/cmake/version.cmake && cat $d/v.h && rm -rf $d")
set_tests_properties(cli/version-outside-git PROPERTIES PASS_REGULAR_EXPRESSION "#define SHEAF_GIT_COMMIT \"unknown\"")

# serve and deploy build in a private folder: in $TMPDIR, else (a container
# without /tmp) in the site folder (cli/scratch.c).
add_test(NAME cli/scratch COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/scratch.sh $<TARGET_FILE:sheaf>)
