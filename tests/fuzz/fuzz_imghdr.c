/* fuzz_imghdr: libFuzzer target over the image header reader
 * (img/imghdr.c). Input: one byte choosing the file name the reader is
 * told (.png, .jpg, .gif, .webp, .avif, .svg, .txt), then the file's
 * bytes. Checks: the reader reads only the bytes given (ASan: the input is
 * copied into a block of exactly its size), a size it reports is not zero,
 * a reason comes with every SHORT and BAD, and the answer is the same on a
 * second call. Seed corpus: tests/fuzz/corpus/imghdr/ (real files made
 * with libvips, each format, and cut ones). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "img/img.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    static const char *const names[] = { "a.png", "a.jpg", "a.gif", "a.webp", "a.avif", "a.svg", "a.txt" };
    const char *name = names[data[0] % (sizeof names / sizeof *names)];
    size_t n = size - 1;
    unsigned char *b = malloc(n ? n : 1);
    memcpy(b, data + 1, n);
    img_info i, j;
    const char *why = NULL, *why2 = NULL;
    img_status st = img_read_header(b, n, name, &i, &why);
    if (st == IMG_OK && (!i.width || !i.height))
        abort();
    if ((st == IMG_SHORT || st == IMG_BAD) && !why)
        abort();
    if (img_read_header(b, n, name, &j, &why2) != st || memcmp(&i, &j, sizeof i) || why != why2)
        abort();
    free(b);
    return 0;
}
