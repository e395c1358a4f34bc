/* text: slugs, word counts and UTF-8 validation (see text.h).
 *
 * Decoding and Unicode categories come from libutf8proc, whose
 * utf8proc_iterate rejects overlong forms, surrogates and code points past
 * U+10FFFF, so "valid" here means well-formed UTF-8 in the strict sense.
 *
 * Slugs: letters (L*) and numbers (N*: decimal digits, but also Roman
 * numerals and the like) are kept, lower-cased with utf8proc_tolower (a
 * simple mapping, so "ß" stays "ß"); combining marks (M*) are kept when they
 * follow a kept character, so decomposed "é" and Devanagari vowel signs
 * survive. Text is not normalised: NFC and NFD spellings give different slugs.
 *
 * Word counts: a CJK letter (Han, Hiragana, Katakana, Hangul, and the
 * ideographic iteration and number marks) is one word by itself; CJK and
 * full-width punctuation separates words like white space does; any other
 * run of non-space characters is one word if it holds at least one letter or
 * digit, so a lone "—" or "|" between words is not counted. */
#include "util/text.h"

#include "util/hash.h"
#include "util/scan.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

/* Decodes one code point at s[i..n); returns its length, or 0 for an invalid
 * byte (the caller then steps over that one byte). */
static size_t decode(const char *s, size_t n, size_t i, int32_t *cp)
{
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    utf8proc_int32_t u;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                          (utf8proc_ssize_t)(n - i), &u);
    if (k <= 0)
        return 0;
    *cp = u;
    return (size_t)k;
}

static bool is_letter_or_number(utf8proc_category_t c)
{
    return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
           (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

static bool is_mark(utf8proc_category_t c)
{
    return c >= UTF8PROC_CATEGORY_MN && c <= UTF8PROC_CATEGORY_ME;
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

void text_hugo_path(buf *out, const char *s, size_t n, bool lower)
{
    size_t start = out->len;
    bool hyphen = false, was_hyphen = false;
    for (size_t i = 0; i < n;) {
        int32_t cp;
        size_t k = decode(s, n, i, &cp);
        if (!k) {
            i++; /* Go reads it as U+FFFD, which is dropped */
            continue;
        }
        utf8proc_category_t cat = utf8proc_category(cp);
        bool keep = cp != ' ' && ((cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
                                  cat == UTF8PROC_CATEGORY_ND || is_mark(cat) ||
                                  (cp > 0 && cp < 0x80 && strchr("./\\_#+~-@", (char)cp)) ||
                                  (cp == '%' && i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2])));
        if (keep) {
            was_hyphen = cp == '-';
            if (hyphen && !was_hyphen)
                buf_putc(out, '-');
            hyphen = false;
            int32_t c = lower ? utf8proc_tolower(cp) : cp;
            uint8_t enc[4];
            buf_put(out, enc, (size_t)utf8proc_encode_char(c, enc));
        } else if (out->len > start && !was_hyphen && (cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || cp == 0x85 ||
                                                         cp == 0xa0 || cat == UTF8PROC_CATEGORY_ZS ||
                                                         cp == 0x2028 || cp == 0x2029)) {
            hyphen = true;
        }
        i += k;
    }
}

/* For each ASCII byte, what a slug keeps of it: the lower-case letter or
 * the digit, or 0 for the bytes that separate words. */
static const char slug_keep[128] = {
    ['0'] = '0', ['1'] = '1', ['2'] = '2', ['3'] = '3', ['4'] = '4', ['5'] = '5', ['6'] = '6',
    ['7'] = '7', ['8'] = '8', ['9'] = '9',
    ['A'] = 'a', ['B'] = 'b', ['C'] = 'c', ['D'] = 'd', ['E'] = 'e', ['F'] = 'f', ['G'] = 'g',
    ['H'] = 'h', ['I'] = 'i', ['J'] = 'j', ['K'] = 'k', ['L'] = 'l', ['M'] = 'm', ['N'] = 'n',
    ['O'] = 'o', ['P'] = 'p', ['Q'] = 'q', ['R'] = 'r', ['S'] = 's', ['T'] = 't', ['U'] = 'u',
    ['V'] = 'v', ['W'] = 'w', ['X'] = 'x', ['Y'] = 'y', ['Z'] = 'z',
    ['a'] = 'a', ['b'] = 'b', ['c'] = 'c', ['d'] = 'd', ['e'] = 'e', ['f'] = 'f', ['g'] = 'g',
    ['h'] = 'h', ['i'] = 'i', ['j'] = 'j', ['k'] = 'k', ['l'] = 'l', ['m'] = 'm', ['n'] = 'n',
    ['o'] = 'o', ['p'] = 'p', ['q'] = 'q', ['r'] = 'r', ['s'] = 's', ['t'] = 't', ['u'] = 'u',
    ['v'] = 'v', ['w'] = 'w', ['x'] = 'x', ['y'] = 'y', ['z'] = 'z',
};

/* A slug of n bytes at d, cut to TEXT_SLUG_MAX with a hash of the whole
 * (see text.h); returns the new length. d has room for n bytes. */
static size_t slug_shorten(char *d, size_t n)
{
    if (n <= TEXT_SLUG_MAX)
        return n;
    uint64_t h = hash_bytes(d, n);
    size_t cut = TEXT_SLUG_MAX - 9;
    while (cut && ((unsigned char)d[cut] & 0xc0) == 0x80)
        cut--; /* not inside a character */
    while (cut && d[cut - 1] == '-')
        cut--;
    static const char hex[] = "0123456789abcdef";
    d[cut++] = '-';
    for (int k = 7; k >= 0; k--)
        d[cut++] = hex[(h >> (4 * k)) & 0xf];
    return cut;
}

size_t text_slugify_ascii(char *d, const char *s, size_t n)
{
    /* a block at a time: each run of letters and digits in the block's
     * mask is copied from its lower-cased bytes whole, a '-' before it
     * unless it is the first or carries on a run from the block before */
    size_t w = 0, i = 0;
    bool open = false; /* the byte before i was kept: a run may carry on */
    char low[2 * SCAN_BLOCK] = { 0 };
    unsigned keep, len;
    for (;;) {
        unsigned pos = 0;
        if (!(len = scan_alnum_block(s, i, n, low, &keep))) {
            /* the rest as the block ending at n, its bytes before i left out */
            if (i == n || n < SCAN_STEP)
                break;
            len = scan_alnum_block(s, n - SCAN_STEP, n, low, &keep);
            pos = (unsigned)(i - (n - len));
            keep >>= pos;
            i = n - len;
        }
        while (keep) {
            unsigned skip = (unsigned)__builtin_ctz(keep);
            if ((skip || !open) && w)
                d[w++] = '-';
            pos += skip;
            keep >>= skip;
            unsigned run = (unsigned)__builtin_ctz(~keep);
            memcpy(d + w, low + pos, SCAN_BLOCK);
            w += run;
            pos += run;
            keep >>= run;
            open = true;
        }
        open = open && pos == len;
        i += len;
    }
    for (; i < n; i++) {
        char k = slug_keep[(unsigned char)s[i] & 0x7f];
        if (!k) {
            open = false;
            continue;
        }
        if (!open && w)
            d[w++] = '-';
        d[w++] = k;
        open = true;
    }
    return slug_shorten(d, w);
}

void text_slugify(buf *out, const char *s, size_t n)
{
    size_t start = out->len;
    if (scan_is_ascii(s, n)) {
        buf_grow(out, n + SCAN_BLOCK);
        out->len += text_slugify_ascii(out->data + out->len, s, n);
        out->data[out->len] = '\0';
        return;
    }
    bool dash = false; /* a run of "other" is waiting to become '-' */
    bool prev_kept = false;
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            i++;
            char kept = slug_keep[c];
            if (kept) {
                if (dash && out->len > start)
                    buf_putc(out, '-');
                dash = false;
                buf_putc(out, kept);
                prev_kept = true;
            } else {
                dash = true;
                prev_kept = false;
            }
            continue;
        }
        int32_t cp;
        size_t k = decode(s, n, i, &cp);
        if (k == 0) {
            i++;
            dash = true;
            prev_kept = false;
            continue;
        }
        i += k;
        utf8proc_category_t cat = utf8proc_category(cp);
        bool keep = is_letter_or_number(cat) || (prev_kept && is_mark(cat));
        if (!keep) {
            dash = true;
            prev_kept = false;
            continue;
        }
        if (dash && out->len > start)
            buf_putc(out, '-');
        dash = false;
        utf8proc_uint8_t enc[4];
        utf8proc_ssize_t m = utf8proc_encode_char(utf8proc_tolower(cp), enc);
        buf_put(out, enc, (size_t)m);
        prev_kept = true;
    }
    out->len = start + slug_shorten(out->data + start, out->len - start);
    out->data[out->len] = '\0';
}

/* Script blocks whose letters each count as a word: Han (with its radicals,
 * extensions and compatibility ideographs), kana, Hangul, and the letters
 * and numbers of the CJK symbols block (々, 〆, 〇, the Hangzhou numerals). */
static bool in_cjk_block(int32_t cp)
{
    return (cp >= 0x1100 && cp <= 0x11FF) ||   /* Hangul Jamo */
           (cp >= 0x2E80 && cp <= 0x2FDF) ||   /* CJK and Kangxi radicals */
           (cp >= 0x3000 && cp <= 0x303F) ||   /* CJK symbols and punctuation */
           (cp >= 0x3040 && cp <= 0x30FF) ||   /* Hiragana, Katakana */
           (cp >= 0x3130 && cp <= 0x318F) ||   /* Hangul compatibility Jamo */
           (cp >= 0x31F0 && cp <= 0x31FF) ||   /* Katakana phonetic extensions */
           (cp >= 0x3400 && cp <= 0x4DBF) ||   /* Han extension A */
           (cp >= 0x4E00 && cp <= 0x9FFF) ||   /* Han */
           (cp >= 0xA960 && cp <= 0xA97F) ||   /* Hangul Jamo extended A */
           (cp >= 0xAC00 && cp <= 0xD7FF) ||   /* Hangul syllables, Jamo ext. B */
           (cp >= 0xF900 && cp <= 0xFAFF) ||   /* Han compatibility */
           (cp >= 0xFF66 && cp <= 0xFFDC) ||   /* half-width Katakana, Hangul */
           (cp >= 0x1AFF0 && cp <= 0x1B16F) || /* kana supplement, extensions */
           (cp >= 0x20000 && cp <= 0x3FFFF);   /* Han extensions B and later */
}

/* Punctuation that CJK text writes without spaces around it. */
static bool is_cjk_punct(int32_t cp)
{
    return (cp >= 0x3000 && cp <= 0x303F) || cp == 0x30FB ||
           (cp >= 0xFE10 && cp <= 0xFE1F) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
           (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
           (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65);
}

/* ASCII bytes for word counting: bit 0 says space (ends a run), bit 1 a
 * letter or digit (makes the run a word); 0 is punctuation (joins a run). */
static const unsigned char ascii_class[128] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0,
    0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0,
    0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0,
};

/* Words begun in a block of `bits` (8 or 16) ASCII bytes, from their
 * masks (bit k for byte k): sp the spaces, al the letters and digits;
 * *counted says the run going on has been counted (and is updated). A word
 * begins at a letter or digit when the last space-or-alnum byte before it
 * (punctuation joins a run) is a space, or there is none in the block and
 * the run was not counted. The last such byte's kind is found for all
 * positions at once: a prefix fill over bits + 1 bits, bit 0 standing for
 * what came before the block. */
static inline unsigned ascii_words(unsigned sp, unsigned al, unsigned *counted, unsigned bits)
{
    unsigned punct = ~(sp | al) & ((1u << bits) - 1);
    if (!(al & punct << 1)) {
        /* no letter or digit right after punctuation (most blocks of
         * running text): a word begins at each letter or digit after a
         * space, and at the first byte when the run was not counted; the
         * run's state is the kind of the last space or letter/digit */
        uint32_t w = al & ~(al << 1 | *counted);
        unsigned last = sp | al;
        if (last)
            *counted = (al >> (31 - (unsigned)__builtin_clz(last))) & 1;
        w = w - ((w >> 1) & 0x5555u);
        w = (w & 0x3333u) + ((w >> 2) & 0x3333u);
        w = (w + (w >> 4)) & 0x0f0fu;
        return (w + (w >> 8)) & 0x1fu;
    }
    uint32_t e = 1u | (sp | al) << 1; /* an event: a space or a letter/digit */
    uint32_t t = *counted | al << 1;  /* its kind: 1 letter/digit, 0 space */
    for (unsigned k = 1; k <= bits; k <<= 1) {
        t |= (t << k) & ~e;
        e |= e << k;
    }
    *counted = (t >> bits) & 1;
    uint32_t w = al & ~t & ((1u << bits) - 1); /* count its bits (no POPCNT in the baseline) */
    w = w - ((w >> 1) & 0x5555u);
    w = (w & 0x3333u) + ((w >> 2) & 0x3333u);
    w = (w + (w >> 4)) & 0x0f0fu;
    return (w + (w >> 8)) & 0x1fu;
}

size_t text_word_count(const char *s, size_t n) { return text_word_count_cjk(s, n, NULL); }

size_t text_word_count_cjk(const char *s, size_t n, size_t *cjk)
{
    size_t words = 0, han = 0;
    bool in_run = false, run_counted = false;
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            /* a stretch of ASCII without branches on the bytes: a word is
             * counted at the first letter or digit of each run */
            unsigned counted = in_run && run_counted, space = !in_run;
            size_t from = i;
#ifdef SCAN_SSE2
            /* 16 bytes a step while they are ASCII */
            for (; n - i >= 16; i += 16) {
                __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
                if (sse_mask(x))
                    break;
                __m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20));
                unsigned sp = sse_mask(_mm_or_si128(
                    _mm_cmpeq_epi8(x, _mm_set1_epi8(' ')),
                    _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(8)), _mm_cmplt_epi8(x, _mm_set1_epi8(14)))));
                unsigned al = sse_mask(_mm_or_si128(
                    _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1))),
                    _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
                                  _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)))));
                words += ascii_words(sp, al, &counted, 16);
                space = (sp >> 15) & 1;
            }
#endif
            /* 8 bytes a step while they are ASCII */
            for (; i + 8 <= n && !swar_high(swar_load(s + i)); i += 8) {
                uint64_t x = swar_load(s + i);
                unsigned sp = swar_bits(swar_eq(x, ' ') | swar_range(x, 9, 13));
                unsigned al = swar_bits(swar_range(x, '0', '9') | swar_range(x | SWAR_ONES * 0x20, 'a', 'z'));
                words += ascii_words(sp, al, &counted, 8);
                space = (sp >> 7) & 1;
            }
            if (i > from) {
                if (i == n || (unsigned char)s[i] >= 0x80) {
                    in_run = !space;
                    run_counted = counted;
                    continue;
                }
                c = (unsigned char)s[i];
            }
            do {
                unsigned cls = ascii_class[c], alnum = cls >> 1;
                space = cls & 1;
                words += alnum & ~counted & 1u;
                counted = (counted | alnum) & (space ^ 1u);
            } while (++i < n && (c = (unsigned char)s[i]) < 0x80);
            in_run = !space;
            run_counted = counted;
            continue;
        }
        int32_t cp;
        size_t k = decode(s, n, i, &cp);
        if (k == 0) { /* an invalid byte: part of a run, never a word by itself */
            i++;
            if (!in_run)
                run_counted = false;
            in_run = true;
            continue;
        }
        i += k;
        utf8proc_category_t cat = utf8proc_category(cp);
        if (cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
            cat == UTF8PROC_CATEGORY_ZP || cp == 0x85) {
            in_run = false;
        } else if (in_cjk_block(cp) && is_letter_or_number(cat)) {
            words++;
            han++;
            in_run = false;
        } else if (in_cjk_block(cp) && is_mark(cat)) {
            /* a combining (semi-)voiced sound mark belongs to its kana */
        } else if (is_cjk_punct(cp)) {
            in_run = false;
        } else {
            if (!in_run)
                run_counted = false;
            in_run = true;
            if (!run_counted && is_letter_or_number(cat)) {
                words++;
                run_counted = true;
            }
        }
    }
    if (cjk)
        *cjk = han;
    return words;
}

size_t text_utf8_check(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i = scan_non_ascii(s, i, n); /* ASCII, 16 bytes a step */
            continue;
        }
        int32_t cp;
        size_t k = decode(s, n, i, &cp);
        if (k == 0)
            return i;
        i += k;
    }
    return (size_t)-1;
}

size_t text_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 200 || lb > 200)
        return (size_t)-1;
    /* three rows: i-2 (for a transposition), i-1, i */
    size_t *rows = xcalloc(3 * (lb + 1), sizeof *rows);
    size_t *two = rows, *one = rows + lb + 1, *cur = rows + 2 * (lb + 1);
    for (size_t j = 0; j <= lb; j++)
        one[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = one[j - 1] + (a[i - 1] != b[j - 1]);
            if (one[j] + 1 < best)
                best = one[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && two[j - 2] + 1 < best)
                best = two[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = two;
        two = one;
        one = cur;
        cur = t;
    }
    size_t r = one[lb];
    free(rows);
    return r;
}

bool text_close_enough(const char *want, size_t dist)
{
    size_t n = strlen(want);
    size_t lim = n <= 4 ? 1 : n / 3 > 2 ? n / 3 : 2;
    return dist <= lim;
}

void text_near_try(text_near *n, const char *candidate)
{
    size_t d = text_edit_distance(n->typed, candidate);
    if (d < n->dist) {
        n->dist = d;
        n->best = candidate;
    }
}

const char *text_near_best(const text_near *n)
{
    return n->best && text_close_enough(n->typed, n->dist) ? n->best : NULL;
}

size_t text_leading_emoji(const char *s, size_t n)
{
    int32_t cp;
    size_t k = decode(s, n, 0, &cp);
    if (!k)
        return 0;
    const utf8proc_property_t *p = utf8proc_get_property(cp);
    bool regional = p->boundclass == UTF8PROC_BOUNDCLASS_REGIONAL_INDICATOR;
    if (p->boundclass != UTF8PROC_BOUNDCLASS_EXTENDED_PICTOGRAPHIC && !regional)
        return 0;
    /* the rest of its grapheme cluster: variation selectors, skin tones,
     * zero-width-joined pictographs, the second flag letter */
    int32_t state = 0;
    int32_t prev = cp;
    size_t i = k;
    while (i < n) {
        size_t m = decode(s, n, i, &cp);
        if (!m || utf8proc_grapheme_break_stateful(prev, cp, &state))
            break;
        prev = cp;
        i += m;
    }
    return i;
}

size_t text_next_char(const char *s, size_t n, size_t i, int32_t *cp, int *cls)
{
    size_t k = decode(s, n, i, cp);
    if (!k) {
        *cp = -1;
        *cls = TEXT_CHAR_OTHER;
        return 1;
    }
    if (*cp < 0x80) {
        int c = *cp;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            *cls = TEXT_CHAR_WORD;
        } else if (c >= 'A' && c <= 'Z') {
            *cp = c - 'A' + 'a';
            *cls = TEXT_CHAR_WORD;
        } else {
            *cls = TEXT_CHAR_OTHER;
        }
        return k;
    }
    utf8proc_category_t cat = utf8proc_category(*cp);
    if (is_letter_or_number(cat) || is_mark(cat)) {
        *cls = in_cjk_block(*cp) && !is_mark(cat) ? TEXT_CHAR_CJK : TEXT_CHAR_WORD;
        *cp = utf8proc_tolower(*cp);
    } else {
        *cls = TEXT_CHAR_OTHER;
    }
    return k;
}

text_format text_format_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/'))
        return TEXT_PLAIN;
    if (!strcmp(dot, ".html") || !strcmp(dot, ".htm"))
        return TEXT_HTML;
    if (!strcmp(dot, ".xml"))
        return TEXT_XML;
    if (!strcmp(dot, ".json"))
        return TEXT_JSON;
    return TEXT_PLAIN;
}

/* The UTF-8 sequence at s[i..n) (Unicode's table 3-7 of well-formed
 * sequences): its length with *cp, or, when it is not one, minus the
 * length of its maximal subpart (at least 1 byte). */
static long utf8_at(const unsigned char *s, size_t n, size_t i, int32_t *cp)
{
    unsigned char c = s[i];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c >= 0xC2 && c <= 0xDF)
        need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return -1;
    }
    int32_t u = c & (0x3F >> need);
    for (size_t k = 1; k <= need; k++) {
        unsigned char b = i + k < n ? s[i + k] : 0;
        if (k == 1 ? b < lo || b > hi : b < 0x80 || b > 0xBF)
            return -(long)k;
        u = (u << 6) | (b & 0x3F);
    }
    *cp = u;
    return (long)need + 1;
}

static bool format_refuses(int32_t cp, text_format f)
{
    if (cp < 0x20)
        return f != TEXT_PLAIN && cp != '\t' && cp != '\n' && cp != '\r' && !(f == TEXT_HTML && cp == '\f');
    if (f == TEXT_HTML)
        return (cp >= 0x7F && cp <= 0x9F) || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
    if (f == TEXT_XML)
        return cp == 0xFFFE || cp == 0xFFFF;
    return false;
}

size_t text_format_bad(const char *s, size_t n, text_format f)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    for (;;) {
        /* printable ASCII and line ends, 16 bytes a step: most of any page */
        i = scan_text_suspect(s, i, n);
        if (i >= n)
            return n;
        do { /* then a character at a time while they are not ASCII */
            /* first the sequences most text is made of, none of which a
             * format refuses: 2 bytes from U+00C0 (lead C3–DF), 3 bytes
             * in U+1000–U+CFFF or U+E000–U+EFFF (lead E1–EC, EE) */
            unsigned c = u[i];
            if (c >= 0xC3 && c <= 0xDF && n - i >= 2 && (u[i + 1] & 0xC0) == 0x80) {
                i += 2;
                continue;
            }
            if (((c >= 0xE1 && c <= 0xEC) || c == 0xEE) && n - i >= 3 && (u[i + 1] & 0xC0) == 0x80 &&
                (u[i + 2] & 0xC0) == 0x80) {
                i += 3;
                continue;
            }
            int32_t cp;
            long k = utf8_at(u, n, i, &cp);
            if (k < 0 || format_refuses(cp, f))
                return i;
            i += (size_t)k;
        } while (i < n && u[i] >= 0x7F);
    }
}

void text_format_fix(buf *out, const char *s, size_t n, text_format f)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t bad = i + text_format_bad(s + i, n - i, f);
        buf_put(out, s + i, bad - i);
        if (bad == n)
            break;
        int32_t cp;
        long k = utf8_at(u, n, bad, &cp);
        buf_puts(out, "\xEF\xBF\xBD");
        i = bad + (size_t)(k < 0 ? -k : k);
    }
}
