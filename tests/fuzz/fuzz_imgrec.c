/* fuzz_imgrec: libFuzzer target over the reader of the images' record
 * (site/imgrec.c): an entry's value as the build cache gives it back (its
 * MAC checked, so the bytes are sheaf's own or an attacker's who has the
 * cache's secret), every record read whole — path, clock, identity,
 * digest, the copy's file, libvips's version, the quality and each
 * variant's width, path and file.
 *
 * Input: an entry's value. Seed corpus: tests/fuzz/corpus/imgrec (entries
 * written by sheaf builds of small sites of photos). */
#include <stddef.h>
#include <stdint.h>

#include "site/imgrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    (void)site_img_records_check(data, size);
    return 0;
}
