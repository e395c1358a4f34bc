/* fuzz_bib: libFuzzer target over a .bib file as sheaf reads it — the
 * BibTeX reader (entries, @string macros and their budgets, recovery after
 * errors), the name splitting, the TeX to Unicode conversion, crossref —
 * and over bib_tex_to_text and bib_split_names alone. No input may crash,
 * leak or take more than linear time.
 *
 * Input: a whole .bib file. Seed corpus: tests/fuzz/corpus/bib (see tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bib/bib.h"
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
    for (size_t i = 0; i < b.n; i++)
        (void)bib_suggest(&b, b.entries[i].key);
    bib_free(&b);
    diag_list_free(d);
    arena_free(a);
    return 0;
}
