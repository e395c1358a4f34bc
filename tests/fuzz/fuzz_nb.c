/* fuzz_nb: libFuzzer target over the notebook reader (nb_convert): any
 * bytes as an .ipynb, with and without markdown.unsafe (the first byte's
 * low bit), then where every generated line came from, and every file's
 * bytes decoded again as a build writes them: they must be what
 * nb_convert measured (its length and hash), from the same bytes.
 *
 * Seed corpus: tests/fuzz/corpus/nb/ (the notebooks of tests/nb/notebooks,
 * each with a byte in front; see tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diag.h"
#include "nb/nb.h"
#include "util/arena.h"
#include "util/buf.h"

static bool count(void *ctx, const void *p, size_t n)
{
    (void)p;
    if (n > NB_PIECE)
        abort();
    *(size_t *)ctx += n;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    diag_list *d = diag_list_new();
    arena *a = arena_new();
    nb_options o = { .unsafe = data[0] & 1, .files = "f.ipynb" };
    nb_doc doc;
    if (nb_convert(str_make((const char *)data + 1, size - 1), "f.ipynb", &o, a, &doc, d)) {
        /* every line has its place, and the text ends in a newline */
        size_t lines = 0;
        for (size_t i = 0; i < doc.len; i++)
            lines += doc.text[i] == '\n';
        if (lines != doc.nlines || (doc.len && doc.text[doc.len - 1] != '\n'))
            abort();
        buf b = BUF_INIT;
        for (size_t i = 0; i <= doc.nlines + 1; i++)
            nb_place_text(&doc, (int)i, 1, &b);
        buf_release(&b);
        for (size_t i = 0; i < doc.nfiles; i++) {
            if (!doc.files[i].name[0] || strchr(doc.files[i].name, '/'))
                abort();
            size_t n = 0;
            if (nb_file_decode(str_make((const char *)data + 1, size - 1), &doc.files[i], count, &n) !=
                    NB_DECODED ||
                n != doc.files[i].len)
                abort();
        }
        free(doc.text);
    }
    arena_free(a);
    diag_list_free(d);
    return 0;
}
