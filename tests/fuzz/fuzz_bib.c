/* fuzz_bib: libFuzzer target over a .bib file as sheaf reads it — the
 * BibTeX reader (entries, @string macros and their budgets, recovery after
 * errors), the name splitting, the TeX to Unicode conversion, crossref,
 * each entry as a CSL-JSON item (bib/csl.c: sentence case over the raw
 * TeX, dates, the language) — and over bib_tex_to_text and
 * bib_split_names alone. No input may crash, leak or take more than
 * linear time, and every item must be one JSON object with no raw
 * control character.
 *
 * Input: a whole .bib file. Seed corpus: tests/fuzz/corpus/bib (see tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bib/bib.h"
#include "bib/csl.h"
#include "diag/diag.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    (void)bib_tex_to_text(a, (const char *)data, size);
    if (!memchr(data, 0, size)) {
        char *names = arena_strndup(a, (const char *)data, size);
        size_t n;
        (void)bib_split_names(a, names, &n);
    }
    bib b = { 0 };
    if (bib_load_text(&b, (const char *)data, size, "fuzz.bib", a, d))
        (void)bib_resolve_crossrefs(&b, a, d);
    buf item = BUF_INIT;
    for (size_t i = 0; i < b.n; i++) {
        (void)bib_suggest(&b, b.entries[i].key);
        buf_reset(&item);
        bib_csl_json(&b.entries[i], i % 2 ? "zh-CN" : "en-US", &item);
        if (item.len < 2 || item.data[0] != '{' || item.data[item.len - 1] != '}')
            abort();
        for (size_t k = 0; k < item.len; k++)
            if ((unsigned char)item.data[k] < 0x20)
                abort();
    }
    buf_release(&item);
    bib_free(&b);
    diag_list_free(d);
    arena_free(a);
    return 0;
}
