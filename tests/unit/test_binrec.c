/* test_binrec: the build cache's record numbers and strings (util/binrec.c):
 * what is written reads back, every prefix of a record is refused rather
 * than read past, and no count can claim more than the record holds. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/binrec.h"

static const uint64_t nums[] = { 0, 1, 127, 128, 255, 300, 16383, 16384, 0xffffffffu, 0x100000000ull,
                                 UINT64_MAX - 1, UINT64_MAX };
static const int64_t snums[] = { 0, 1, -1, 63, -64, 64, -65, INT64_MAX, INT64_MIN, -1000000 };

static void write_all(buf *b)
{
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        binrec_put_u(b, nums[i]);
        binrec_put_w(b, nums[i]);
    }
    for (size_t i = 0; i < sizeof snums / sizeof *snums; i++)
        binrec_put_i(b, snums[i]);
    binrec_put_bytes(b, "", 0);
    binrec_put_bytes(b, "a\0b", 3);
}

/* Reads what write_all wrote; false at the first difference. */
static bool read_all(binrec_reader *r)
{
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
        if (binrec_get_u(r) != nums[i] || binrec_get_w(r) != nums[i])
            return false;
    for (size_t i = 0; i < sizeof snums / sizeof *snums; i++)
        if (binrec_get_i(r) != snums[i])
            return false;
    size_t n;
    const void *p = binrec_get_bytes(r, &n);
    if (!p || n != 0)
        return false;
    p = binrec_get_bytes(r, &n);
    return p && n == 3 && !memcmp(p, "a\0b", 3);
}

TEST(round_trip)
{
    buf b = BUF_INIT;
    write_all(&b);
    binrec_reader r = binrec_reader_of(b.data, b.len);
    OK(read_all(&r));
    OK(binrec_done(&r));
    /* the lengths LEB128 gives: one byte to 127, two to 16383, ten for the largest */
    buf one = BUF_INIT;
    binrec_put_u(&one, 127);
    EQ_INT(one.len, 1);
    binrec_put_u(&one, 128);
    EQ_INT(one.len, 3);
    buf_reset(&one);
    binrec_put_u(&one, UINT64_MAX);
    EQ_INT(one.len, 10);
    buf_reset(&one);
    binrec_put_i(&one, -64); /* zigzag: small negatives stay short */
    EQ_INT(one.len, 1);
    buf_reset(&one);
    binrec_put_w(&one, 0x0102030405060708ull); /* little-endian, whatever the machine */
    OK(one.len == 8 && one.data[0] == 8 && one.data[7] == 1);
    buf_release(&one);
    buf_release(&b);
}

TEST(every_prefix_refused)
{
    buf b = BUF_INIT;
    write_all(&b);
    for (size_t n = 0; n < b.len; n++) {
        /* a copy of exactly n bytes, so ASan sees a read past it */
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, b.data, n);
        binrec_reader r = binrec_reader_of(cut, n);
        bool all = read_all(&r);
        OK(!all || !binrec_done(&r));
        OK(r.bad);
        OK(r.at <= n);
        free(cut);
    }
    buf_release(&b);
}

TEST(overlong_and_counts)
{
    /* eleven continuation bytes: no uint64_t has that many */
    unsigned char lng[11];
    memset(lng, 0x80, sizeof lng);
    binrec_reader r = binrec_reader_of(lng, sizeof lng);
    EQ_INT(binrec_get_u(&r), 0);
    OK(r.bad);
    /* a count the rest cannot hold, at items of 1 and of 8 bytes */
    buf b = BUF_INIT;
    binrec_put_u(&b, 4);
    buf_put(&b, "abcd", 4);
    r = binrec_reader_of(b.data, b.len);
    EQ_INT(binrec_get_count(&r, 1), 4);
    OK(!r.bad);
    r = binrec_reader_of(b.data, b.len);
    EQ_INT(binrec_get_count(&r, 2), 0);
    OK(r.bad);
    buf_reset(&b);
    binrec_put_u(&b, UINT64_MAX);
    r = binrec_reader_of(b.data, b.len);
    size_t n = 1;
    OK(binrec_get_bytes(&r, &n) == NULL);
    EQ_INT(n, 0);
    OK(r.bad);
    /* once bad, every read gives nothing */
    EQ_INT(binrec_get_w(&r), 0);
    OK(binrec_get_raw(&r, 0) == NULL);
    OK(!binrec_done(&r));
    buf_release(&b);
}

int main(void)
{
    RUN(round_trip);
    RUN(every_prefix_refused);
    RUN(overlong_and_counts);
    return harness_done();
}
