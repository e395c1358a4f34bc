/* binrec: the numbers and strings of the binary records sheaf keeps in its
 * build cache (the sources' records, site/srcrec.c; the render record,
 * render/record.c; the pages' Markdown, site/mdcache.c), written and read
 * back by one set of rules.
 *
 *   unsigned   LEB128: seven bits a byte, low first, the high bit set on
 *              every byte but the last (most numbers are small, and every
 *              byte of a record is read and authenticated each build)
 *   signed     zigzag, then as unsigned: small negatives stay short
 *   word       eight bytes, little-endian (hashes, fixed-width fields)
 *   bytes      a count, then that many bytes
 *
 * The reader never reads past its end: a short or malformed record sets
 * `bad`, every later read returns 0 or NULL, and the caller checks `bad`
 * once at the end. A count is refused when the rest of the record cannot
 * hold that many items of their smallest size, so no count read from a
 * record can make its caller allocate more than the record's length. */
#ifndef SHEAF_BINREC_H
#define SHEAF_BINREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

void binrec_put_u(buf *b, uint64_t v);
void binrec_put_i(buf *b, int64_t v);
void binrec_put_w(buf *b, uint64_t v);
/* n, then the n bytes at p */
void binrec_put_bytes(buf *b, const void *p, size_t n);

typedef struct binrec_reader {
    const unsigned char *p;
    size_t n, at;
    bool bad;
} binrec_reader;

static inline binrec_reader binrec_reader_of(const void *p, size_t n)
{
    return (binrec_reader){ (const unsigned char *)p, n, 0, false };
}

uint64_t binrec_get_u_slow_(binrec_reader *r);
/* A number below 128 is one byte: read here, in the caller (a record of
 * the build cache is mostly such numbers, read on every build); longer
 * ones, and a bad or finished record, by binrec_get_u_slow_. */
static inline uint64_t binrec_get_u(binrec_reader *r)
{
    if (!r->bad && r->at < r->n && r->p[r->at] < 0x80)
        return r->p[r->at++];
    return binrec_get_u_slow_(r);
}
static inline int64_t binrec_get_i(binrec_reader *r)
{
    uint64_t u = binrec_get_u(r);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}
uint64_t binrec_get_w(binrec_reader *r);
/* n, when the rest holds n items of at least `each` bytes (each >= 1);
 * else bad and 0 */
size_t binrec_fit(binrec_reader *r, uint64_t n, size_t each);
/* an unsigned count of items of at least `each` bytes: binrec_fit */
size_t binrec_get_count(binrec_reader *r, size_t each);
/* n bytes where they are in the record, or NULL (bad) when the rest is
 * shorter */
const void *binrec_get_raw(binrec_reader *r, size_t n);
/* bytes as binrec_put_bytes wrote them: in place, *n their count */
const void *binrec_get_bytes(binrec_reader *r, size_t *n);
/* whether the whole record was read, and well */
static inline bool binrec_done(const binrec_reader *r) { return !r->bad && r->at == r->n; }

#endif
