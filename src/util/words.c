/* words: search keys of a text, each once per document (see words.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/text.h"
#include "util/words.h"
#include "util/xalloc.h"

/* The set: the packed keys in `keys`, and an open-addressing table of
 * (hash, offset + 1) pairs over them, at most half full. */
typedef struct slot {
    uint32_t hash;
    uint32_t at; /* offset of the key's length byte in keys, + 1; 0: empty */
} slot;

struct words_set {
    buf keys;
    slot *slots;
    size_t nslots, count;
};

words_set *words_set_new(void)
{
    words_set *w = xcalloc(1, sizeof *w);
    w->keys = (buf)BUF_INIT;
    w->nslots = 256;
    w->slots = xcalloc(w->nslots, sizeof *w->slots);
    return w;
}

void words_set_free(words_set *w)
{
    if (!w)
        return;
    buf_release(&w->keys);
    free(w->slots);
    free(w);
}

static void grow(words_set *w)
{
    size_t n = w->nslots * 2;
    slot *v = xcalloc(n, sizeof *v);
    for (size_t i = 0; i < w->nslots; i++) {
        slot e = w->slots[i];
        if (!e.at)
            continue;
        size_t j = e.hash & (n - 1);
        while (v[j].at)
            j = (j + 1) & (n - 1);
        v[j] = e;
    }
    free(w->slots);
    w->slots = v;
    w->nslots = n;
}

/* The table's hash of a key, made a byte at a time as a word grows: a
 * rotate and xor per byte (no multiply in the loop), mixed at the end. */
static inline uint32_t hash_step(uint32_t h, unsigned char b) { return ((h << 5) | (h >> 27)) ^ b; }
static inline uint32_t hash_end(uint32_t h, size_t len)
{
    uint64_t x = ((uint64_t)h << 8 | len) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32);
}

static void add_key(words_set *w, const char *key, size_t len, uint32_t h, int where)
{
    h = hash_end(h, len);
    size_t mask = w->nslots - 1, j = h & mask;
    for (; w->slots[j].at; j = (j + 1) & mask) {
        if (w->slots[j].hash != h)
            continue;
        char *k = w->keys.data + w->slots[j].at - 1;
        if ((unsigned char)k[0] == len && !memcmp(k + 2, key, len)) {
            if ((unsigned char)k[1] < where)
                k[1] = (char)where;
            return;
        }
    }
    w->slots[j].hash = h;
    w->slots[j].at = (uint32_t)w->keys.len + 1;
    buf_putc(&w->keys, (char)len);
    buf_putc(&w->keys, (char)where);
    buf_put(&w->keys, key, len);
    if (++w->count * 2 > w->nslots)
        grow(w);
}

static void add_bytes(words_set *w, const char *key, size_t len, int where)
{
    uint32_t h = 0;
    for (size_t i = 0; i < len; i++)
        h = hash_step(h, (unsigned char)key[i]);
    add_key(w, key, len, h, where);
}

void words_set_take(words_set *w, buf *out)
{
    buf_put(out, w->keys.data, w->keys.len);
    buf_reset(&w->keys);
    if (w->count) {
        memset(w->slots, 0, w->nslots * sizeof *w->slots);
        w->count = 0;
    }
}

/* Writes cp as UTF-8 at d; returns its length. */
static size_t put_utf8(char *d, int32_t cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xC0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
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

/* The scan of one text: the word being read and the CJK run. */
typedef struct scan {
    words_set *w;
    int where;
    char word[WORDS_KEY_MAX + 4]; /* cut after WORDS_KEY_MAX bytes */
    size_t wl;
    uint32_t wh;           /* hash_step over word[0..wl) */
    int32_t prev_cjk;      /* the run's last CJK character, or -1 */
    bool cjk_run_single;   /* the run so far is one character */
} scan;

static void end_word(scan *k)
{
    if (k->wl) {
        add_key(k->w, k->word, k->wl, k->wh, k->where);
        k->wl = 0;
        k->wh = 0;
    }
}

static void end_cjk_run(scan *k)
{
    if (k->prev_cjk >= 0 && k->cjk_run_single) {
        char c[4];
        add_bytes(k->w, c, put_utf8(c, k->prev_cjk), k->where);
    }
    k->prev_cjk = -1;
    k->cjk_run_single = false;
}

void words_set_add(words_set *w, const char *s, size_t n, int where)
{
    scan k = { .w = w, .where = where, .prev_cjk = -1 };
    size_t i = 0;
    while (i < n) {
        unsigned char b = (unsigned char)s[i];
        if (b < 0x80) {
            unsigned char l = ascii_word[b];
            i++;
            if (l) {
                if (k.prev_cjk >= 0)
                    end_cjk_run(&k);
                if (k.wl < WORDS_KEY_MAX) {
                    k.word[k.wl++] = (char)l;
                    k.wh = hash_step(k.wh, l);
                }
            } else {
                end_word(&k);
                if (k.prev_cjk >= 0)
                    end_cjk_run(&k);
            }
            continue;
        }
        int32_t cp;
        int cls;
        i += text_next_char(s, n, i, &cp, &cls);
        if (cls == TEXT_CHAR_WORD) {
            if (k.prev_cjk >= 0)
                end_cjk_run(&k);
            if (k.wl < WORDS_KEY_MAX) {
                size_t m = put_utf8(k.word + k.wl, cp);
                for (size_t j = 0; j < m; j++)
                    k.wh = hash_step(k.wh, (unsigned char)k.word[k.wl + j]);
                k.wl += m;
            }
            continue;
        }
        end_word(&k);
        if (cls != TEXT_CHAR_CJK) {
            end_cjk_run(&k);
            continue;
        }
        if (k.prev_cjk >= 0) { /* a bigram: the character before and this one */
            char c[8];
            size_t cl = put_utf8(c, k.prev_cjk);
            cl += put_utf8(c + cl, cp);
            add_bytes(w, c, cl, where);
            k.cjk_run_single = false;
        } else {
            k.cjk_run_single = true;
        }
        k.prev_cjk = cp;
    }
    end_word(&k);
    end_cjk_run(&k);
}
