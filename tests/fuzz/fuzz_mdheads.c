/* fuzz_mdheads: libFuzzer target over the reader of the pages' heads in
 * the build cache (site/mdcache.c, site_md_heads_check): an entry of
 * heads' value as the cache gives it back (its MAC checked, so the bytes
 * are sheaf's own or an attacker's who has the cache's secret), walked as
 * a build walks it, every head read whole — its key, headings, anchors,
 * links as written and as resolved, citations, labels, cross-page label
 * links, the CSL bibliography, the bulk's name and lengths.
 *
 * Input: an entry's value. Seed corpus: tests/fuzz/corpus/mdheads
 * (entries written by sheaf builds of the example site and tests/sites
 * fixtures, made again by tests/fuzz/mdheads_seeds.py when their format
 * changes; unit/test_mdheads fails while they are in an old one). */
#include <stddef.h>
#include <stdint.h>

#include "site/mdcache.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    arena *a = arena_new();
    (void)site_md_heads_check(data, size, a);
    arena_free(a);
    return 0;
}
