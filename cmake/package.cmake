# Installing sheaf, and its Debian package (`cpack -G DEB` in a build
# folder; scripts/release.sh does it, docs/install.md says what is in it).
#
# What `cmake --install` puts where a Debian system looks for it: the
# binary, the man pages (gzipped, as Debian keeps them), the completion
# scripts of bash, zsh and fish (written by the binary just built), and the
# licence.
install(TARGETS sheaf RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

file(GLOB SHEAF_MAN_PAGES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/man/man1/*.1)
set(man_gz)
foreach(page IN LISTS SHEAF_MAN_PAGES)
  get_filename_component(name ${page} NAME)
  set(gz ${CMAKE_BINARY_DIR}/man/man1/${name}.gz)
  add_custom_command(OUTPUT ${gz}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man/man1
    COMMAND gzip -9 -n -c ${page} > ${gz}
    DEPENDS ${page} VERBATIM)
  list(APPEND man_gz ${gz})
endforeach()

set(comp ${CMAKE_BINARY_DIR}/completions)
add_custom_command(
  OUTPUT ${comp}/sheaf ${comp}/_sheaf ${comp}/sheaf.fish
  COMMAND ${CMAKE_COMMAND} -E make_directory ${comp}
  COMMAND sheaf completion bash > ${comp}/sheaf
  COMMAND sheaf completion zsh > ${comp}/_sheaf
  COMMAND sheaf completion fish > ${comp}/sheaf.fish
  DEPENDS sheaf VERBATIM
  COMMENT "Writing the completion scripts")
add_custom_target(sheaf_install_files ALL DEPENDS ${man_gz} ${comp}/sheaf ${comp}/_sheaf ${comp}/sheaf.fish)

install(FILES ${man_gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${comp}/sheaf DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${comp}/_sheaf DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${comp}/sheaf.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/debian/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/sheaf)
# Debian wants a changelog in every package's doc folder.
set(changelog ${CMAKE_BINARY_DIR}/changelog.gz)
add_custom_command(OUTPUT ${changelog}
  COMMAND gzip -9 -n -c ${CMAKE_SOURCE_DIR}/cmake/debian/changelog > ${changelog}
  DEPENDS ${CMAKE_SOURCE_DIR}/cmake/debian/changelog VERBATIM)
add_custom_target(sheaf_changelog ALL DEPENDS ${changelog})
install(FILES ${changelog} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/sheaf)

# The Debian package of the dynamic build: its Depends are what
# dpkg-shlibdeps finds the binary needs.
set(CPACK_PACKAGE_NAME sheaf)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The sheaf authors")
set(CPACK_PACKAGE_CONTACT "The sheaf authors <sheaf@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "static blog and site generator for research notes")
set(CPACK_PACKAGE_DESCRIPTION "sheaf turns a folder of Markdown notes with YAML front matter into a
static site: headings with anchors, formulas and code rendered at build
time, BibTeX citations with a page per paper, cross-post links checked at
build time, feeds and search. It previews the site on a local server that
reloads as you type, and deploys the output to static hosting.")
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
