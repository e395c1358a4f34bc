/* binrec: the build cache's binary records' numbers and strings (binrec.h) */
#include "util/binrec.h"

void binrec_put_u(buf *b, uint64_t v)
{
    unsigned char x[10];
    size_t n = 0;
    do {
        x[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            x[n] |= 0x80;
        n++;
    } while (v);
    buf_put(b, (const char *)x, n);
}

void binrec_put_i(buf *b, int64_t v) { binrec_put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

void binrec_put_w(buf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    buf_put(b, (const char *)x, 8);
}

void binrec_put_bytes(buf *b, const void *p, size_t n)
{
    binrec_put_u(b, (uint64_t)n);
    if (n)
        buf_put(b, p, n);
}

uint64_t binrec_get_u_slow_(binrec_reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; !r->bad; shift += 7) {
        if (r->at >= r->n || shift > 63) {
            r->bad = true;
            break;
        }
        unsigned char c = r->p[r->at++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    return 0;
}

uint64_t binrec_get_w(binrec_reader *r)
{
    if (r->bad || r->n - r->at < 8) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->p[r->at + (size_t)i] << (8 * i);
    r->at += 8;
    return v;
}

size_t binrec_fit(binrec_reader *r, uint64_t n, size_t each)
{
    if (r->bad || n > (r->n - r->at) / (each ? each : 1)) {
        r->bad = true;
        return 0;
    }
    return (size_t)n;
}

size_t binrec_get_count(binrec_reader *r, size_t each) { return binrec_fit(r, binrec_get_u(r), each); }

const void *binrec_get_raw(binrec_reader *r, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        r->bad = true;
        return NULL;
    }
    const void *s = r->p + r->at;
    r->at += n;
    return s;
}

const void *binrec_get_bytes(binrec_reader *r, size_t *n)
{
    *n = binrec_get_count(r, 1);
    return binrec_get_raw(r, *n);
}
