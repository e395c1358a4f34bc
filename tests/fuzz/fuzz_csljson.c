/* fuzz_csljson: libFuzzer target over a CSL-JSON bibliography
 * (site_bib_load_csljson: fm/json.c's reader with the places of keys and
 * items, then bib/csljson.c's checks and mapping), and what an entry read
 * so reaches: its item written back for citeproc-js (bib_csl_json), its
 * language, and the key lookups.
 *
 * Input: a .json file. Seed corpus: tests/fuzz/corpus/csljson/ (see
 * tests/fuzz/CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bib/csl.h"
#include "bib/csljson.h"
#include "diag/diag.h"
#include "site/site.h"
#include "util/arena.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    diag_list *d = diag_list_new();
    arena *a = arena_new();
    bib b = { 0 };
    (void)site_bib_load_csljson(&b, (const char *)data, size, "fuzz.json", a, d);
    buf out = BUF_INIT;
    for (size_t i = 0; i < b.n; i++) {
        const bib_entry *e = &b.entries[i];
        bib_csl_json(e, "en-US", &out);
        (void)bib_csl_language(e);
        (void)bib_find(&b, e->key);
        for (size_t k = 0; k < e->nauthors; k++)
            (void)strlen(e->authors[k].full);
    }
    (void)bib_suggest(&b, "key");
    for (size_t i = 0; i < diag_count(d); i++)
        diag_format(diag_get(d, i), &out);
    buf_release(&out);
    bib_free(&b);
    arena_free(a);
    diag_list_free(d);
    return 0;
}
