/* search: the search index the theme's /search/ page reads
 * (search/index.json), made from the finished site model.
 *
 * Every published post and page is a document: its URL, title, date, tags,
 * a short excerpt and its headings. Its words go into one inverted index,
 * as the keys of util/words.h: words of spaced scripts lower-cased (the
 * page's script matches them by prefix), CJK text as character bigrams (a
 * lone CJK character as itself). A page's text and headings were made into
 * keys with its Markdown (page.search_keys); here they are merged. Keys are
 * sorted in JavaScript's string order (UTF-16 code units) and front-coded;
 * each key's documents are written as base-36 gaps, with '*' before a
 * document whose title holds the key, '^' when its headings or tags do. The format is
 * documented in docs/search.md.
 *
 * Each document's text (site_search_text: formulas as their TeX,
 * citations as shown, no footnote marks) goes to search/text/N.json, a
 * few documents a file (site_search_text_file), for the snippets the
 * search page cuts around a match: the index itself keeps only each
 * document's first words. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/hash.h"
#include "util/scan.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/words.h"
#include "util/xalloc.h"

/* A key's documents are written out as they come (in the order of the
 * documents, so each gap is known): only its latest document is held back,
 * since another of its keys may still raise the key's place in it. Three
 * bytes a posting instead of a struct of eight and the room its array
 * grew by: at 10,000 posts, 2.9 million postings. */
typedef struct term {
    const char *key;
    size_t len;
    buf out;       /* the postings written so far, in the index's form */
    uint32_t last; /* the last document written (gaps count from it) */
    uint32_t doc;  /* the document held back */
    int where;     /* the best place of the key in it: WORDS_IN_… */
    bool held;     /* a document is held back */
} term;

/* The terms, and an open-addressing table of (hash, term + 1) over them,
 * at most half full: every key of every page is looked up here. */
typedef struct slot {
    uint64_t hash;
    size_t term; /* index + 1; 0: empty */
} slot;

typedef struct indexer {
    arena *a;
    term *terms;
    size_t nterms, cap;
    slot *slots;
    size_t nslots;
    uint32_t doc;
    words_set *head; /* a document's title and tags */
    buf scratch;
    const site *s;
} indexer;

static void grow(indexer *x)
{
    size_t n = x->nslots ? x->nslots * 2 : 4096;
    slot *v = xcalloc(n, sizeof *v);
    for (size_t i = 0; i < x->nslots; i++) {
        if (!x->slots[i].term)
            continue;
        size_t j = x->slots[i].hash & (n - 1);
        while (v[j].term)
            j = (j + 1) & (n - 1);
        v[j] = x->slots[i];
    }
    free(x->slots);
    x->slots = v;
    x->nslots = n;
}

/* Writes t's held-back document: [,][*|^]gap in base 36, room made once
 * (a 32-bit gap is at most 7 digits). */
static void flush_posting(term *t)
{
    if (!t->held)
        return;
    buf_grow(&t->out, 9);
    char *d = t->out.data + t->out.len;
    if (t->out.len)
        *d++ = ',';
    if (t->where == WORDS_IN_TITLE)
        *d++ = '*';
    else if (t->where == WORDS_IN_HEADING)
        *d++ = '^';
    char tmp[8];
    int k = 0;
    uint32_t v = t->doc - t->last;
    do {
        tmp[k++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
        v /= 36;
    } while (v);
    while (k)
        *d++ = tmp[--k];
    *d = '\0';
    t->out.len = (size_t)(d - t->out.data);
    t->last = t->doc;
    t->held = false;
}

static void add_key(indexer *x, const char *key, size_t len, int where)
{
    uint64_t h = hash_blocks(key, len); /* (the packed keys may end a mapped file) */
    size_t mask = x->nslots - 1, j = h & mask;
    term *t = NULL;
    for (; x->slots[j].term; j = (j + 1) & mask) {
        term *c = &x->terms[x->slots[j].term - 1];
        if (x->slots[j].hash == h && c->len == len && !memcmp(c->key, key, len)) {
            t = c;
            break;
        }
    }
    if (!t) {
        t = VEC_ADD(x->terms, x->nterms, x->cap, 1024);
        memset(t, 0, sizeof *t);
        t->out = (buf)BUF_INIT;
        t->key = arena_strndup(x->a, key, len);
        t->len = len;
        x->slots[j] = (slot){ h, x->nterms };
        if (x->nterms * 2 > x->nslots)
            grow(x);
    }
    if (t->held && t->doc == x->doc) {
        if (t->where < where)
            t->where = where;
        return;
    }
    flush_posting(t);
    t->doc = x->doc;
    t->where = where;
    t->held = true;
}

/* Adds packed keys (util/words.h) to the current document. */
static void add_keys(indexer *x, const char *packed, size_t len)
{
    size_t at = 0, n;
    const char *key;
    int where;
    while ((n = words_next(packed, len, &at, &key, &where)))
        add_key(x, key, n, where);
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
    size_t i = 0;
    while (i < n) { /* a run written as it is, then one escaped byte */
        size_t j = scan_json_special(s, i, n); /* 16 bytes a step */
        buf_put(b, s + i, j - i);
        if (j == n)
            break;
        unsigned char c = (unsigned char)s[j];
        if (c == '"' || c == '\\') {
            buf_putc(b, '\\');
            buf_putc(b, (char)c);
        } else {
            buf_printf(b, "\\u%04x", c);
        }
        i = j + 1;
    }
    buf_putc(b, '"');
}

static void json_cstr(buf *b, const char *s) { json_str(b, s ? s : "", s ? strlen(s) : 0); }

/* The excerpt (site_search_excerpt) of n bytes of text, as a JSON string. */
static void excerpt(buf *b, const char *text, size_t n)
{
    buf e = BUF_INIT;
    site_search_excerpt(text, n, &e);
    json_str(b, e.data, e.len);
    buf_release(&e);
}

/* Appends p's document to the list in docs (after a comma unless it is
 * the first). */
static void add_doc(indexer *x, const page *p, buf *docs, bool first)
{
    if (!first)
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
        words_set_add(x->head, p->tags[i], strlen(p->tags[i]), WORDS_IN_HEADING);
    }
    buf_puts(docs, "],");
    if (p->description && *p->description)
        excerpt(docs, p->description, strlen(p->description));
    else if (p->search_excerpt) /* made with its Markdown */
        json_str(docs, p->search_excerpt, p->search_excerpt_len);
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
    }
    buf_puts(docs, "]]");
    if (p->title)
        words_set_add(x->head, p->title, strlen(p->title), WORDS_IN_TITLE);
    buf_reset(&x->scratch);
    words_set_take(x->head, &x->scratch);
    add_keys(x, x->scratch.data, x->scratch.len);
    size_t kn;
    const char *keys = site_page_keys(x->s, p, &kn); /* site/bulk.h */
    if (keys) { /* made with the page's Markdown */
        add_keys(x, keys, kn);
    } else {
        buf_reset(&x->scratch);
        site_page_search_keys(p, x->head, &x->scratch);
        add_keys(x, x->scratch.data, x->scratch.len);
    }
    x->doc++;
}

/* Appends p's snippet text (site_search_text) to the text file being
 * made, as a JSON string after a comma unless it is the first. */
static void add_text(const site *s, const page *p, buf *texts, buf *scratch, bool first)
{
    if (!first)
        buf_putc(texts, ',');
    size_t tn;
    const char *t = site_page_text(s, p, &tn); /* site/bulk.h */
    if (t) { /* made with its Markdown */
        json_str(texts, t, tn);
        return;
    }
    buf_reset(scratch);
    site_search_text(p->md.text ? p->md.text : "", p->md.text_len, scratch);
    json_str(texts, scratch->data, scratch->len);
}

/* How much of the index out holds before it goes to flush (when there
 * is one). */
#define FLUSH_AT 65536

void render_search_index(const site *s, buf *out, void (*flush)(void *ctx, buf *out), void *ctx,
                         void (*put)(void *ctx, const char *rel, const char *data, size_t n),
                         void *put_ctx)
{
    indexer x = { .a = arena_new(), .head = words_set_new(), .scratch = BUF_INIT, .s = s };
    grow(&x);
    size_t ndocs = s->nposts + s->nplain, per = SITE_SEARCH_TEXTS_PER_FILE;
    buf texts = BUF_INIT;
    /* the documents straight into out, their texts into one small file
     * after another; the keys and texts of the ones read leave memory now
     * and then when they are in the spill file (site/spill.h) */
    buf_puts(out, "{\"version\":1,\"texts_per_file\":");
    buf_printf(out, "%zu", per);
    buf_puts(out, ",\"docs\":[");
    for (size_t k = 0; k < ndocs; k++) {
        const page *p = &s->pages[k < s->nposts ? s->posts[k] : s->plain[k - s->nposts]];
        add_doc(&x, p, out, k == 0);
        if (k % per == 0)
            buf_putc(&texts, '[');
        add_text(s, p, &texts, &x.scratch, k % per == 0);
        if (k % per == per - 1 || k + 1 == ndocs) {
            buf_puts(&texts, "]\n");
            const char *rel = site_search_text_file(x.a, k / per);
            if (put)
                put(put_ctx, rel, texts.data, texts.len);
            buf_reset(&texts);
        }
        if (k % 256 == 255)
            site_spill_trim(s);
        if (flush && out->len >= FLUSH_AT)
            flush(ctx, out);
    }
    buf_release(&texts);
    buf_putc(out, ']');
    vec_sort(x.terms, x.nterms, sizeof *x.terms, cmp_terms);

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
        flush_posting(t);
        buf_put(out, t->out.data, t->out.len);
        buf_release(&t->out);
        if (flush && out->len >= FLUSH_AT)
            flush(ctx, out);
    }
    buf_puts(out, "\"}\n");
    if (flush)
        flush(ctx, out);
    buf_release(&keys);
    free(x.terms);
    free(x.slots);
    words_set_free(x.head);
    buf_release(&x.scratch);
    arena_free(x.a);
}
