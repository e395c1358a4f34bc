/* words: search keys of a text, each once per document (see words.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "util/hash.h"
#include "util/scan.h"
#include "util/text.h"
#include "util/words.h"
#include "util/xalloc.h"

/* The set: the packed keys in `keys`, and an open-addressing table over
 * them, at most half full. A slot holds the key's first 8 bytes (zero past
 * its end) and its length beside its hash, so a key of 8 bytes or fewer —
 * most words — is found without reading the packed keys. */
typedef struct slot {
    uint64_t head;    /* the key's first 8 bytes, zero past its end */
    uint32_t hash;    /* the hash's top 24 bits, then the key's length */
    uint32_t at;      /* offset of the key's length byte in keys, + 1; 0: empty */
} slot;

struct words_set {
    buf keys;
    slot *slots;
    size_t nslots, count;
    uint32_t *used; /* the slots filled, count of them: emptied one by one */
};

words_set *words_set_new(void)
{
    words_set *w = xcalloc(1, sizeof *w);
    w->keys = (buf)BUF_INIT;
    w->nslots = 256;
    w->slots = xcalloc(w->nslots, sizeof *w->slots);
    w->used = xmalloc((w->nslots / 2 + 1) * sizeof *w->used);
    return w;
}

void words_set_free(words_set *w)
{
    if (!w)
        return;
    buf_release(&w->keys);
    free(w->slots);
    free(w->used);
    free(w);
}

/* A slot's place in a table of n slots (a power of two). */
static inline size_t slot_at(uint32_t hash, size_t n) { return (hash >> 8) & (n - 1); }

static void grow(words_set *w)
{
    size_t n = w->nslots * 2, k = 0;
    slot *v = xcalloc(n, sizeof *v);
    w->used = xrealloc(w->used, (n / 2 + 1) * sizeof *w->used);
    for (size_t i = 0; i < w->nslots; i++) {
        slot e = w->slots[i];
        if (!e.at)
            continue;
        size_t j = slot_at(e.hash, n);
        while (v[j].at)
            j = (j + 1) & (n - 1);
        v[j] = e;
        w->used[k++] = (uint32_t)j;
    }
    free(w->slots);
    w->slots = v;
    w->nslots = n;
}

/* The table's hash of a key: its bytes 8 at a time, each block mixed by
 * hash_mix (util/hash.h). The key's buffer has at least 8 readable bytes
 * from every block's start (KEY_ROOM), so a block is read whole and
 * masked. */
#define KEY_ROOM 8
static inline uint64_t key_block_mask(size_t left)
{
    return left < 8 ? ((uint64_t)1 << (8 * left)) - 1 : ~(uint64_t)0;
}
static inline uint64_t key_block(const char *k, size_t left)
{
    return swar_load(k) & key_block_mask(left);
}

/* Whether a[0..len) and b[0..len) are the same, 8 bytes a step (both
 * with KEY_ROOM readable bytes from every block's start; the bytes past
 * len are masked off before they are looked at). */
static inline bool same_key(const char *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i += 8)
        if (key_block(a + i, len - i) != key_block(b + i, len - i))
            return false;
    return true;
}

/* The room words_set_add makes in the packed keys before it reads a text
 * of n bytes: every key it can add, and KEY_ROOM bytes past their end so
 * that a stored key reads the same way. A key is at most 2 bytes more than
 * the text it comes from, a separator after it but the last; a CJK bigram
 * (2 + 2 × 4 bytes) reads one character after the one before it (3 or 4
 * bytes): at most 3 bytes of keys a byte of text, so 3n + the last key. */
#define KEY_ROOM_FOR(n) (3 * (n) + 2 + WORDS_KEY_MAX + 4 + 2 * KEY_ROOM)

/* A key not in the set: appended to the packed keys (room made by
 * words_set_add), 8 bytes a step (the key's buffer has KEY_ROOM readable
 * bytes past each block, and the bytes past its end are overwritten by
 * the next key or are room). */
__attribute__((noinline)) static void insert_key(words_set *w, size_t j, uint64_t head,
                                                 uint32_t hash, const char *key, size_t len,
                                                 int where)
{
    w->slots[j] = (slot){ head, hash, (uint32_t)w->keys.len + 1 };
    w->used[w->count] = (uint32_t)j;
    char *d = w->keys.data + w->keys.len;
    d[0] = (char)len;
    d[1] = (char)where;
    swar_store(d + 2, head);
    for (size_t i = 8; i < len; i += 8)
        swar_store(d + 2 + i, swar_load(key + i));
    d[2 + len] = '\0';
    w->keys.len += 2 + len;
    if (++w->count * 2 > w->nslots)
        grow(w);
}

/* Adds key[0..len) (0 < len < 256; a buffer with KEY_ROOM readable bytes
 * past each 8-byte block) at place `where`. Inline, the new key's work out
 * of line: it runs once a word. */
__attribute__((always_inline)) static inline void add_key_head(words_set *w, uint64_t head,
                                                             const char *key, size_t len, int where)
{
    uint64_t h = hash_mix(len, head);
    for (size_t i = 8; i < len; i += 8)
        h = hash_mix(h, key_block(key + i, len - i));
    uint32_t hash = ((uint32_t)(h >> 32) & ~0xffu) | (uint32_t)len;
    size_t mask = w->nslots - 1, j = slot_at(hash, w->nslots);
    for (; w->slots[j].at; j = (j + 1) & mask) {
        const slot *e = &w->slots[j];
        if (e->hash != hash || e->head != head)
            continue;
        char *k = w->keys.data + e->at - 1;
        if (len > 8 && !same_key(k + 2 + 8, key + 8, len - 8))
            continue;
        if ((unsigned char)k[1] < where)
            k[1] = (char)where;
        return;
    }
    insert_key(w, j, head, hash, key, len, where);
}

/* The same, its first block not read yet. */
__attribute__((always_inline)) static inline void add_key(words_set *w, const char *key, size_t len,
                                                        int where)
{
    add_key_head(w, key_block(key, len), key, len, where);
}

/* The ASCII words that lie whole in the SCAN_STEP bytes at s (a
 * separator after each, within the block, before any byte >= 0x80), found
 * from the block's mask of letters and digits instead of a byte at a time;
 * for a place between words. Returns how far it read: the start of a
 * word it leaves to the caller, or the first byte >= 0x80, or SCAN_STEP. */
static inline size_t block_words(words_set *w, const char *s, int where)
{
    unsigned high, m = scan_alnum_bits(s, &high);
    size_t lim = high ? (size_t)__builtin_ctz(high) : SCAN_STEP, p = 0;
    while (p < lim) {
        unsigned r = m >> p;
        if (!r)
            return lim; /* separators up to the limit */
        size_t st = p + (size_t)__builtin_ctz(r);
        if (st >= lim)
            return lim;
        size_t en = st + (size_t)__builtin_ctz(~m >> st); /* ~m has bits past the block */
        if (en >= lim)
            return st; /* it may go on: the byte loop reads it */
        size_t len = en - st;
        if (len <= 8) {
            /* its 8 bytes read within the block: from st, or from the
             * block's last 8 and shifted down */
            size_t at = st + 8 <= SCAN_STEP ? st : SCAN_STEP - 8;
            uint64_t head = ((swar_load(s + at) >> 8 * (st - at)) | SWAR_ONES * 0x20)
                            & key_block_mask(len);
            char key[8]; /* the bytes for insert_key, in order */
            swar_store(key, head);
            add_key_head(w, head, key, len, where);
        } else { /* 9 to 15 bytes: its first 8 and its last 8 */
            char word[16 + KEY_ROOM];
            swar_store(word, swar_load(s + st) | SWAR_ONES * 0x20);
            swar_store(word + len - 8, swar_load(s + en - 8) | SWAR_ONES * 0x20);
            add_key(w, word, len, where);
        }
        p = en + 1; /* s[en] is a separator */
    }
    return lim;
}


void words_set_take(words_set *w, buf *out)
{
    buf_put(out, w->keys.data, w->keys.len);
    buf_reset(&w->keys);
    /* the slots this document filled, not the whole table: one long page
     * made it large for every page after it */
    for (size_t i = 0; i < w->count; i++)
        w->slots[w->used[i]].at = 0;
    w->count = 0;
}

/* Writes cp (a valid code point) as UTF-8 at d, which has room for 4
 * bytes; returns its length. */
static size_t put_utf8(char *d, int32_t cp)
{
    return (size_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)d);
}

/* An ASCII byte in a word, lower-cased; 0 for a separator (what
 * text_next_char says of ASCII, without the call: most text is ASCII). */
static const unsigned char ascii_word[128] = {
    ['0'] = '0', ['1'] = '1', ['2'] = '2', ['3'] = '3', ['4'] = '4', ['5'] = '5', ['6'] = '6',
    ['7'] = '7', ['8'] = '8', ['9'] = '9',
#define L(c) [c] = c, [c - 'a' + 'A'] = c
    L('a'), L('b'), L('c'), L('d'), L('e'), L('f'), L('g'), L('h'), L('i'), L('j'), L('k'), L('l'), L('m'),
    L('n'), L('o'), L('p'), L('q'), L('r'), L('s'), L('t'), L('u'), L('v'), L('w'), L('x'), L('y'), L('z'),
#undef L
};

/* A CJK run ends: a lone character is a key by itself (a bigram was made
 * for every pair already). */
static void end_cjk_run(words_set *w, int32_t prev_cjk, bool single, int where)
{
    if (prev_cjk >= 0 && single) {
        char c[8 + KEY_ROOM]; /* the room of a bigram: add_key is inlined */
        add_key(w, c, put_utf8(c, prev_cjk), where);
    }
}

/* The state of the scan (the word being read, its hash, the CJK run) is
 * kept in locals, not in a struct passed around: the ASCII loop below runs
 * once a byte, and state in memory made each byte wait on the last one's
 * stores. */
void words_set_add(words_set *w, const char *s, size_t n, int where)
{
    char word[WORDS_KEY_MAX + 4 + KEY_ROOM]; /* cut after WORDS_KEY_MAX bytes */
    size_t wl = 0;
    int32_t prev_cjk = -1;   /* the CJK run's last character, or -1 */
    bool cjk_single = false; /* the run so far is one character */
    size_t i = 0;
    buf_grow(&w->keys, KEY_ROOM_FOR(n));
    while (i < n) {
        unsigned char b = (unsigned char)s[i];
        if (b < 0x80) {
            if (prev_cjk >= 0) {
                end_cjk_run(w, prev_cjk, cjk_single, where);
                prev_cjk = -1;
            }
            /* between words, a block ahead: its whole words at once */
            if (!wl && n - i >= SCAN_STEP) {
                size_t k = block_words(w, s + i, where);
                if (k) {
                    i += k;
                    continue;
                }
            }
            if (!ascii_word[b]) {
                if (wl) {
                    add_key(w, word, wl, where);
                    wl = 0;
                }
                i++;
                continue;
            }
            /* a run of ASCII letters and digits, 8 bytes a step: the bytes
             * lower-cased at once (| 0x20 leaves digits as they are), the
             * run's end found without a branch a byte */
            while (i + 8 <= n) {
                uint64_t x = swar_load(s + i), raw;
                memcpy(&raw, s + i, 8);
                uint64_t low = x | SWAR_ONES * 0x20;
                uint64_t in = (swar_range(x, '0', '9') | swar_range(low, 'a', 'z')) & ~swar_high(x);
                uint64_t stop = ~in & SWAR_HIGH;
                size_t run = stop ? swar_first(stop) : 8;
                if (wl < WORDS_KEY_MAX) {
                    raw |= SWAR_ONES * 0x20;
                    memcpy(word + wl, &raw, 8);
                    wl = wl + run < WORDS_KEY_MAX ? wl + run : WORDS_KEY_MAX;
                }
                i += run;
                if (run < 8)
                    goto run_done;
            }
            for (; i < n && (unsigned char)s[i] < 0x80 && ascii_word[(unsigned char)s[i]]; i++)
                if (wl < WORDS_KEY_MAX)
                    word[wl++] = (char)ascii_word[(unsigned char)s[i]];
        run_done:
            continue;
        }
        int32_t cp;
        int cls;
        i += text_next_char(s, n, i, &cp, &cls);
        if (cls == TEXT_CHAR_WORD) {
            if (prev_cjk >= 0) {
                end_cjk_run(w, prev_cjk, cjk_single, where);
                prev_cjk = -1;
            }
            if (wl < WORDS_KEY_MAX)
                wl += put_utf8(word + wl, cp);
            continue;
        }
        if (wl) {
            add_key(w, word, wl, where);
            wl = 0;
        }
        if (cls != TEXT_CHAR_CJK) {
            end_cjk_run(w, prev_cjk, cjk_single, where);
            prev_cjk = -1;
            continue;
        }
        if (prev_cjk >= 0) { /* a bigram: the character before and this one */
            char c[8 + KEY_ROOM];
            size_t cl = put_utf8(c, prev_cjk);
            cl += put_utf8(c + cl, cp);
            add_key(w, c, cl, where);
            cjk_single = false;
        } else {
            cjk_single = true;
        }
        prev_cjk = cp;
    }
    if (wl)
        add_key(w, word, wl, where);
    end_cjk_run(w, prev_cjk, cjk_single, where);
}
