/* search: the search index the theme's /search/ page reads, made from the
 * finished site model; the format is documented in docs/search.md.
 *
 * Every published post and page is a document: its URL, title, date, tags,
 * a short excerpt and its headings. Its words are the keys of util/words.h:
 * words of spaced scripts lower-cased (the page's script matches them by
 * prefix), CJK text as character bigrams (a lone CJK character as itself).
 * A page's text and headings were made into keys with its Markdown
 * (page.search_keys); here they are merged.
 *
 * The index is in segments, as Lucene's is: each document belongs to one
 * segment by a hash of its source path (site_search_segment_of), and each
 * segment is an inverted index of its own documents, search/seg/G.json —
 * their list, then their keys sorted in JavaScript's string order (UTF-16
 * code units) and front-coded, then each key's documents as base-36 gaps
 * between their numbers in the segment, with '*' before a document whose
 * title holds the key, '^' when its headings or tags do. search/index.json
 * is small: each segment's count of documents and a hash of its file, and
 * the order of all documents (which segment each next one is in), which
 * ranks ties. Each document's text (site_search_text: formulas as their
 * TeX, citations as shown, no footnote marks) goes to search/text/G-K.json,
 * a few documents a file, for the snippets the search page cuts around a
 * match: the segments keep only each document's first words.
 *
 * A one-shot build with the build cache makes again only the segments that
 * hold a changed document. A document is known by an id: a hash of what it
 * puts in the index — its URL, title, date, tags and description, and the
 * id of its Markdown (page.md_id), which stands for its text and headings.
 * Two entries (kind "search") keep what the next build needs:
 *   - a segment's: each of its documents' id, entry in the list and keys,
 *     so a segment made again takes its unchanged documents from there
 *     (never from their pages) and only a changed one from its page;
 *   - the head, for an output folder: each segment's documents' ids, the
 *     hash of its file, and who that file and each of its text files is on
 *     disk (output_file_id), written once the output is committed
 *     (render_search_save). A segment whose ids are all the same is kept
 *     unread when the old output still holds that very file (output_keep),
 *     and so is a text file whose documents are the same.
 * A record that is missing, damaged, of another output folder or older
 * than the output (a build killed before its commit) can only make a file
 * be made again, never keep a wrong one; the bytes are always those a clean
 * build writes (cache/sequence checks it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/internal.h"
#include "site/mdcache.h"
#include "util/arena.h"
#include "util/binrec.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/scan.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/words.h"
#include "util/xalloc.h"

#define KIND "search"
#define SEG_MAGIC "SHS1"
#define HEAD_MAGIC "SHH1"
#define PER SITE_SEARCH_TEXTS_PER_FILE

/* ---- one segment's inverted index --------------------------------------- */

/* A key's documents are written out as they come (in the order of the
 * documents, so each gap is known): only its latest document is held back,
 * since another of its keys may still raise the key's place in it. Three
 * bytes a posting instead of a struct of eight and the room its array
 * grew by. */
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
 * at most half full: every key of every document is looked up here. */
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
} indexer;

static void grow(indexer *x)
{
    size_t n = x->nslots ? x->nslots * 2 : 1024;
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

/* Writes t's held-back document: [,][*|^]gap in base 36. Inline, with
 * the room checked here and a gap of one or two digits (nearly all of
 * them) written without the loop: it runs once a posting. */
static const char base36[] = "0123456789abcdefghijklmnopqrstuvwxyz";

static void put_gap_long(term *t, char *d, uint32_t v)
{
    char tmp[8];
    int k = 0;
    do {
        tmp[k++] = base36[v % 36];
        v /= 36;
    } while (v);
    while (k)
        *d++ = tmp[--k];
    *d = '\0';
    t->out.len = (size_t)(d - t->out.data);
}

static inline void flush_posting(term *t)
{
    if (!t->held)
        return;
    if (t->out.len + 10 > t->out.cap) /* a 32-bit gap is at most 7 digits */
        buf_grow(&t->out, 9);
    char *d = t->out.data + t->out.len;
    if (t->out.len)
        *d++ = ',';
    if (t->where == WORDS_IN_TITLE)
        *d++ = '*';
    else if (t->where == WORDS_IN_HEADING)
        *d++ = '^';
    uint32_t v = t->doc - t->last;
    t->last = t->doc;
    t->held = false;
    if (v < 36) {
        *d++ = base36[v];
    } else if (v < 36 * 36) {
        *d++ = base36[v / 36];
        *d++ = base36[v % 36];
    } else {
        put_gap_long(t, d, v);
        return;
    }
    *d = '\0';
    t->out.len = (size_t)(d - t->out.data);
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

/* Keys in UTF-16 order. UTF-8's byte order is the code points' order,
 * which is UTF-16's but where a character from U+10000 up (lead byte
 * F0–F4) meets one of U+E000–U+FFFF (EE, EF): so the bytes decide unless
 * the first that differ are two such lead bytes. */
static int cmp_terms(const void *pa, const void *pb)
{
    const term *ta = pa, *tb = pb;
    const unsigned char *a = (const unsigned char *)ta->key, *b = (const unsigned char *)tb->key;
    size_t n = ta->len < tb->len ? ta->len : tb->len, i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == n)
        return (ta->len > n) - (tb->len > n);
    if ((a[i] >= 0xF0 && b[i] >= 0xEE && b[i] <= 0xEF) || (b[i] >= 0xF0 && a[i] >= 0xEE && a[i] <= 0xEF)) {
        int32_t ca, cb;
        int k;
        text_next_char(ta->key, ta->len, i, &ca, &k);
        text_next_char(tb->key, tb->len, i, &cb, &k);
        return utf16_rank(ca) < utf16_rank(cb) ? -1 : 1;
    }
    return a[i] < b[i] ? -1 : 1;
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

/* Where a document's entry in the list (JSON) and its packed keys are in
 * the bytes of a segment's cache entry. */
typedef struct part {
    size_t entry, entry_len, keys, keys_len;
} part;

/* The segment of the n documents whose entries and keys are at parts in
 * base, as its file holds it: {"docs":[…],"keys":"…","postings":"…"}. */
static void segment_bytes(size_t n, const char *base, const part *parts, buf *out)
{
    indexer x = { .a = arena_new() };
    grow(&x);
    size_t bytes = 16;
    for (size_t i = 0; i < n; i++)
        bytes += parts[i].entry_len + 1 + parts[i].keys_len / 2;
    buf_grow(out, bytes); /* about what it takes: keys are shared, postings shorter than keys */
    buf_puts(out, "{\"docs\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_putc(out, ',');
        buf_put(out, base + parts[i].entry, parts[i].entry_len);
        x.doc = (uint32_t)i;
        add_keys(&x, base + parts[i].keys, parts[i].keys_len);
    }
    buf_putc(out, ']');
    vec_sort(x.terms, x.nterms, sizeof *x.terms, cmp_terms);

    /* keys, front-coded: one digit (how many UTF-16 units it shares with
     * the key before, at most 9), then the rest; separated by spaces */
    buf ks = BUF_INIT;
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
            buf_putc(&ks, ' ');
        buf_putc(&ks, (char)('0' + units));
        buf_puts(&ks, k + same);
        prev = k;
    }
    buf_puts(out, ",\"keys\":");
    json_str(out, ks.data, ks.len);
    buf_release(&ks);
    buf_puts(out, ",\"postings\":\"");
    for (size_t i = 0; i < x.nterms; i++) {
        term *t = &x.terms[i];
        if (i)
            buf_putc(out, ' ');
        flush_posting(t);
        buf_put(out, t->out.data, t->out.len);
        buf_release(&t->out);
    }
    buf_puts(out, "\"}\n");
    free(x.terms);
    free(x.slots);
    arena_free(x.a);
}

/* ---- what a document puts in the index ------------------------------------
 * The only places that read what a page's Markdown made (its keys, text,
 * excerpt and headings): doc_entry, doc_keys and doc_text, called for a
 * document whose part of the index is made again — never for the others. */

/* The excerpt (site_search_excerpt) of n bytes of text, as a JSON string. */
static void excerpt(buf *b, const char *text, size_t n)
{
    buf e = BUF_INIT;
    site_search_excerpt(text, n, &e);
    json_str(b, e.data, e.len);
    buf_release(&e);
}

/* p's entry in its segment's list: [url, title, date, [tags], excerpt,
 * [[heading id, heading], …]]. */
static void doc_entry(const page *p, const char *url, buf *out)
{
    buf_putc(out, '[');
    json_cstr(out, url);
    buf_putc(out, ',');
    json_cstr(out, p->title);
    buf_putc(out, ',');
    if (p->is_post && p->has_date) {
        buf d = BUF_INIT;
        date_format(&d, &p->date, "%Y-%m-%d");
        json_str(out, d.data, d.len);
        buf_release(&d);
    } else {
        buf_puts(out, "\"\"");
    }
    buf_puts(out, ",[");
    for (size_t i = 0; i < p->ntags; i++) {
        if (i)
            buf_putc(out, ',');
        json_cstr(out, p->tags[i]);
    }
    buf_puts(out, "],");
    if (p->description && *p->description)
        excerpt(out, p->description, strlen(p->description));
    else if (p->search_excerpt) /* made with its Markdown */
        json_str(out, p->search_excerpt, p->search_excerpt_len);
    else
        excerpt(out, p->md.text ? p->md.text : "", p->md.text_len);
    buf_puts(out, ",[");
    for (size_t i = 0; i < p->md.nheadings; i++) {
        const md_heading *h = &p->md.headings[i];
        if (i)
            buf_putc(out, ',');
        buf_putc(out, '[');
        json_cstr(out, h->id);
        buf_putc(out, ',');
        json_cstr(out, h->title);
        buf_putc(out, ']');
    }
    buf_puts(out, "]]");
}

/* p's keys, packed: its title's and tags' (w: an empty set, left empty),
 * then its text's and headings'. */
static void doc_keys(const site *s, const page *p, words_set *w, buf *out)
{
    for (size_t i = 0; i < p->ntags; i++)
        words_set_add(w, p->tags[i], strlen(p->tags[i]), WORDS_IN_HEADING);
    if (p->title)
        words_set_add(w, p->title, strlen(p->title), WORDS_IN_TITLE);
    words_set_take(w, out);
    size_t kn;
    const char *keys = site_page_keys(s, p, &kn); /* site/bulk.h */
    if (keys) /* made with the page's Markdown */
        buf_put(out, keys, kn);
    else
        site_page_search_keys(p, w, out);
}

/* p's snippet text (site_search_text), as a JSON string. */
static void doc_text(const site *s, const page *p, buf *scratch, buf *out)
{
    size_t tn;
    const char *t = site_page_text(s, p, &tn); /* site/bulk.h */
    if (t) { /* made with its Markdown */
        json_str(out, t, tn);
        return;
    }
    buf_reset(scratch);
    site_search_text(p->md.text ? p->md.text : "", p->md.text_len, scratch);
    json_str(out, scratch->data, scratch->len);
}

/* 8 bytes a step into h (util/hash.h's mix), the length first. */
static uint64_t mix_bytes(uint64_t h, const char *s, size_t n)
{
    h = hash_mix(h, n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = hash_mix(h, w);
    }
    uint64_t w = 0;
    memcpy(&w, s + i, n - i);
    return hash_mix(h, w);
}

static uint64_t mix_str(uint64_t h, const char *s) { return s ? mix_bytes(h, s, strlen(s)) : hash_mix(h, 1); }

/* The id of p's part of the index: everything doc_entry, doc_keys and
 * doc_text read — its URL by the base path (in seed) and its path, its
 * Markdown's products by the Markdown's id. 0 (never equal to another):
 * not known. */
static uint64_t doc_id(const page *p, uint64_t seed)
{
    if (!p->md_id)
        return 0;
    uint64_t h = hash_mix(seed, p->md_id);
    h = mix_str(mix_str(mix_str(h, p->path), p->title), p->description);
    h = hash_mix(h, p->is_post && p->has_date ? (uint64_t)p->date.t : 0);
    h = hash_mix(h, p->is_post && p->has_date ? (uint64_t)(int64_t)p->date.offset_min + 1 : 0);
    h = hash_mix(h, p->ntags);
    for (size_t i = 0; i < p->ntags; i++)
        h = mix_str(h, p->tags[i]);
    h ^= h >> 32;
    return h ? h : 1;
}

/* ---- the record of the last build ----------------------------------------- */

typedef struct old_seg {
    size_t n;
    uint64_t hash;        /* of its file's bytes (what index.json names it by) */
    output_file_id file;  /* who its file is */
    uint64_t *ids;        /* its documents' */
    output_file_id *texts; /* its text files' (n / PER rounded up) */
} old_seg;

typedef struct old_head {
    size_t nseg; /* 0: none */
    old_seg *segs;
} old_head;

static void free_head(old_head *h)
{
    for (size_t g = 0; g < h->nseg; g++) {
        free(h->segs[g].ids);
        free(h->segs[g].texts);
    }
    free(h->segs);
    h->segs = NULL;
    h->nseg = 0;
}

static bool read_head(const buf *v, old_head *h)
{
    binrec_reader r = binrec_reader_of(v->data, v->len);
    const char *m = binrec_get_raw(&r, 4);
    if (!m || memcmp(m, HEAD_MAGIC, 4))
        return false;
    h->nseg = binrec_get_count(&r, 16);
    h->segs = xcalloc(h->nseg ? h->nseg : 1, sizeof *h->segs);
    for (size_t g = 0; g < h->nseg && !r.bad; g++) {
        old_seg *o = &h->segs[g];
        o->n = binrec_get_count(&r, 8);
        o->hash = binrec_get_w(&r);
        file_id_get(&r, &o->file);
        o->ids = xcalloc(o->n ? o->n : 1, sizeof *o->ids);
        for (size_t i = 0; i < o->n && !r.bad; i++)
            o->ids[i] = binrec_get_w(&r);
        size_t nt = (o->n + PER - 1) / PER;
        o->texts = xcalloc(nt ? nt : 1, sizeof *o->texts);
        for (size_t k = 0; k < nt && !r.bad; k++)
            file_id_get(&r, &o->texts[k]);
    }
    if (!binrec_done(&r)) {
        free_head(h);
        return false;
    }
    return true;
}

/* ---- a segment's entry: its documents' parts, by id ----------------------- */

typedef struct cached_doc {
    uint64_t id;
    const char *entry, *keys;
    size_t entry_len, keys_len;
} cached_doc;

static int cmp_cached(const void *a, const void *b)
{
    uint64_t x = ((const cached_doc *)a)->id, y = ((const cached_doc *)b)->id;
    return x < y ? -1 : x > y;
}

/* The documents of a segment's entry v, sorted by id (pointing into v), or
 * NULL when it is not one. */
static cached_doc *read_segment(const buf *v, size_t *n)
{
    binrec_reader r = binrec_reader_of(v->data, v->len);
    const char *m = binrec_get_raw(&r, 4);
    *n = 0;
    if (!m || memcmp(m, SEG_MAGIC, 4))
        return NULL;
    size_t k = binrec_get_count(&r, 10);
    cached_doc *c = xcalloc(k ? k : 1, sizeof *c);
    for (size_t i = 0; i < k && !r.bad; i++) {
        c[i].id = binrec_get_w(&r);
        c[i].entry = binrec_get_bytes(&r, &c[i].entry_len);
        c[i].keys = binrec_get_bytes(&r, &c[i].keys_len);
    }
    if (!binrec_done(&r)) {
        free(c);
        return NULL;
    }
    qsort(c, k, sizeof *c, cmp_cached);
    *n = k;
    return c;
}

static const cached_doc *find_cached(const cached_doc *c, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (id && lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c[mid].id < id)
            lo = mid + 1;
        else if (c[mid].id > id)
            hi = mid;
        else
            return &c[mid];
    }
    return NULL;
}

/* ---- the build's documents ------------------------------------------------ */

typedef struct doc {
    const page *p;
    uint64_t id;
} doc;

typedef struct search_run {
    render_ctx *c;
    diag_list *d;
    const site *s;
    bool cached;  /* a one-shot build with the cache: records read and kept */
    uint64_t seed; /* of the documents' ids: the base path (part of every URL) */
    char *binary, *dir;
    size_t ndocs, nseg;
    doc *docs;        /* in the index's order */
    uint32_t *seg_of; /* each document's segment */
    size_t *first;    /* segment g's documents: members[first[g] .. first[g + 1]) */
    uint32_t *members;
    old_head old;
    arena *a;     /* the files' paths */
    words_set *w;
    buf scratch;
    size_t read; /* documents read from their pages (the spill file is trimmed now and then) */
    render_search *st;
} search_run;

static void segment_key(const search_run *r, size_t g, buf *k)
{
    buf_printf(k, "sheaf-search segment 1\n%s\n%s\n%zu of %zu", r->binary, r->dir, g, r->nseg);
}

static void head_key(const search_run *r, buf *k)
{
    buf_printf(k, "sheaf-search head 1\n%s\n%s\noutput %s", r->binary, r->dir, r->c->out->target);
}

/* Whether segment g's documents are those of the last build, in order. */
static bool same_docs(const search_run *r, size_t g)
{
    if (r->old.nseg != r->nseg)
        return false;
    const old_seg *o = &r->old.segs[g];
    size_t n = r->first[g + 1] - r->first[g];
    if (o->n != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = r->docs[r->members[r->first[g] + i]].id;
        if (!id || id != o->ids[i])
            return false;
    }
    return true;
}

/* Makes segment g again into out: each document's part from the segment's
 * entry when it holds its id, else from its page; the entry is written
 * anew when anything came from a page. */
static void make_segment(search_run *r, size_t g, buf *out)
{
    size_t n = r->first[g + 1] - r->first[g];
    buf key = BUF_INIT, v = BUF_INIT, e = BUF_INIT, one = BUF_INIT;
    part *parts = xcalloc(n ? n : 1, sizeof *parts);
    cached_doc *cd = NULL;
    size_t ncd = 0, fresh = 0;
    if (r->cached) {
        segment_key(r, g, &key);
        if (cache_get(r->s->cache, KIND, key.data, key.len, &v))
            cd = read_segment(&v, &ncd);
    }
    /* the segment's entry as it is made: each document's id, list entry
     * and keys, from the last entry or from the page */
    buf_grow(&e, v.len + 4096);
    buf_puts(&e, SEG_MAGIC);
    binrec_put_u(&e, n);
    for (size_t i = 0; i < n; i++) {
        const doc *dc = &r->docs[r->members[r->first[g] + i]];
        const cached_doc *hit = find_cached(cd, ncd, dc->id);
        const char *entry, *keys;
        size_t entry_len, keys_len;
        buf_reset(&one);
        if (hit) {
            entry = hit->entry, entry_len = hit->entry_len;
            keys = hit->keys, keys_len = hit->keys_len;
        } else {
            doc_entry(dc->p, tpl_map_get_cstr(dc->p->value, "url").u.s, &one);
            entry_len = one.len;
            doc_keys(r->s, dc->p, r->w, &one);
            entry = one.data, keys = one.data + entry_len, keys_len = one.len - entry_len;
            fresh++;
            if (++r->read % 256 == 0)
                site_spill_trim(r->s);
        }
        binrec_put_w(&e, dc->id);
        binrec_put_u(&e, entry_len);
        parts[i].entry = e.len, parts[i].entry_len = entry_len;
        buf_put(&e, entry, entry_len);
        binrec_put_u(&e, keys_len);
        parts[i].keys = e.len, parts[i].keys_len = keys_len;
        buf_put(&e, keys, keys_len);
    }
    segment_bytes(n, e.data, parts, out);
    if (r->cached && (fresh || !cd) && e.len + key.len < CACHE_ENTRY_MAX - 4096)
        cache_put(r->s->cache, KIND, key.data, key.len, e.data, e.len);
    free(cd);
    free(parts);
    buf_release(&key);
    buf_release(&v);
    buf_release(&e);
    buf_release(&one);
}

/* Segment g's text files: each kept, unread, when it holds the same
 * documents as the last build's file of that name and the old output
 * still holds that file; else written from its documents' pages. Who each
 * file is goes to head. */
static void text_files(search_run *r, size_t g, buf *head)
{
    size_t n = r->first[g + 1] - r->first[g];
    const uint32_t *m = r->members + r->first[g];
    const old_seg *o = r->old.nseg == r->nseg ? &r->old.segs[g] : NULL;
    buf b = BUF_INIT;
    for (size_t k = 0; k * PER < n; k++) {
        size_t from = k * PER, to = from + PER < n ? from + PER : n;
        const char *rel = site_search_text_file(r->a, g, k);
        bool same = o && from < o->n && (from + PER < o->n ? from + PER : o->n) == to;
        for (size_t i = from; same && i < to; i++)
            same = r->docs[m[i]].id && r->docs[m[i]].id == o->ids[i];
        output_file_id id;
        if (same && o->texts[k].ino && output_keep(r->c->out, rel, &o->texts[k])) {
            id = o->texts[k];
        } else {
            buf_reset(&b);
            buf_putc(&b, '[');
            for (size_t i = from; i < to; i++) {
                if (i > from)
                    buf_putc(&b, ',');
                doc_text(r->s, r->docs[m[i]].p, &r->scratch, &b);
                if (++r->read % 256 == 0)
                    site_spill_trim(r->s);
            }
            buf_puts(&b, "]\n");
            render_emit_id(r->c, rel, b.data, b.len, r->d, &id);
            r->st->texts_written++;
        }
        r->st->texts++;
        file_id_put(head, &id);
    }
    buf_release(&b);
}

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The documents in the index's order, their ids and segments, and each
 * segment's members in that order (a counting sort). */
static void lay_out(search_run *r)
{
    const site *s = r->s;
    r->ndocs = s->nposts + s->nplain;
    r->nseg = site_search_segments(r->ndocs);
    r->docs = xcalloc(r->ndocs ? r->ndocs : 1, sizeof *r->docs);
    r->seg_of = xcalloc(r->ndocs ? r->ndocs : 1, sizeof *r->seg_of);
    r->first = xcalloc(r->nseg + 1, sizeof *r->first);
    r->members = xcalloc(r->ndocs ? r->ndocs : 1, sizeof *r->members);
    for (size_t k = 0; k < r->ndocs; k++) {
        const page *p = &s->pages[k < s->nposts ? s->posts[k] : s->plain[k - s->nposts]];
        r->docs[k].p = p;
        if (r->cached)
            r->docs[k].id = doc_id(p, r->seed);
        else /* a build session makes the index again when the page changes */
            tpl_deps_record(p->value, (long)TPL_DEPS_ALL); /* no entry read: a lazy one stays (site/bulk.h) */
        r->seg_of[k] = (uint32_t)site_search_segment_of(p, r->nseg);
        r->first[r->seg_of[k] + 1]++;
    }
    for (size_t g = 0; g < r->nseg; g++)
        r->first[g + 1] += r->first[g];
    size_t *at = xcalloc(r->nseg, sizeof *at);
    for (size_t k = 0; k < r->ndocs; k++)
        r->members[r->first[r->seg_of[k]] + at[r->seg_of[k]]++] = (uint32_t)k;
    free(at);
}

/* index.json's order of the documents: for each, the segment it is in,
 * in base 36, every one as wide as the largest. */
static void order(const search_run *r, buf *out)
{
    int width = 1;
    for (size_t m = 36; m < r->nseg; m *= 36)
        width++;
    buf_puts(out, "\"order\":\"");
    buf_grow(out, r->ndocs * (size_t)width + 4);
    for (size_t k = 0; k < r->ndocs; k++) {
        uint32_t v = r->seg_of[k];
        char *d = out->data + out->len + width;
        for (int i = 0; i < width; i++, v /= 36)
            *--d = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
        out->len += (size_t)width;
    }
    out->data[out->len] = '\0';
    buf_putc(out, '"');
}

void render_search_index(render_ctx *c, diag_list *d)
{
    double t0 = render_now_ms(), cpu0 = thread_cpu_ms();
    const site *s = c->s;
    search_run r = { .c = c, .d = d, .s = s, .a = arena_new(), .w = words_set_new(), .scratch = BUF_INIT,
                     .st = &c->search };
    r.cached = s->cache && !c->sink && !c->out->mem;
    r.seed = mix_str(0x5EA5C4u, s->cfg.base_path);
    lay_out(&r);
    buf key = BUF_INIT, v = BUF_INIT;
    if (r.cached) {
        r.binary = site_binary_id();
        r.dir = fs_resolve(s->dir);
        if (!r.dir)
            r.dir = xstrdup(s->dir);
        head_key(&r, &key);
        if (cache_get(s->cache, KIND, key.data, key.len, &v) && !read_head(&v, &r.old))
            r.old.nseg = 0;
    }
    buf head = BUF_INIT, index = BUF_INIT, seg = BUF_INIT, sk = BUF_INIT;
    buf_puts(&head, HEAD_MAGIC);
    binrec_put_u(&head, r.nseg);
    buf_printf(&index, "{\"version\":2,\"texts_per_file\":%d,\"segments\":[", PER);
    for (size_t g = 0; g < r.nseg; g++) {
        size_t n = r.first[g + 1] - r.first[g];
        const char *rel = site_search_segment_file(r.a, g);
        const old_seg *o = r.old.nseg == r.nseg ? &r.old.segs[g] : NULL;
        uint64_t hash;
        output_file_id id;
        if (o && same_docs(&r, g) && o->file.ino && output_keep(c->out, rel, &o->file)) {
            hash = o->hash;
            id = o->file;
            buf_reset(&sk);
            segment_key(&r, g, &sk); /* in use: a trim of the cache keeps it */
            cache_touch(s->cache, KIND, sk.data, sk.len);
        } else {
            buf_reset(&seg);
            make_segment(&r, g, &seg);
            hash = hash_blocks(seg.data, seg.len);
            render_emit_id(c, rel, seg.data, seg.len, d, &id);
            r.st->made++;
        }
        r.st->segments++;
        buf_printf(&index, "%s[%zu,\"%016llx\"]", g ? "," : "", n, (unsigned long long)hash);
        binrec_put_u(&head, n);
        binrec_put_w(&head, hash);
        file_id_put(&head, &id);
        for (size_t i = 0; i < n; i++)
            binrec_put_w(&head, r.docs[r.members[r.first[g] + i]].id);
        text_files(&r, g, &head);
    }
    buf_puts(&index, "],");
    order(&r, &index);
    buf_puts(&index, "}\n");
    output_file_id iid;
    render_emit_id(c, site_generated_outputs[SITE_GEN_SEARCH_INDEX].output, index.data, index.len, d, &iid);
    if (r.cached && c->out->write) { /* kept once the output is committed: render_search_save */
        r.st->head_key = buf_detach(&key, &r.st->head_key_len);
        r.st->head = buf_detach(&head, &r.st->head_len);
    }
    r.st->ms = render_now_ms() - t0;
    r.st->cpu_ms = thread_cpu_ms() - cpu0;
    free_head(&r.old);
    free(r.docs);
    free(r.seg_of);
    free(r.first);
    free(r.members);
    free(r.binary);
    free(r.dir);
    words_set_free(r.w);
    arena_free(r.a);
    buf_release(&r.scratch);
    buf_release(&key);
    buf_release(&v);
    buf_release(&head);
    buf_release(&index);
    buf_release(&seg);
    buf_release(&sk);
}

void render_search_save(render_ctx *c, bool ok)
{
    render_search *st = &c->search;
    if (ok && st->head && c->s->cache)
        cache_put(c->s->cache, KIND, st->head_key, st->head_key_len, st->head, st->head_len);
    free(st->head_key);
    free(st->head);
    st->head_key = st->head = NULL;
}
