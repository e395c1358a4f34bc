# Generates a C file holding the bytes of one file, NUL-terminated.
#   cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -P embed_file.cmake
# defines `const unsigned char NAME[]` and `const size_t NAME_len`.
file(READ "${IN}" hex HEX)
file(SIZE "${IN}" size)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" hex "${hex}")
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}.tmp"
     "/* Generated from ${src} by cmake/embed_file.cmake: do not edit. */\n#include <stddef.h>\n\n"
     "const unsigned char ${NAME}[] = {\n${hex}0x00};\nconst size_t ${NAME}_len = ${size};\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
