/* fuzz_srcrec: libFuzzer target over the reader of the load stage's
 * records of sources (site/srcrec.c): a shard's value as the build cache
 * gives it back (its MAC checked, so the bytes are sheaf's own or an
 * attacker's who has the cache's secret), every record read whole —
 * path, clock, identity, digest, body's place, the front matter tree with
 * shared lists and maps, the key places naming its maps.
 *
 * Input: a shard's value. Seed corpus: tests/fuzz/corpus/srcrec (shards
 * written by sheaf builds of the example site and tests/sites fixtures). */
#include <stddef.h>
#include <stdint.h>

#include "site/srcrec.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    arena *a = arena_new();
    (void)site_src_records_check(data, size, a);
    arena_free(a);
    return 0;
}
