/* scan: the byte-class scans of the text filters, many bytes at a time.
 *
 * Each scan has two bodies: SSE2 (every x86-64 has it) reads 16 bytes per
 * step; the portable one reads 8 as a 64-bit number ("SWAR": a mask with
 * the high bit of each byte that matches, computed without carries between
 * bytes). Both give the same answers; SHEAF_NO_SIMD (CMake option, used by
 * the sanitizer test pass) forces the portable one so both stay tested. */
#ifndef SHEAF_SCAN_H
#define SHEAF_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(SHEAF_NO_SIMD)
#define SCAN_SSE2 1
#include <emmintrin.h>
#endif

/* ---- the portable 8-byte masks ----------------------------------------- */

#define SWAR_ONES 0x0101010101010101u
#define SWAR_HIGH 0x8080808080808080u
#define SWAR_LOW7 0x7f7f7f7f7f7f7f7fu

/* 8 bytes as a number whose lowest byte is p[0] */
static inline uint64_t swar_load(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}
/* x to 8 bytes at d, its lowest byte at d[0] (swar_load's inverse) */
static inline void swar_store(char *d, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(d, &x, 8);
}
static inline uint64_t swar_high(uint64_t x) { return x & SWAR_HIGH; }
static inline uint64_t swar_eq(uint64_t x, unsigned char c)
{
    uint64_t y = x ^ (SWAR_ONES * c);
    return ~(((y & SWAR_LOW7) + SWAR_LOW7) | y) & SWAR_HIGH;
}
/* bytes >= c, for 1 <= c <= 0x80, of 7-bit bytes */
static inline uint64_t swar_ge(uint64_t x, unsigned char c)
{
    return ((x & SWAR_LOW7) + SWAR_ONES * (unsigned char)(0x80 - c)) & SWAR_HIGH;
}
static inline uint64_t swar_range(uint64_t x, unsigned char lo, unsigned char hi)
{
    return swar_ge(x, lo) & ~swar_ge(x, (unsigned char)(hi + 1));
}
/* index of the first flagged byte of a non-zero mask */
static inline unsigned swar_first(uint64_t m) { return (unsigned)__builtin_ctzll(m) / 8; }
/* the mask as bits 0..7, bit k for byte k (the multiply gathers the bytes'
 * high bits into the top byte) */
static inline unsigned swar_bits(uint64_t m)
{
    return (unsigned)((((m >> 7) * 0x0102040810204080u) >> 56) & 0xff);
}
/* the bytes HTML escaping replaces: & < > " ' */
static inline uint64_t swar_html(uint64_t x)
{
    return swar_eq(x, '&') | swar_eq(x, '<') | swar_eq(x, '>') | swar_eq(x, '"') |
           swar_eq(x, '\'');
}
/* how many bytes a mask flags (the multiply sums the bytes into the top one) */
static inline unsigned swar_count(uint64_t m) { return (unsigned)(((m >> 7) * SWAR_ONES) >> 56); }

#ifdef SCAN_SSE2
static inline unsigned sse_mask(__m128i m) { return (unsigned)_mm_movemask_epi8(m); }
static inline unsigned bits16(unsigned m) /* population count without POPCNT */
{
    m = m - ((m >> 1) & 0x5555);
    m = (m & 0x3333) + ((m >> 2) & 0x3333);
    m = (m + (m >> 4)) & 0x0f0f;
    return (m + (m >> 8)) & 0x1f;
}
#endif

/* ---- the scans ------------------------------------------------------- */

/* HTML escaping a block at a time: SCAN_STEP bytes, and the mask of the
 * special ones among the SCAN_STEP bytes at p (bit k: p[k]). */
#ifdef SCAN_SSE2
#define SCAN_STEP 16
static inline unsigned scan_html_block(const char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    return sse_mask(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('&')), _mm_cmpeq_epi8(x, _mm_set1_epi8('<'))),
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('>')),
                     _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                  _mm_cmpeq_epi8(x, _mm_set1_epi8('\''))))));
}
static inline void scan_copy_step(char *d, const char *s)
{
    _mm_storeu_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
}
#else
#define SCAN_STEP 8
static inline unsigned scan_html_block(const char *p)
{
    return swar_bits(swar_html(swar_load(p)));
}
static inline void scan_copy_step(char *d, const char *s) { memcpy(d, s, 8); }
#endif

/* Plain text: the blank bytes (space, tab, line feed, carriage return,
 * form feed) among the SCAN_STEP bytes at p, as a mask (bit k: p[k]). */
#ifdef SCAN_SSE2
static inline __m128i scan_blank_lanes(__m128i x)
{
    return _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')),
                     _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')),
                                  _mm_cmpeq_epi8(x, _mm_set1_epi8('\f')))));
}
static inline unsigned scan_blank_block(const char *p)
{
    return sse_mask(scan_blank_lanes(_mm_loadu_si128((const __m128i *)p)));
}
/* The SCAN_STEP bytes at s to d, each blank byte as a space. */
static inline void scan_copy_blanks(char *d, const char *s)
{
    __m128i x = _mm_loadu_si128((const __m128i *)s), b = scan_blank_lanes(x);
    _mm_storeu_si128((__m128i *)d,
                     _mm_or_si128(_mm_andnot_si128(b, x), _mm_and_si128(b, _mm_set1_epi8(' '))));
}
/* A block read once for both: scan_blank_spaced gives the mask of
 * scan_blank_block and keeps the block with its blanks as spaces, which
 * scan_put_spaced writes as scan_copy_blanks would (the blank test made
 * once a block, not twice). */
typedef struct scan_spaced {
    __m128i v;
} scan_spaced;
static inline unsigned scan_blank_spaced(const char *p, scan_spaced *out)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p), b = scan_blank_lanes(x);
    out->v = _mm_or_si128(_mm_andnot_si128(b, x), _mm_and_si128(b, _mm_set1_epi8(' ')));
    return sse_mask(b);
}
static inline void scan_put_spaced(char *d, const scan_spaced *b) { _mm_storeu_si128((__m128i *)d, b->v); }
#else
static inline uint64_t swar_blank(uint64_t x)
{
    return swar_eq(x, ' ') | swar_eq(x, '\n') | swar_eq(x, '\t') | swar_eq(x, '\r') |
           swar_eq(x, '\f');
}
static inline unsigned scan_blank_block(const char *p) { return swar_bits(swar_blank(swar_load(p))); }
static inline void scan_copy_blanks(char *d, const char *s)
{
    uint64_t x = swar_load(s), b = (swar_blank(x) >> 7) * 0xff;
    x = (x & ~b) | (b & SWAR_ONES * ' ');
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(d, &x, 8);
}
typedef struct scan_spaced {
    uint64_t v;
} scan_spaced;
static inline unsigned scan_blank_spaced(const char *p, scan_spaced *out)
{
    uint64_t x = swar_load(p), m = swar_blank(x), b = (m >> 7) * 0xff;
    x = (x & ~b) | (b & SWAR_ONES * ' ');
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    out->v = x;
    return swar_bits(m);
}
static inline void scan_put_spaced(char *d, const scan_spaced *b) { memcpy(d, &b->v, 8); }
#endif

/* Search keys: the ASCII letters and digits among the SCAN_STEP bytes at
 * p (bit k: p[k]), and in *high the bytes >= 0x80. */
#ifdef SCAN_SSE2
static inline unsigned scan_alnum_bits(const char *p, unsigned *high)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    __m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20)); /* bytes >= 0x80 stay negative */
    __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
                                   _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)));
    *high = sse_mask(x);
    return sse_mask(_mm_or_si128(digit, letter));
}
#else
static inline unsigned scan_alnum_bits(const char *p, unsigned *high)
{
    uint64_t x = swar_load(p), low = x | SWAR_ONES * 0x20;
    *high = swar_bits(swar_high(x));
    return swar_bits((swar_range(x, '0', '9') | swar_range(low, 'a', 'z')) & ~swar_high(x));
}
#endif

/* Search text: the bytes that join the word before them, a blank before
 * them dropped (, . ; : ! ? and a closing parenthesis: a formula or an
 * image left out of the text leaves "vectors , one"), among the SCAN_STEP
 * bytes at p, as a mask (bit k: p[k]). */
#ifdef SCAN_SSE2
static inline unsigned scan_joins_block(const char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    __m128i a = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')), _mm_cmpeq_epi8(x, _mm_set1_epi8('.')));
    __m128i b = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(';')), _mm_cmpeq_epi8(x, _mm_set1_epi8(':')));
    __m128i c = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('!')), _mm_cmpeq_epi8(x, _mm_set1_epi8('?')));
    return sse_mask(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, _mm_cmpeq_epi8(x, _mm_set1_epi8(')')))));
}
#else
static inline unsigned scan_joins_block(const char *p)
{
    uint64_t x = swar_load(p);
    return swar_bits(swar_eq(x, ',') | swar_eq(x, '.') | swar_eq(x, ';') | swar_eq(x, ':') |
                     swar_eq(x, '!') | swar_eq(x, '?') | swar_eq(x, ')'));
}
#endif

/* JSON strings: the first byte in s[i..n) that is escaped — a control
 * byte below 0x20, '"', '\\', or '<' (so that the JSON may be pasted
 * into a page) — or n. */
static inline size_t scan_json_special(const char *s, size_t i, size_t n)
{
#ifdef SCAN_SSE2
    for (; n - i >= 16; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        /* signed: bytes >= 0x80 are negative, so "> -1" leaves them out */
        __m128i ctl = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(-1)),
                                    _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
        __m128i q = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\\')),
                                              _mm_cmpeq_epi8(x, _mm_set1_epi8('<'))));
        unsigned k = sse_mask(_mm_or_si128(ctl, q));
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
#endif
    for (; n - i >= 8; i += 8) {
        uint64_t x = swar_load(s + i);
        uint64_t m = (~swar_ge(x, 0x20) & ~x & SWAR_HIGH) | swar_eq(x, '"') | swar_eq(x, '\\') |
                     swar_eq(x, '<');
        if (m)
            return i + swar_first(m);
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == '"' || c == '\\' || c == '<')
            break;
    }
    return i;
}

/* HTML escaping: the first of & < > " ' in s[i..n), or n. */
static inline size_t scan_html_special(const char *s, size_t i, size_t n)
{
#ifdef SCAN_SSE2
    for (; n - i >= 16; i += 16) {
        unsigned k = scan_html_block(s + i);
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
    if (i < n && n >= 16) { /* the rest as the block ending at n, its bytes before i left out */
        unsigned k = scan_html_block(s + n - 16) >> (16 - (n - i));
        return k ? i + (unsigned)__builtin_ctz(k) : n;
    }
#endif
    for (;;) {
        /* the last few bytes as one more block ending at n, its bytes
         * before i left out */
        size_t at = i;
        if (n - i < 8) {
            if (n < 8 || i == n)
                break;
            at = n - 8;
        }
        uint64_t m = swar_html(swar_load(s + at)) & ~(uint64_t)0 << (8 * (i - at));
        if (m)
            return at + swar_first(m);
        if (at != i)
            return n;
        i += 8;
    }
    for (; i < n; i++) {
        char c = s[i];
        if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'')
            break;
    }
    return i;
}

/* XML: the first byte in s[i..n) that may start a character XML 1.0
 * forbids (util/xmlchar.h) — a C0 control other than tab, newline and
 * carriage return, or 0xED / 0xEF, which start the surrogates and
 * U+FFFE/U+FFFF among others — or n. */
#ifdef SCAN_SSE2
/* The suspect bytes of the 16 at x, line feeds left out of the controls
 * (most of them); with `exact`, tabs and carriage returns too. */
static inline __m128i xml_suspect_lanes(__m128i x, bool exact)
{
    /* signed: bytes >= 0x80 are negative, so "> -1" leaves them out */
    __m128i ctl = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(-1)),
                                _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
    __m128i ok = _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'));
    if (exact)
        ok = _mm_or_si128(ok, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')),
                                           _mm_cmpeq_epi8(x, _mm_set1_epi8('\r'))));
    __m128i lead = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xED)),
                                _mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xEF)));
    return _mm_or_si128(_mm_andnot_si128(ok, ctl), lead);
}
#endif
static inline size_t scan_xml_suspect(const char *s, size_t i, size_t n)
{
#ifdef SCAN_SSE2
    /* 32 bytes a step, tested roughly (a tab or a carriage return stops
     * it too), then exactly where the rough test stopped */
    for (; n - i >= 32; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        if (!sse_mask(_mm_or_si128(xml_suspect_lanes(a, false), xml_suspect_lanes(b, false))))
            continue;
        unsigned k = sse_mask(xml_suspect_lanes(a, true))
                     | sse_mask(xml_suspect_lanes(b, true)) << 16;
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
    for (; n - i >= 16; i += 16) {
        unsigned k = sse_mask(xml_suspect_lanes(_mm_loadu_si128((const __m128i *)(s + i)), true));
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
#endif
    for (; n - i >= 8; i += 8) {
        uint64_t x = swar_load(s + i);
        uint64_t ctl = ~swar_ge(x, 0x20) & ~x & SWAR_HIGH; /* 7-bit bytes below 0x20 */
        ctl &= ~(swar_eq(x, '\t') | swar_eq(x, '\n') | swar_eq(x, '\r'));
        uint64_t m = ctl | swar_eq(x, 0xED) | swar_eq(x, 0xEF);
        if (m)
            return i + swar_first(m);
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xED || c == 0xEF)
            break;
    }
    return i;
}

/* Output checks: the first byte in s[i..n) that is not printable ASCII,
 * tab, line feed or carriage return — a C0 control, DEL, or any byte of a
 * multi-byte character — or n. */
#ifdef SCAN_SSE2
/* The suspect bytes of the 16 at x, line feeds left out (most of the
 * blanks that are not spaces); with `exact`, tabs and carriage returns
 * too. */
static inline __m128i text_suspect_lanes(__m128i x, bool exact)
{
    /* x + 1, signed, below 0x21: 0x00–0x1F (1–0x20), 0x7F and up (0x80–0xFF
     * wrap to the negative bytes, 0xFF to 0) */
    __m128i bad = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8(1)), _mm_set1_epi8(0x21));
    __m128i ok = _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'));
    if (exact)
        ok = _mm_or_si128(ok, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')),
                                           _mm_cmpeq_epi8(x, _mm_set1_epi8('\r'))));
    return _mm_andnot_si128(ok, bad);
}
#endif
static inline size_t scan_text_suspect(const char *s, size_t i, size_t n)
{
#ifdef SCAN_SSE2
    /* 64, then 32 bytes a step, tested roughly (a tab or a carriage
     * return stops it too), then exactly where the rough test stopped */
    for (; n - i >= 64; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(s + i + 48));
        if (!sse_mask(_mm_or_si128(_mm_or_si128(text_suspect_lanes(a, false), text_suspect_lanes(b, false)),
                                   _mm_or_si128(text_suspect_lanes(c, false), text_suspect_lanes(d, false)))))
            continue;
        break; /* the 32-byte steps find where */
    }
    for (; n - i >= 32; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        if (!sse_mask(_mm_or_si128(text_suspect_lanes(a, false), text_suspect_lanes(b, false))))
            continue;
        unsigned k = sse_mask(text_suspect_lanes(a, true))
                     | sse_mask(text_suspect_lanes(b, true)) << 16;
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
    for (; n - i >= 16; i += 16) {
        unsigned k = sse_mask(text_suspect_lanes(_mm_loadu_si128((const __m128i *)(s + i)), true));
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
#endif
    for (; n - i >= 8; i += 8) {
        uint64_t x = swar_load(s + i);
        uint64_t ctl = ~swar_ge(x, 0x20) & ~x & SWAR_HIGH; /* 7-bit bytes below 0x20 */
        ctl &= ~(swar_eq(x, '\t') | swar_eq(x, '\n') | swar_eq(x, '\r'));
        uint64_t m = ctl | swar_high(x) | swar_eq(x, 0x7F);
        if (m)
            return i + swar_first(m);
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c >= 0x7F)
            break;
    }
    return i;
}

/* The first byte >= 0x80 in s[i..n), or n. */
static inline size_t scan_non_ascii(const char *s, size_t i, size_t n)
{
#ifdef SCAN_SSE2
    for (; n - i >= 16; i += 16) {
        unsigned k = sse_mask(_mm_loadu_si128((const __m128i *)(s + i)));
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
#endif
    for (; n - i >= 8; i += 8) {
        uint64_t m = swar_high(swar_load(s + i));
        if (m)
            return i + swar_first(m);
    }
    while (i < n && (unsigned char)s[i] < 0x80)
        i++;
    return i;
}

/* striptags: how far from i the text is plain — printable ASCII other than
 * '<', spaces one at a time (none first when after_space) — so it is
 * copied as it is. Stops at n or at the first byte that is not. */
static inline size_t scan_plain_text(const char *s, size_t i, size_t n, bool after_space)
{
#ifdef SCAN_SSE2
    for (; n - i >= 16; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        /* signed: bytes >= 0x80 are negative, so "< 0x20" takes them too */
        unsigned stop = sse_mask(_mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                                              _mm_cmpeq_epi8(x, _mm_set1_epi8('<'))));
        unsigned sp = sse_mask(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')));
        stop |= sp & ((sp << 1) | after_space);
        if (stop)
            return i + (unsigned)__builtin_ctz(stop);
        after_space = sp >> 15;
    }
#endif
    for (; n - i >= 8; i += 8) {
        uint64_t x = swar_load(s + i);
        uint64_t sp = swar_eq(x, ' ');
        uint64_t stop = swar_high(x) | swar_eq(x, '<') | (~swar_ge(x, 0x20) & SWAR_HIGH) |
                        (sp & ((sp << 8) | (after_space ? 0x80u : 0)));
        if (stop)
            return i + swar_first(stop);
        after_space = (sp >> 63) != 0;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x80 || c == '<' || (c == ' ' && after_space))
            break;
        after_space = c == ' ';
    }
    return i;
}

/* wordcount: from *i on, while whole blocks of ASCII remain, the number of
 * \w runs ([A-Za-z0-9_]) that start in them; *in says whether the byte
 * before *i was \w, and is kept current. Stops (advancing *i) at a block
 * holding a non-ASCII byte or when less than a block is left. */
static inline size_t scan_ascii_words(const char *s, size_t *i, size_t n, unsigned *in)
{
    size_t count = 0, k = *i;
    unsigned prev = *in;
#ifdef SCAN_SSE2
    /* per lane: 0xff where a word starts; subtracting that counts it in
     * the lane; the lanes are summed before they could overflow */
    __m128i acc = _mm_setzero_si128(), zero = _mm_setzero_si128();
    __m128i before = _mm_setzero_si128(); /* lane 15: the byte before the block */
    if (prev)
        before = _mm_insert_epi16(before, -0x100, 7); /* 0xff00 as a short: byte 15 set */
    unsigned lanes = 0;
    for (; n - k >= 16; k += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + k));
        if (sse_mask(x))
            break; /* not all ASCII */
        __m128i t = _mm_or_si128(x, _mm_set1_epi8(0x20));
        __m128i w = _mm_or_si128(
            _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                       _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1))),
                         _mm_and_si128(_mm_cmpgt_epi8(t, _mm_set1_epi8('a' - 1)),
                                       _mm_cmplt_epi8(t, _mm_set1_epi8('z' + 1)))),
            _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
        __m128i shifted = _mm_or_si128(_mm_slli_si128(w, 1), _mm_srli_si128(before, 15));
        acc = _mm_sub_epi8(acc, _mm_andnot_si128(shifted, w));
        before = w;
        if (++lanes == 255) {
            __m128i sum = _mm_sad_epu8(acc, zero);
            count += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
            acc = zero;
            lanes = 0;
        }
    }
    __m128i sum = _mm_sad_epu8(acc, zero);
    count += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
    prev = (sse_mask(before) >> 15) & 1;
    if (n - k >= 16) { /* stopped at non-ASCII */
        *i = k;
        *in = prev;
        return count;
    }
#endif
    for (; n - k >= 8; k += 8) {
        uint64_t x = swar_load(s + k);
        if (swar_high(x))
            break;
        uint64_t w = swar_range(x, '0', '9') | swar_range(x | SWAR_ONES * 0x20, 'a', 'z') |
                     swar_eq(x, '_');
        count += swar_count(w & ~((w << 8) | (prev ? 0x80u : 0)));
        prev = (w >> 63) != 0;
    }
    *i = k;
    *in = prev;
    return count;
}

/* Slugs: for the next block of ASCII at s + i (16 bytes with SSE2, else
 * 8), bit k of *keep says whether s[i + k] is a letter or digit, and
 * low[0..block) gets the block lower-cased. Returns the block's size, 0 when
 * less than a block is left. */
#define SCAN_BLOCK 16
static inline unsigned scan_alnum_block(const char *s, size_t i, size_t n, char low[SCAN_BLOCK],
                                        unsigned *keep)
{
#ifdef SCAN_SSE2
    if (n - i >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i up = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('A' - 1)),
                                   _mm_cmplt_epi8(x, _mm_set1_epi8('Z' + 1)));
        __m128i l = _mm_xor_si128(x, _mm_and_si128(up, _mm_set1_epi8(0x20)));
        __m128i k = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
                                               _mm_cmplt_epi8(l, _mm_set1_epi8('z' + 1))),
                                 _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                               _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1))));
        _mm_storeu_si128((__m128i *)low, l);
        *keep = sse_mask(k);
        return 16;
    }
#endif
    if (n - i < 8)
        return 0;
    uint64_t x = swar_load(s + i);
    uint64_t l = x ^ (swar_range(x, 'A', 'Z') >> 2);
    uint64_t k = swar_range(l, 'a', 'z') | swar_range(x, '0', '9');
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    l = __builtin_bswap64(l);
#endif
    memcpy(low, &l, 8);
    *keep = swar_bits(k);
    return 8;
}

/* Whether s[0..n) is all ASCII. */
static inline bool scan_is_ascii(const char *s, size_t n)
{
    size_t i = 0;
#ifdef SCAN_SSE2
    for (; n - i >= 16; i += 16)
        if (sse_mask(_mm_loadu_si128((const __m128i *)(s + i))))
            return false;
#endif
    for (; n - i >= 8; i += 8)
        if (swar_high(swar_load(s + i)))
            return false;
    for (; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

/* ASCII case: d[0..n) is s with the letters lo..hi ('A'..'Z' or 'a'..'z')
 * switched to the other case. False (d partly written) when s is not all
 * ASCII: the caller then maps the case of the whole string itself. */
static inline bool scan_flip_case(char *d, const char *s, size_t n, char lo, char hi)
{
    size_t i = 0;
#ifdef SCAN_SSE2
    __m128i high = _mm_setzero_si128();
    for (; n - i >= 16; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i in = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8((char)(lo - 1))),
                                   _mm_cmplt_epi8(x, _mm_set1_epi8((char)(hi + 1))));
        high = _mm_or_si128(high, x);
        _mm_storeu_si128((__m128i *)(d + i),
                         _mm_xor_si128(x, _mm_and_si128(in, _mm_set1_epi8(0x20))));
    }
    if (sse_mask(high))
        return false;
#endif
    uint64_t high8 = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t x = swar_load(s + i);
        high8 |= x;
        x ^= swar_range(x, (unsigned char)lo, (unsigned char)hi) >> 2;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        x = __builtin_bswap64(x);
#endif
        memcpy(d + i, &x, 8);
    }
    unsigned char h = 0;
    for (; i < n; i++) {
        char c = s[i];
        h |= (unsigned char)c;
        d[i] = (char)(c >= lo && c <= hi ? c ^ 0x20 : c);
    }
    return !swar_high(high8) && !(h & 0x80);
}

/* The value of a hexadecimal digit, either case, or -1. */
static inline int scan_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

#endif
