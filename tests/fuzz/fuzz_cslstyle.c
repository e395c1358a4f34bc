/* fuzz_cslstyle: libFuzzer target over the CSL style checker
 * (bib_csl_style_check: its XML reader and the CSL checks) and what it
 * reads from a style.
 *
 * Input: a .csl file. Seed corpus: tests/fuzz/corpus/cslstyle/, the
 * bundled styles and small broken ones (see tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bib/cslstyle.h"
#include "diag/diag.h"
#include "util/arena.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    diag_list *d = diag_list_new();
    arena *a = arena_new();
    bib_csl_style st;
    (void)bib_csl_style_check((const char *)data, size, "fuzz.csl", a, &st, d);
    size_t n = 0;
    const char *strs[] = { st.default_locale, st.citation_format, st.klass, st.title, st.parent };
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        n += strs[i] ? strlen(strs[i]) : 0;
    buf out = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++)
        diag_format(diag_get(d, i), &out);
    buf_release(&out);
    arena_free(a);
    diag_list_free(d);
    return (int)(n & 0);
}
