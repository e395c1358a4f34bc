/* fuzz_bib: libFuzzer target over a .bib file as sheaf reads it —
 * libbtparse's parse with its messages caught, the name splitting, the TeX
 * to Unicode conversion, crossref — and over bib_tex_to_text alone.
 *
 * Input: a whole .bib file. Seed corpus: tests/fuzz/corpus-held/bib (see that folder's README and
 * tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>

#include "bib/bib.h"
#include "diag/diag.h"
#include "util/arena.h"

/* libbtparse itself drops a few bytes when post-processing an entry it
 * could not lex (a control character inside @preamble, say): a leak inside
 * the library on bad input, not ours — every string sheaf gets from it is
 * freed (unit/test_bib checks that under ASan without this). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:bt_postprocess_value\n"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    (void)bib_tex_to_text(a, (const char *)data, size);
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
