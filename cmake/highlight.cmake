# Code highlighting: highlight.js's language definitions, compiled into C
# data at build time (tools/hl, see docs/highlighting.md). hljs_tool runs
# highlight.js in Duktape once per build; sheaf itself runs no JavaScript.
# PkgConfig::DUKTAPE comes from CMakeLists.txt (Debian's, or the static one).
set(HLJS_JS /usr/share/javascript/highlight.js/highlight.js CACHE FILEPATH
    "highlight.js 9.18 (Debian's libjs-highlight.js), the language definitions")
if(NOT EXISTS ${HLJS_JS})
  message(FATAL_ERROR "${HLJS_JS} not found: install libjs-highlight.js (scripts/deps.sh build)")
endif()

# The languages a fence may name (with their aliases). Each one has a sample
# in tests/hl/samples that the native engine highlights exactly as
# highlight.js does (test hl/differential); languages that do not are left
# out here and listed in docs/highlighting.md.
set(HL_LANGUAGES
  python cpp rust go javascript typescript java bash shell json yaml ini sql xml css
  markdown diff haskell julia r
  plaintext ruby php lua perl kotlin swift scala cs dockerfile makefile cmake tex nginx
  powershell ocaml elixir erlang clojure scheme lisp fortran matlab objectivec protobuf
  dart nix vim x86asm llvm glsl elm fsharp groovy properties)

add_executable(hljs_tool ${CMAKE_SOURCE_DIR}/tools/hl/hljs_tool.c)
target_compile_options(hljs_tool PRIVATE -Wall -Wextra)
target_link_libraries(hljs_tool PRIVATE PkgConfig::DUKTAPE PkgConfig::PCRE2 m)

set(HL_LANGUAGES_C ${CMAKE_BINARY_DIR}/hl_languages.c)
add_custom_command(
  OUTPUT ${HL_LANGUAGES_C}
  COMMAND hljs_tool gen ${HLJS_JS} ${CMAKE_SOURCE_DIR}/tools/hl/dump.js ${HL_LANGUAGES_C}
          ${HL_LANGUAGES}
  DEPENDS hljs_tool ${CMAKE_SOURCE_DIR}/tools/hl/dump.js ${HLJS_JS}
  COMMENT "Compiling highlight.js's language definitions to C")
