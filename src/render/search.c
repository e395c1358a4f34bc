/* search: the search index the theme's /search/ page reads
 * (search/index.json), made from the finished site model.
 *
 * Every published post and page is a document: its URL, title, date, tags,
 * a short excerpt and its headings. Its words go into one inverted index:
 * words of spaced scripts lower-cased (the page's script matches them by
 * prefix), CJK text as character bigrams (a lone CJK character as itself),
 * so a query of any length finds text without word boundaries. Keys are
 * sorted in JavaScript's string order (UTF-16 code units) and front-coded;
 * each key's documents are written as base-36 gaps, with '*' before a
 * document whose title holds the key, '^' when its headings or tags do. The format is
 * documented in docs/search.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define WORD_MAX 32     /* longer words are cut (bytes of the key) */
#define EXCERPT_MAX 140 /* characters of a page's text shown with a result */

/* Where a key is found in a page, the best place counting. */
enum { IN_TEXT, IN_HEADING, IN_TITLE }; /* (tags count as headings) */

typedef struct posting {
    uint32_t doc;
    int where;
} posting;

typedef struct term {
    const char *key;
    posting *v;
    size_t n, cap;
} term;

/* A word's term, remembered in a small table in front of the map: text
 * repeats its words (the, of, gradient…), and most lookups end here. */
#define RECENT_SLOTS 1024

typedef struct indexer {
    arena *a;
    strmap *map;
    term *terms;
    size_t nterms, cap;
    uint32_t doc;
    long recent[RECENT_SLOTS]; /* a term index + 1, or 0 */
} indexer;

static void add_key(indexer *x, const char *key, size_t len, int where)
{
    uint64_t h = hash_bytes(key, len);
    long *slot = &x->recent[h & (RECENT_SLOTS - 1)];
    long at = -1;
    if (*slot) {
        const char *k = x->terms[*slot - 1].key;
        if (!memcmp(k, key, len) && !k[len])
            at = *slot - 1;
    }
    char tmp[WORD_MAX * 2 + 8];
    if (at < 0) {
        memcpy(tmp, key, len);
        tmp[len] = 0;
        at = strmap_get(x->map, tmp);
    }
    if (at < 0) {
        term *t = VEC_ADD(x->terms, x->nterms, x->cap, 1024);
        memset(t, 0, sizeof *t);
        t->key = arena_strndup(x->a, tmp, len);
        at = (long)(x->nterms - 1);
        strmap_put(x->map, t->key, at);
    }
    *slot = at + 1;
    term *t = &x->terms[at];
    if (t->n && t->v[t->n - 1].doc == x->doc) {
        if (t->v[t->n - 1].where < where)
            t->v[t->n - 1].where = where;
        return;
    }
    posting *p = VEC_ADD(t->v, t->n, t->cap, 4);
    p->doc = x->doc;
    p->where = where;
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

/* The next character of s[i..n) as text_next_char reads it (lower-cased,
 * classed), ASCII without a call: most of a site's text is ASCII, and this
 * loop is most of the index's time. */
static size_t next_char(const char *s, size_t n, size_t i, int32_t *cp, int *cls)
{
    unsigned char b = (unsigned char)s[i];
    if (b >= 0x80)
        return text_next_char(s, n, i, cp, cls);
    *cp = b;
    if ((b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')) {
        *cls = TEXT_CHAR_WORD;
    } else if (b >= 'A' && b <= 'Z') {
        *cp = b - 'A' + 'a';
        *cls = TEXT_CHAR_WORD;
    } else {
        *cls = TEXT_CHAR_OTHER;
    }
    return 1;
}

/* Adds the words of s[0..n) to the current document. */
static void add_text(indexer *x, const char *s, size_t n, int where)
{
    char w[WORD_MAX + 4], c[8]; /* a word (cut after WORD_MAX bytes), a CJK key */
    size_t wl = 0;
    int32_t prev_cjk = -1;
    bool cjk_run_single = false; /* the run so far is one character */
    size_t i = 0;
    while (i <= n) {
        int32_t cp = -1;
        int cls = TEXT_CHAR_OTHER;
        if (i < n)
            i += next_char(s, n, i, &cp, &cls);
        else
            i++;
        if (cls == TEXT_CHAR_WORD) {
            if (wl < WORD_MAX)
                wl += put_utf8(w + wl, cp);
        } else if (wl) {
            add_key(x, w, wl, where);
            wl = 0;
        }
        if (cls == TEXT_CHAR_CJK) {
            if (prev_cjk >= 0) {
                size_t cl = put_utf8(c, prev_cjk);
                cl += put_utf8(c + cl, cp);
                add_key(x, c, cl, where);
                cjk_run_single = false;
            } else {
                cjk_run_single = true;
            }
            prev_cjk = cp;
        } else {
            if (prev_cjk >= 0 && cjk_run_single)
                add_key(x, c, put_utf8(c, prev_cjk), where);
            prev_cjk = -1;
            cjk_run_single = false;
        }
    }
}

/* A key for sorting a code point in UTF-16 order (what JavaScript's `<`
 * compares): surrogate pairs sort between U+D7FF and U+E000. */
static uint32_t utf16_rank(int32_t cp)
{
    if (cp < 0xD800)
        return (uint32_t)cp;
    if (cp >= 0x10000)
        return 0xD800u + (uint32_t)(cp - 0x10000);
    return (uint32_t)cp + 0x110000u;
}

static int cmp_terms(const void *pa, const void *pb)
{
    const char *a = ((const term *)pa)->key, *b = ((const term *)pb)->key;
    size_t na = strlen(a), nb = strlen(b), i = 0, j = 0;
    while (i < na && j < nb) {
        int32_t ca, cb;
        int k;
        i += text_next_char(a, na, i, &ca, &k);
        j += text_next_char(b, nb, j, &cb, &k);
        if (ca != cb)
            return utf16_rank(ca) < utf16_rank(cb) ? -1 : 1;
    }
    return (i < na) - (j < nb);
}

/* UTF-16 code units of s[0..n). */
static size_t utf16_len(const char *s, size_t n)
{
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) != 0x80)
            u += c >= 0xF0 ? 2 : 1;
    }
    return u;
}

/* A JSON string: quotes, backslashes and control characters escaped; '<'
 * too, so the index may be pasted into a page. */
static void json_str(buf *b, const char *s, size_t n)
{
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf_putc(b, '\\');
            buf_putc(b, (char)c);
        } else if (c < 0x20 || c == '<') {
            buf_printf(b, "\\u%04x", c);
        } else {
            buf_putc(b, (char)c);
        }
    }
    buf_putc(b, '"');
}

static void json_cstr(buf *b, const char *s) { json_str(b, s ? s : "", s ? strlen(s) : 0); }

static void base36(buf *b, uint32_t v)
{
    char tmp[16];
    int k = 0;
    do {
        tmp[k++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
        v /= 36;
    } while (v);
    while (k)
        buf_putc(b, tmp[--k]);
}

/* The first EXCERPT_MAX characters of text, at a word's end, one line. */
static void excerpt(buf *b, const char *text, size_t n)
{
    buf e = BUF_INIT;
    size_t chars = 0, i = 0, cut = 0;
    bool space = false;
    while (i < n && chars < EXCERPT_MAX) {
        unsigned char c = (unsigned char)text[i];
        size_t k = 1;
        while (i + k < n && ((unsigned char)text[i + k] & 0xC0) == 0x80)
            k++;
        if (c == '\n' || c == ' ' || c == '\t') {
            if (!space && e.len) {
                cut = e.len;
                buf_putc(&e, ' ');
            }
            space = true;
        } else {
            /* no space before punctuation: a formula or an image left out
             * of the text leaves "vectors , one" */
            if (k == 1 && c && strchr(",.;:!?)", c) && e.len && e.data[e.len - 1] == ' ')
                e.len--;
            buf_put(&e, text + i, k);
            space = false;
            if (c >= 0xE0) /* CJK text breaks anywhere */
                cut = e.len;
        }
        chars++;
        i += k;
    }
    size_t len = i < n && cut ? cut : e.len;
    while (len && e.data[len - 1] == ' ')
        len--;
    buf_put(&e, "", 0);
    json_str(b, e.data, len);
    buf_release(&e);
}

static void add_doc(indexer *x, const page *p, buf *docs)
{
    if (docs->len > 1)
        buf_putc(docs, ',');
    buf_putc(docs, '[');
    tpl_map_touch_all(p->value); /* a build session re-makes the index when the page changes */
    const char *url = tpl_map_get_cstr(p->value, "url").u.s;
    json_cstr(docs, url);
    buf_putc(docs, ',');
    json_cstr(docs, p->title);
    buf_putc(docs, ',');
    if (p->is_post && p->has_date) {
        buf d = BUF_INIT;
        date_format(&d, &p->date, "%Y-%m-%d");
        json_str(docs, d.data, d.len);
        buf_release(&d);
    } else {
        buf_puts(docs, "\"\"");
    }
    buf_puts(docs, ",[");
    for (size_t i = 0; i < p->ntags; i++) {
        if (i)
            buf_putc(docs, ',');
        json_cstr(docs, p->tags[i]);
        add_text(x, p->tags[i], strlen(p->tags[i]), IN_HEADING);
    }
    buf_puts(docs, "],");
    if (p->description && *p->description)
        excerpt(docs, p->description, strlen(p->description));
    else
        excerpt(docs, p->md.text ? p->md.text : "", p->md.text_len);
    buf_puts(docs, ",[");
    for (size_t i = 0; i < p->md.nheadings; i++) {
        const md_heading *h = &p->md.headings[i];
        if (i)
            buf_putc(docs, ',');
        buf_putc(docs, '[');
        json_cstr(docs, h->id);
        buf_putc(docs, ',');
        json_cstr(docs, h->title);
        buf_putc(docs, ']');
        add_text(x, h->title, strlen(h->title), IN_HEADING);
    }
    buf_puts(docs, "]]");
    if (p->title)
        add_text(x, p->title, strlen(p->title), IN_TITLE);
    add_text(x, p->md.text ? p->md.text : "", p->md.text_len, IN_TEXT);
    x->doc++;
}

void render_search_index(const site *s, buf *out)
{
    indexer x = { .a = arena_new(), .map = strmap_new(4096) };
    buf docs = BUF_INIT;
    buf_putc(&docs, '[');
    for (size_t k = 0; k < s->nposts; k++)
        add_doc(&x, &s->pages[s->posts[k]], &docs);
    for (size_t k = 0; k < s->nplain; k++)
        add_doc(&x, &s->pages[s->plain[k]], &docs);
    buf_putc(&docs, ']');
    vec_sort(x.terms, x.nterms, sizeof *x.terms, cmp_terms);

    buf_puts(out, "{\"version\":1,\"docs\":");
    buf_put(out, docs.data, docs.len);
    /* keys, front-coded: one digit (how many UTF-16 units it shares with
     * the key before, at most 9), then the rest; separated by spaces */
    buf keys = BUF_INIT;
    const char *prev = "";
    for (size_t i = 0; i < x.nterms; i++) {
        const char *k = x.terms[i].key;
        size_t same = 0, units = 0;
        while (prev[same] && prev[same] == k[same])
            same++;
        while (same && ((unsigned char)k[same] & 0xC0) == 0x80)
            same--; /* whole characters only */
        units = utf16_len(k, same);
        while (units > 9) { /* step back whole characters */
            do
                same--;
            while (same && ((unsigned char)k[same] & 0xC0) == 0x80);
            units = utf16_len(k, same);
        }
        if (i)
            buf_putc(&keys, ' ');
        buf_putc(&keys, (char)('0' + units));
        buf_puts(&keys, k + same);
        prev = k;
    }
    buf_puts(out, ",\"keys\":");
    json_str(out, keys.data, keys.len);
    buf_puts(out, ",\"postings\":\"");
    for (size_t i = 0; i < x.nterms; i++) {
        term *t = &x.terms[i];
        if (i)
            buf_putc(out, ' ');
        uint32_t last = 0;
        for (size_t j = 0; j < t->n; j++) {
            if (j)
                buf_putc(out, ',');
            if (t->v[j].where == IN_TITLE)
                buf_putc(out, '*');
            else if (t->v[j].where == IN_HEADING)
                buf_putc(out, '^');
            base36(out, t->v[j].doc - last);
            last = t->v[j].doc;
        }
        free(t->v);
    }
    buf_puts(out, "\"}\n");
    buf_release(&keys);
    buf_release(&docs);
    free(x.terms);
    strmap_free(x.map);
    arena_free(x.a);
}
