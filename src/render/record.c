/* record: what each output of a one-shot build read, kept in the build
 * cache, so that the next `sheaf build` process renders only the outputs
 * that read a value that changed — the exactness `sheaf serve`
 * (render/session.c) has in memory, carried across processes.
 *
 * A build with the cache that writes its output records, for every render
 * job that runs a template (a page, a list page, a feed, the sitemap …):
 * - its frame: the hash of the variables it is given (all but `site`), of
 *   its template's name, its output path and its context;
 * - what it read of the pages' maps (tpl_deps, as `sheaf serve` records):
 *   (page, entry) pairs, or a page's map as a whole;
 * - each file it left in the output folder and who that file is on disk
 *   (output_file_id: device, inode, size, modification time).
 * Beside them: the hash of every entry of every page's map, and the
 * build's global fingerprint — the `site` value whole, every page's
 * source path and the names of its map's entries (so that a page's place
 * and an entry's index mean the same in both builds), the list of jobs,
 * the text of every file in the template folders, the options templates
 * see (the base URL, the theme strings). A page's map met inside another
 * value counts by its place only: what a job reads of it is recorded.
 *
 * The next build reads the last build's pages' parts before its model
 * (render_record_read: a page whose inputs are the same gets a map made
 * only when read, site/model.c), computes the same once its model is
 * made, and renders a job again unless its global fingerprint and frame
 * are the same, no entry it read has another hash, and every file it left is still the
 * very file it wrote (output_keep): then that file is kept, unread. So a
 * record left behind by a killed build, or older than the output folder,
 * can only make a job render again, never keep a file that is not what
 * the job would write. A job that reported anything (a warning) is
 * recorded as not skippable, so its diagnostics come back on every build.
 * Jobs that are no template — the search index and its text files, the
 * aliases' redirects, copied files, image variants — run on every build
 * (each has its own way of not rewriting an unchanged file).
 *
 * On disk: kind "render", one entry for the head (the global fingerprint,
 * the counts, and the random id of each part) and parts of PART_ITEMS pages
 * or jobs each (an entry is at most CACHE_ENTRY_MAX), every part carrying
 * its id. A build writes again only the parts whose contents changed (a
 * one-edit build: the part of the edited page's hashes and those of the
 * jobs that rendered), each under a new id, and leaves the others with
 * theirs. The parts are written first, the head last: a part that is not
 * the one the head names (a build killed between them) or one that does
 * not read back whole means no record — every output rendered again, with
 * a warning. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "render/internal.h"
#include "site/mdcache.h"
#include "util/binrec.h"
#include "util/fs.h"
#include "util/ptrmap.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define REC_KIND "render"
#define REC_MAGIC "sheaf render record 3"
#define PART_ITEMS 1024
#define PART_MAX (CACHE_ENTRY_MAX - ((size_t)1 << 20))
#define SEED 0x243F6A8885A308D3u

/* ---- the hash of values ------------------------------------------------ *
 * 64 bits, 8 bytes a step: tells a changed value from an unchanged one by
 * accident only with odds of 2^-64 a comparison. Not for an adversary:
 * whoever can write the cache can write the output folder. */

static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xBF58476D1CE4E5B9u;
    return h ^ (h >> 31);
}

static uint64_t mix_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    h = mix(h, len);
    if (!len)
        return h;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = mix(h, w);
    }
    /* the last 1–8 bytes in a word, the first lowest (a memcpy of a
     * variable length would be a call: one for every string hashed) */
    uint64_t w = 0;
    for (size_t k = 0; i + k < len; k++)
        w |= (uint64_t)p[i + k] << (8 * k);
    return mix(h, w);
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    return s ? mix_bytes(h, s, strlen(s)) : mix(h, 0x6e756c6cu);
}

static uint64_t finish(uint64_t h)
{
    h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDu;
    h = (h ^ (h >> 33)) * 0xC4CEB9FE1A85EC53u;
    h ^= h >> 33;
    return h ? h : 1; /* 0 is "unknown" */
}

/* The hashes of the model's large lists and maps, by address: a section's,
 * a term's or a taxonomy's value is in the frame of each of its pages
 * (and in `site`), and hashing it again for each would cost more than the
 * renders it saves (a taxonomy of 10,000 posts, once per tag page). Filled
 * on one thread before the jobs start (`fill`), then only read. The model
 * does not change while the jobs run, so an address names one value. */
#define MEMO_MIN 8
typedef struct memo {
    ptrmap hashes;
    bool fill;
} memo;

static bool memo_get(const memo *m, const void *p, uint64_t *out) { return m && ptrmap_get(&m->hashes, p, out); }

static void memo_put(memo *m, const void *p, uint64_t v) { ptrmap_put(&m->hashes, p, v); }

/* The hashes of the small lists and maps the pages share, by address,
 * while the pages' entries are hashed (page_hashes; one a worker): a
 * term's {name, slug, url} is in the tags of each of its pages, a post's
 * {title, url, date} in the prev, next and related posts of several
 * others. Hashing them once each instead of at every page that holds one
 * skips reading their strings, spread over the model's memory, again. A
 * cache, not a map: a slot holds the last value hashed into it (the model
 * does not change while the pages are hashed, so an address names one
 * value; the jobs' own values, in arenas reset between jobs, never meet
 * it). */
typedef struct hot_slot {
    const void *p;
    uint64_t h;
} hot_slot;

typedef struct hot_memo {
    hot_slot *slot;
    size_t mask;
} hot_memo;

#define HOT_MAX ((size_t)1 << 16)
static _Thread_local hot_memo *hot;

static hot_slot *hot_at(const void *p)
{
    uint64_t k = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u;
    return &hot->slot[(k >> 32) & hot->mask];
}

static uint64_t value_hash(memo *mm, tpl_value v, int depth, bool *bad);

/* The hash of a list's or a map's contents (not of the value's flags). */
static uint64_t items_hash(memo *mm, tpl_value v, int depth, bool *bad)
{
    const void *p = v.kind == TPL_LIST ? (const void *)v.u.list : (const void *)v.u.map;
    size_t n = v.kind == TPL_LIST ? v.u.list->len : v.u.map->len;
    uint64_t x;
    if (n >= MEMO_MIN && memo_get(mm, p, &x))
        return x;
    hot_slot *hs = hot && n && n < MEMO_MIN ? hot_at(p) : NULL;
    if (hs && hs->p == p)
        return hs->h;
    if (depth >= TPL_VALUE_MAX_DEPTH) {
        *bad = true;
        return 0;
    }
    bool sub = false;
    x = mix(SEED ^ v.kind, n);
    if (v.kind == TPL_LIST) {
        for (size_t i = 0; i < n; i++)
            x = mix(x, value_hash(mm, v.u.list->items[i], depth + 1, &sub));
    } else {
        for (size_t i = 0; i < n; i++) {
            x = mix(x, value_hash(mm, v.u.map->entries[i].key, depth + 1, &sub));
            x = mix(x, value_hash(mm, v.u.map->entries[i].value, depth + 1, &sub));
        }
    }
    if (mm && mm->fill && n >= MEMO_MIN && !sub)
        memo_put(mm, p, x);
    if (hs && !sub)
        *hs = (hot_slot){ p, x };
    *bad = *bad || sub;
    return x;
}

/* The hash of v alone. A page's own map counts by its owner (its place):
 * what is read of it is recorded per entry. Maps owned as references
 * ({title, url, date}) are hashed whole, as any other value: they are
 * small, and a job reaches one only through a value hashed so or an entry
 * it read. *bad: a value that cannot be hashed (an engine object, nesting
 * too deep). */
static uint64_t value_hash(memo *mm, tpl_value v, int depth, bool *bad)
{
    uint64_t h = mix(SEED, (uint64_t)v.kind | (uint64_t)v.flags << 8);
    switch ((tpl_kind)v.kind) {
    case TPL_UNDEFINED:
    case TPL_NONE:
        return h;
    case TPL_BOOL:
        return mix(h, v.u.b);
    case TPL_INT:
        return mix(h, (uint64_t)v.u.i);
    case TPL_FLOAT: {
        uint64_t w;
        memcpy(&w, &v.u.f, sizeof w);
        return mix(h, w);
    }
    case TPL_STRING:
        return mix_bytes(h, v.u.s, v.len);
    case TPL_DATE:
        return mix(mix(h, (uint64_t)v.u.t), v.len);
    case TPL_LIST:
        return mix(h, items_hash(mm, v, depth, bad));
    case TPL_MAP:
        if (v.u.map->owner && !(v.u.map->owner & SITE_REF_OWNER))
            return mix(h, 0x7061676500000000u | v.u.map->owner);
        return mix(h, items_hash(mm, v, depth, bad));
    case TPL_OBJECT:
        break;
    }
    *bad = true;
    return h;
}

/* v into h. */
static uint64_t hash_value(memo *mm, uint64_t h, tpl_value v, bool *bad)
{
    return mix(h, value_hash(mm, v, 0, bad));
}

/* ---- the record in memory ---------------------------------------------- */

typedef struct rec_out {
    char *rel;
    output_file_id id;
} rec_out;

enum { JOB_NONE, JOB_SET, JOB_KEPT };

typedef struct rec_job {
    uint8_t state;   /* JOB_*: not recorded, recorded, kept from the last build */
    bool framed;     /* its frame is hashed: its outputs are collected */
    bool lost;       /* an output whose file is not known: not recorded */
    uint64_t frame;
    /* page owner << 16 | entry (or TPL_DEPS_ALL), ascending, as their
     * differences (binrec_put_u), as written to the cache: 1–2 bytes a read
     * instead of 8 (at 100,000 posts, 35 MB less at the end of the render
     * stage) */
    unsigned char *deps;
    size_t ndeps, deps_len;
    rec_out *outs;
    size_t nouts, capouts;
} rec_job;

struct render_record {
    cache *cache;
    char *target;       /* the output folder, as c->out names it */
    buf key;            /* the entries' key: REC_MAGIC, this sheaf, the folders (each
                         * part's adds its name: part_key) */
    bool usable;        /* every value could be hashed */
    uint64_t global;
    size_t npages;
    size_t *off;        /* page i's entries' hashes: h[off[i] .. off[i + 1]) */
    uint64_t *h;
    uint64_t *inputs;   /* page i's p->inputs (site/model.c), kept with its hashes */
    uint64_t *place;    /* page i's part of the global fingerprint (page_place) */
    /* the last build's pages, read before the model (a page whose inputs
     * are the last build's has the last build's hashes, and its map is
     * made only when read: site/model.c): page i's inputs, place, count
     * of entries and their hashes (old_hashes); old_words NULL: none read */
    uint64_t old_global;
    size_t old_njobs;
    uint64_t *old_inputs, *old_place;
    uint32_t *old_count, *old_at; /* page i's hashes: old_words[i / PART_ITEMS] + old_at[i] */
    uint64_t **old_words;         /* a part's each */
    size_t reused;      /* pages whose hashes were the last build's */
    /* the last build's, when it had this global fingerprint */
    bool have_old;
    uint8_t *changed;      /* per entry of h: not the old hash */
    uint8_t *page_changed; /* per page: any of its entries */
    rec_job *old;
    arena **old_arenas; /* what the old jobs hold: one arena a worker that read a part */
    size_t nold_arenas, capold_arenas;
    size_t njobs;
    rec_job *now;
    uint64_t *part_ids; /* the last build's: its head's, pages' parts then jobs' */
    size_t read_bytes;
    atomic_size_t kept;
    memo memo;          /* the model's large values' hashes */
};

static _Thread_local rec_job *current;

/* ---- the global fingerprint ---------------------------------------------- */

typedef struct tdir_walk {
    uint64_t h;
    const char *dir;
    bool bad;
} tdir_walk;

static void template_file(void *ctx, const char *rel, fs_kind kind, int err)
{
    (void)err;
    tdir_walk *t = ctx;
    t->h = mix(mix_str(t->h, rel), (uint64_t)kind);
    if (kind == FS_UNREADABLE) {
        t->bad = true;
        return;
    }
    char *path = fs_join(t->dir, rel);
    buf b = BUF_INIT;
    if (fs_read_file(path, &b)) /* a link: what it leads to */
        t->h = mix_bytes(t->h, b.data, b.len);
    else
        t->bad = true; /* a link to a folder, or nowhere: not followed here */
    buf_release(&b);
    free(path);
}

/* Whether y names its entries with the very strings x does, in the same
 * order (the same addresses and lengths: then the same names). */
static bool same_names(const tpl_map *x, const tpl_map *y)
{
    if (x->len != y->len)
        return false;
    for (size_t k = 0; k < x->len; k++) {
        const tpl_value *a = &x->entries[k].key, *b = &y->entries[k].key;
        if (a->kind != b->kind || a->kind != TPL_STRING || a->u.s != b->u.s || a->len != b->len ||
            a->flags != b->flags)
            return false;
    }
    return true;
}

static uint64_t global_hash(memo *mm, const render_ctx *c, uint64_t g, const char *const *tdirs,
                            size_t ntdirs, bool *bad)
{
    const site *s = c->s;
    /* site.yaml whole: some of its keys shape outputs without being in
     * the `site` value (first_page_alias, feed copies, outputs …) */
    char *cfg = fs_join(s->dir, "site.yaml");
    buf text = BUF_INIT;
    g = fs_read_file(cfg, &text) ? mix_bytes(g, text.data, text.len) : mix(g, 0x6e6f6e65u);
    buf_release(&text);
    free(cfg);
    g = hash_value(mm, g, s->site_value, bad);
    g = mix_str(g, c->opt.base_url);
    g = mix_str(g, c->opt.language);
    g = hash_value(mm, g, c->opt.strings ? tpl_map_value(c->opt.strings) : tpl_none(), bad);
    g = hash_value(mm, g, c->opt.strings_fallback ? tpl_map_value(c->opt.strings_fallback) : tpl_none(), bad);
    /* the values the list pages' frames share: hashed once, here (memo) */
    bool frames_bad = false;
    for (size_t i = 0; i < s->nsections; i++)
        if (s->sections[i].value)
            hash_value(mm, 0, tpl_map_value(s->sections[i].value), &frames_bad);
    for (size_t i = 0; i < s->nterms; i++)
        if (s->terms[i].value)
            hash_value(mm, 0, tpl_map_value(s->terms[i].value), &frames_bad);
    for (size_t i = 0; i < s->ntaxonomies; i++)
        if (s->taxonomies[i].value)
            hash_value(mm, 0, tpl_map_value(s->taxonomies[i].value), &frames_bad);
    hash_value(mm, 0, c->years, &frames_bad);
    g = mix(g, c->njobs);
    for (size_t i = 0; i < c->njobs; i++)
        g = mix(mix(mix(g, (uint64_t)c->jobs[i].kind), (uint64_t)(int64_t)c->jobs[i].a),
                (uint64_t)(int64_t)c->jobs[i].b);
    for (size_t i = 0; i < ntdirs; i++) {
        tdir_walk t = { mix_str(g, tdirs[i]), tdirs[i], false };
        if (fs_is_dir(tdirs[i])) {
            if (!fs_visit(tdirs[i], false, template_file, &t))
                *bad = true;
        } else {
            t.h = mix(t.h, 0x6e6f6e65u); /* none */
        }
        g = t.h;
        *bad = *bad || t.bad;
    }
    return g;
}

/* What a worker remembers of the last page's map whose names it hashed:
 * nearly every page's map names its entries with the very strings its
 * neighbour's does (model.c's maps share their names), so those are
 * hashed once, not again for each of 10,000 pages. */
typedef struct names_memo {
    const tpl_map *prev;
    uint64_t names;
} names_memo;

typedef struct page_hash_ctx {
    render_record *r;
    const site *s;
    atomic_size_t done;
    hot_memo *hot;  /* a worker's each */
    size_t hot_size;
    names_memo *names; /* a worker's each */
    atomic_bool bad;   /* a name that could not be hashed */
    atomic_size_t reused; /* pages whose hashes were the last build's */
} page_hash_ctx;

static void hash_entries(page_hash_ctx *c, size_t i, int worker);

/* Page i's part of the global fingerprint: its source path and the names
 * of its map's entries, in order (so that a page's place and an entry's
 * index mean the same in both builds). */
static uint64_t page_place(page_hash_ctx *c, size_t i, int worker)
{
    const page *p = &c->s->pages[i];
    const tpl_map *m = p->value;
    uint64_t h = mix(mix_str(SEED, p->src), m ? m->len : ~(uint64_t)0);
    if (!m)
        return h;
    names_memo *nm = &c->names[worker];
    if (!nm->prev || !same_names(nm->prev, m)) {
        bool bad = false;
        nm->names = SEED;
        for (size_t k = 0; k < m->len; k++)
            nm->names = hash_value(NULL, nm->names, m->entries[k].key, &bad);
        if (bad)
            atomic_store(&c->bad, true);
        nm->prev = m;
    }
    return mix(h, nm->names);
}

/* The last build's hashes of page i's entries (old_count[i] of them). */
static const uint64_t *old_hashes(const render_record *r, size_t i)
{
    return r->old_words[i / PART_ITEMS] + r->old_at[i];
}

/* Whether page i's entries have the hashes the last build's record holds
 * for it: its inputs (p->inputs: what its map is made of, beside what the
 * global fingerprint holds), its place and its count of entries are the
 * last build's. Only a guess until the global fingerprint is found the
 * same (render_record_open hashes every page again otherwise). */
static bool same_as_last(const render_record *r, size_t i, uint64_t inputs)
{
    return r->old_words && inputs && r->old_inputs[i] == inputs && r->old_place[i] == r->place[i] &&
           r->old_count[i] == r->off[i + 1] - r->off[i];
}

static void page_hashes(void *ctx, size_t i, int worker)
{
    page_hash_ctx *c = ctx;
    render_record *r = c->r;
    const page *p = &c->s->pages[i];
    r->inputs[i] = p->inputs;
    /* a map not made (its inputs are the last build's): the last build's
     * place and count (render_record_open's off), so its hashes */
    if (r->old_words && p->value_known && !tpl_map_made(p->value))
        r->place[i] = r->old_place[i];
    else
        r->place[i] = page_place(c, i, worker);
    if (same_as_last(r, i, r->inputs[i])) {
        memcpy(r->h + r->off[i], old_hashes(r, i), (r->off[i + 1] - r->off[i]) * sizeof *r->h);
        atomic_fetch_add(&c->reused, 1);
        return;
    }
    hash_entries(c, i, worker);
}

/* Page i's entries hashed (r->h). */
static void hash_entries(page_hash_ctx *c, size_t i, int worker)
{
    hot = &c->hot[worker];
    if (!hot->slot) {
        hot->slot = xcalloc_written(c->hot_size, sizeof *hot->slot);
        hot->mask = c->hot_size - 1;
    }
    const tpl_map *m = c->s->pages[i].value;
    uint64_t *h = c->r->h + c->r->off[i];
    /* an entry's key is not hashed again here: the global fingerprint
     * holds the names of every page's entries in order */
    for (size_t k = 0; m && k < m->len; k++) {
        bool bad = false;
        uint64_t e = finish(hash_value(&c->r->memo, SEED, m->entries[k].value, &bad));
        h[k] = bad ? 0 : e; /* 0: changed, always */
    }
    /* the bodies read leave memory, as the render jobs let them (spill.h) */
    hot = NULL;
    if (c->s->spill && atomic_fetch_add(&c->done, 1) % RENDER_TRIM_EVERY == RENDER_TRIM_EVERY - 1)
        site_spill_trim(c->s);
}

/* ---- reading and writing ------------------------------------------------ */

/* Numbers and the reader: util/binrec.h (LEB128, and words of 8 bytes
 * for the hashes). */
typedef binrec_reader reader;

/* The key of part n of `what` ("head", "pages", "jobs"): the record's own
 * key, then the part's name, into key. */
static void part_key(const render_record *r, const char *what, size_t n, buf *key)
{
    buf_reset(key);
    buf_put(key, r->key.data, r->key.len);
    buf_printf(key, "%s %zu", what, n);
}

/* How many parts n items take. */
static size_t parts_of(size_t n) { return (n + PART_ITEMS - 1) / PART_ITEMS; }

/* Part n of `what` from the cache into v (safe on any worker: r is only
 * read). */
static bool get_part(const render_record *r, const char *what, size_t n, buf *v)
{
    buf key = BUF_INIT;
    part_key(r, what, n, &key);
    buf_reset(v);
    bool ok = cache_get(r->cache, REC_KIND, key.data, key.len, v);
    buf_release(&key);
    return ok;
}

static void free_job(rec_job *j)
{
    for (size_t k = 0; k < j->nouts; k++)
        free(j->outs[k].rel);
    free(j->outs);
    free(j->deps);
    memset(j, 0, sizeof *j);
}

/* One job of the last build's record; what it holds goes to a (the
 * record's arena for the old jobs: one allocation a part's worth, not
 * three a job). */
static bool read_job(reader *rd, rec_job *j, arena *a)
{
    j->state = (uint8_t)binrec_get_u(rd);
    if (j->state == JOB_NONE)
        return !rd->bad;
    if (j->state != JOB_SET)
        return false;
    j->frame = binrec_get_w(rd);
    j->ndeps = binrec_get_count(rd, 1);
    size_t from = rd->at;
    for (size_t k = 0; k < j->ndeps && !rd->bad; k++)
        binrec_get_u(rd);
    if (rd->bad)
        return false;
    j->deps_len = rd->at - from;
    j->deps = arena_alloc(a, j->deps_len + 1);
    memcpy(j->deps, rd->p + from, j->deps_len);
    j->nouts = j->capouts = binrec_get_count(rd, 7);
    j->outs = arena_calloc(a, (j->nouts + 1) * sizeof *j->outs);
    for (size_t k = 0; k < j->nouts && !rd->bad; k++) {
        size_t n = binrec_get_count(rd, 1);
        if (rd->bad || !n)
            return false;
        j->outs[k].rel = arena_strndup(a, binrec_get_raw(rd, n), n);
        if (strlen(j->outs[k].rel) != n)
            return false;
        output_file_id *id = &j->outs[k].id;
        id->dev = binrec_get_u(rd);
        id->ino = binrec_get_u(rd);
        id->size = binrec_get_u(rd);
        id->mtime_s = (int64_t)binrec_get_u(rd);
        id->mtime_ns = (int64_t)binrec_get_u(rd);
        id->hash = binrec_get_w(rd);
    }
    return !rd->bad;
}

/* The last build's parts being read (read_old): each worker decodes
 * the parts it is given into oh and r->old, which they do not share. */
typedef struct old_parts {
    render_record *r;
    size_t base;     /* the first part read (the jobs' come after the pages') */
    arena **arenas;  /* a worker's each, made on its first job part */
    atomic_bool ok;
    atomic_size_t bytes;
} old_parts;

/* Part base + p of the last build's record: the pages' parts, then the
 * jobs'. */
static void read_part(void *ctx, size_t p, int worker)
{
    old_parts *op = ctx;
    render_record *r = op->r;
    p += op->base;
    if (!atomic_load(&op->ok))
        return;
    size_t npp = parts_of(r->npages);
    bool pages = p < npp;
    size_t first = (pages ? p : p - npp) * PART_ITEMS, n = pages ? r->npages : r->njobs;
    size_t last = first + PART_ITEMS < n ? first + PART_ITEMS : n;
    buf v = BUF_INIT;
    bool ok = get_part(r, pages ? "pages" : "jobs", first / PART_ITEMS, &v);
    if (ok)
        atomic_fetch_add(&op->bytes, v.len);
    reader rd = binrec_reader_of(v.data, v.len);
    ok = ok && binrec_get_w(&rd) == r->part_ids[p] && binrec_get_u(&rd) == first;
    if (pages) {
        uint64_t *w = NULL;
        size_t nw = 0, cw = 0;
        for (size_t i = first; ok && i < last; i++) {
            size_t was = binrec_get_count(&rd, 8);
            r->old_inputs[i] = binrec_get_w(&rd);
            r->old_place[i] = binrec_get_w(&rd);
            ok = !rd.bad && was <= TPL_DEPS_ALL; /* (a job names an entry in 16 bits) */
            r->old_count[i] = (uint32_t)was;
            r->old_at[i] = (uint32_t)nw;
            for (size_t k = 0; ok && k < was; k++)
                VEC_PUSH(w, nw, cw, 64, binrec_get_w(&rd));
            ok = ok && !rd.bad;
        }
        r->old_words[p] = w ? w : xcalloc(1, sizeof *w);
    } else {
        if (ok && !op->arenas[worker])
            op->arenas[worker] = arena_new();
        for (size_t i = first; ok && i < last; i++)
            ok = read_job(&rd, &r->old[i], op->arenas[worker]);
    }
    ok = ok && binrec_done(&rd);
    buf_release(&v);
    if (!ok)
        atomic_store(&op->ok, false);
}

static void free_old_arenas(render_record *r)
{
    for (size_t i = 0; i < r->nold_arenas; i++)
        arena_free(r->old_arenas[i]);
    free(r->old_arenas);
    r->old_arenas = NULL;
    r->nold_arenas = r->capold_arenas = 0;
}

/* The part of the record a damaged or half-written record is said with,
 * unless the cache already counts it as damaged (finish_cache reports
 * that). */
static void say_incomplete(const render_record *r, size_t damaged0, diag_list *d)
{
    if (cache_get_stats(r->cache).damaged == damaged0)
        diag_warning(d, CACHE_DIR, 0, 0,
                     "the record of what each output read is incomplete (a build was killed while "
                     "writing it, or it was changed): every output is rendered again");
}

/* The last build's hashes, once what changed is known (24 MB at 100,000
 * posts, let go before the jobs). */
static void drop_old_hashes(render_record *r)
{
    for (size_t p = 0; r->old_words && p < parts_of(r->npages); p++)
        free(r->old_words[p]);
    free(r->old_words);
    free(r->old_count);
    free(r->old_at);
    r->old_words = NULL;
    r->old_count = r->old_at = NULL;
}

static void drop_old(render_record *r)
{
    free_old_arenas(r);
    free(r->old);
    r->old = NULL;
    free(r->part_ids);
    r->part_ids = NULL;
    drop_old_hashes(r);
    free(r->old_inputs);
    free(r->old_place);
    r->old_inputs = r->old_place = NULL;
}

/* Reads parts [first, last) of the last build's record on every worker
 * (each is read, its MAC checked, and decoded on its own); false when one
 * does not read. */
static bool read_parts(render_record *r, size_t first, size_t last, int jobs)
{
    int nw = site_jobs(jobs);
    old_parts op = { r, first, xcalloc((size_t)nw, sizeof(arena *)), true, 0 };
    site_parallel(last - first, jobs, read_part, &op);
    r->read_bytes += atomic_load(&op.bytes);
    for (int w = 0; w < nw; w++)
        if (op.arenas[w])
            *VEC_ADD(r->old_arenas, r->nold_arenas, r->capold_arenas, 4) = op.arenas[w];
    free(op.arenas);
    return atomic_load(&op.ok);
}

/* The last build's head and its pages' parts (their inputs, places and
 * hashes), before the model: when it had this build's count of pages.
 * Whether the record is this build's (its global fingerprint, its jobs)
 * is known only after (read_old). */
static void read_old_pages(render_record *r, int jobs, diag_list *d)
{
    buf v = BUF_INIT;
    size_t damaged0 = cache_get_stats(r->cache).damaged;
    if (!get_part(r, "head", 0, &v)) {
        buf_release(&v);
        return; /* none: the first build */
    }
    r->read_bytes += v.len;
    reader h = binrec_reader_of(v.data, v.len);
    r->old_global = binrec_get_w(&h);
    uint64_t npages = binrec_get_u(&h);
    binrec_get_u(&h); /* the count of entries: each page's is in its part */
    r->old_njobs = binrec_get_u(&h);
    bool ok = !h.bad;
    if (ok && npages != r->npages) {
        buf_release(&v);
        return; /* pages added or removed: all are rendered */
    }
    size_t nparts = parts_of(r->npages) + parts_of(r->old_njobs);
    ok = ok && binrec_get_u(&h) == nparts;
    r->part_ids = ok ? xcalloc(nparts + 1, sizeof *r->part_ids) : NULL;
    for (size_t p = 0; ok && p < nparts; p++)
        r->part_ids[p] = binrec_get_w(&h);
    ok = ok && binrec_done(&h);
    buf_release(&v);
    r->old_inputs = xcalloc(r->npages + 1, sizeof *r->old_inputs);
    r->old_place = xcalloc(r->npages + 1, sizeof *r->old_place);
    r->old_count = xcalloc(r->npages + 1, sizeof *r->old_count);
    r->old_at = xcalloc(r->npages + 1, sizeof *r->old_at);
    r->old_words = xcalloc(parts_of(r->npages) + 1, sizeof *r->old_words);
    if (!ok || !read_parts(r, 0, parts_of(r->npages), jobs)) {
        drop_old(r);
        say_incomplete(r, damaged0, d);
    }
}

/* The rest of the last build's record (its jobs' parts), when it was made
 * with this global fingerprint and these jobs, and which entries changed. */
static void read_old(render_record *r, int jobs, diag_list *d)
{
    if (!r->old_words)
        return;
    if (r->old_global != r->global || r->old_njobs != r->njobs) {
        drop_old(r); /* something every output may read changed: all are rendered */
        return;
    }
    size_t damaged0 = cache_get_stats(r->cache).damaged;
    r->old = xcalloc(r->njobs + 1, sizeof *r->old);
    if (!read_parts(r, parts_of(r->npages), parts_of(r->npages) + parts_of(r->njobs), jobs)) {
        drop_old(r);
        say_incomplete(r, damaged0, d);
        return;
    }
    size_t ne = r->off[r->npages];
    r->changed = xcalloc(ne + 1, 1);
    r->page_changed = xcalloc(r->npages + 1, 1);
    for (size_t i = 0; i < r->npages; i++) {
        const uint64_t *o = old_hashes(r, i);
        bool same_count = r->old_count[i] == r->off[i + 1] - r->off[i]; /* (the same places: always) */
        for (size_t e = r->off[i]; e < r->off[i + 1]; e++)
            if (!same_count || o[e - r->off[i]] != r->h[e] || !r->h[e]) {
                r->changed[e] = 1;
                r->page_changed[i] = 1;
            }
    }
    drop_old_hashes(r);
    r->have_old = true;
}

render_record *render_record_read(const site *s, cache *k, const char *site_dir, const char *out_dir,
                                  int jobs, diag_list *d)
{
    render_record *r = xcalloc(1, sizeof *r);
    r->key = (buf)BUF_INIT;
    r->cache = k;
    r->target = output_real_target(out_dir);
    char *bin = site_binary_id(), *root = fs_resolve(site_dir);
    buf_printf(&r->key, "%s\nsheaf %s\nsite %s\noutput %s\n", REC_MAGIC, bin, root, r->target);
    free(bin);
    free(root);
    r->npages = s->npages;
    read_old_pages(r, jobs, d);
    return r;
}

const uint64_t *render_record_old_inputs(const render_record *r)
{
    return r && r->old_words ? r->old_inputs : NULL;
}

/* r->off and r->h for the pages' maps as they are: a map not made yet
 * (site/model.c) has the last build's count of entries. */
static void count_entries(render_record *r, const site *s)
{
    free(r->h);
    for (size_t i = 0; i < r->npages; i++) {
        const page *p = &s->pages[i];
        size_t n = !p->value ? 0 : tpl_map_made(p->value) ? p->value->len : r->old_count[i];
        r->off[i + 1] = r->off[i] + n;
    }
    r->h = xcalloc(r->off[r->npages] + 1, sizeof *r->h);
}

void render_record_open(render_record *r, const render_ctx *c, const char *const *tdirs, size_t ntdirs,
                        int jobs, diag_list *d)
{
    site *s = c->s;
    r->njobs = c->njobs;
    r->now = xcalloc(r->njobs + 1, sizeof *r->now);
    bool bad = false;
    r->memo.fill = true; /* on this thread only: the jobs read it after */
    uint64_t g0 = global_hash(&r->memo, c, mix_bytes(SEED, r->key.data, r->key.len), tdirs, ntdirs, &bad);
    r->memo.fill = false;
    r->off = xcalloc(r->npages + 1, sizeof *r->off);
    count_entries(r, s);
    r->inputs = xcalloc(r->npages + 1, sizeof *r->inputs);
    r->place = xcalloc(r->npages + 1, sizeof *r->place);
    /* a slot for every few pages, up to HOT_MAX (1 MiB a worker) */
    int nw = site_jobs(jobs);
    page_hash_ctx pc = { .r = r, .s = s, .hot = xcalloc((size_t)nw, sizeof(hot_memo)), .hot_size = 1024,
                         .names = xcalloc((size_t)nw, sizeof(names_memo)) };
    while (pc.hot_size < HOT_MAX && pc.hot_size < 4 * r->npages)
        pc.hot_size *= 2;
    for (int round = 0; round < 2; round++) {
        site_parallel(r->npages, jobs, page_hashes, &pc);
        /* the pages' places, in order, end the global fingerprint */
        uint64_t g = mix(g0, s->npages);
        for (size_t i = 0; i < r->npages; i++)
            g = mix(g, r->place[i]);
        r->global = finish(g);
        r->reused = atomic_load(&pc.reused);
        if (!r->reused || r->global == r->old_global)
            break;
        /* the hashes and places taken from the last build hold only with
         * its global fingerprint: every page is hashed after all, its map
         * made first */
        drop_old(r);
        site_make_values(s);
        count_entries(r, s);
        atomic_store(&pc.reused, 0);
    }
    for (int w = 0; w < nw; w++)
        free(pc.hot[w].slot);
    free(pc.hot);
    free(pc.names);
    bad = bad || atomic_load(&pc.bad);
    if (s->spill)
        site_spill_trim(s);
    r->usable = !bad;
    if (r->usable)
        read_old(r, jobs, d);
    else
        drop_old(r);
}

/* ---- while the jobs run -------------------------------------------------- */

void render_record_begin(render_record *r, size_t i) { current = &r->now[i]; }

bool render_record_collecting(void) { return current && current->framed && current->state != JOB_KEPT; }

void render_record_output(const char *rel, const output_file_id *id, bool known)
{
    rec_job *j = current;
    if (!j || !j->framed || j->state == JOB_KEPT)
        return;
    if (!known) {
        j->lost = true;
        return;
    }
    if (j->nouts == j->capouts) {
        j->capouts = j->capouts ? j->capouts * 2 : 1; /* nearly every job leaves one file */
        j->outs = xrealloc(j->outs, j->capouts * sizeof *j->outs);
    }
    j->outs[j->nouts].rel = xstrdup(rel);
    j->outs[j->nouts++].id = *id;
}

/* Is the old output's file at rel still the one id names? (Only looked
 * at before keeping several, so that none is kept when one is not.) */
static bool still_there(const char *target, const rec_out *o)
{
    char *path = fs_join(target, o->rel);
    struct stat st;
    bool ok = lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_dev == o->id.dev &&
              (uint64_t)st.st_ino == o->id.ino && (uint64_t)st.st_size == o->id.size &&
              (int64_t)st.st_mtim.tv_sec == o->id.mtime_s && (int64_t)st.st_mtim.tv_nsec == o->id.mtime_ns;
    free(path);
    return ok;
}

/* Did a read of dep (owner << 16 | entry) see a value that changed? */
static bool dep_changed(const render_record *r, uint64_t dep)
{
    uint64_t owner = dep >> 16, k = dep & 0xffff;
    if (!owner || owner > r->npages)
        return true;
    size_t p = (size_t)owner - 1;
    if (k == TPL_DEPS_ALL)
        return r->page_changed[p];
    return k >= r->off[p + 1] - r->off[p] || r->changed[r->off[p] + k];
}

bool render_record_frame(render_ctx *c, size_t i, const tpl_map *vars, const char *tname, const char *out_rel,
                         const char *context)
{
    render_record *r = c->rec;
    rec_job *n = &r->now[i];
    bool bad = false;
    uint64_t f = mix_str(mix_str(mix_str(SEED, tname), out_rel), context);
    for (size_t k = 0; k < vars->len; k++) {
        tpl_value key = vars->entries[k].key;
        if (key.kind == TPL_STRING && !strcmp(key.u.s, "site"))
            continue; /* the global fingerprint's */
        f = hash_value(&r->memo, f, key, &bad);
        f = hash_value(&r->memo, f, vars->entries[k].value, &bad);
    }
    if (bad || !r->usable)
        return false;
    n->framed = true;
    n->frame = finish(f);
    if (!r->have_old)
        return false;
    const rec_job *o = &r->old[i];
    if (o->state != JOB_SET || o->frame != n->frame)
        return false;
    binrec_reader dr = binrec_reader_of(o->deps, o->deps_len);
    uint64_t at = 0;
    for (size_t k = 0; k < o->ndeps; k++)
        if (dep_changed(r, at += binrec_get_u(&dr)))
            return false;
    for (size_t k = 0; o->nouts > 1 && k < o->nouts; k++)
        if (!still_there(r->target, &o->outs[k]))
            return false;
    for (size_t k = 0; k < o->nouts; k++)
        if (!output_keep(c->out, o->outs[k].rel, &o->outs[k].id)) {
            if (k) /* kept some, then one changed under us: write them all again */
                n->lost = true;
            return false;
        }
    n->state = JOB_KEPT;
    atomic_fetch_add(&r->kept, 1);
    return true;
}

void render_record_end(render_record *r, size_t i, const tpl_deps *deps, bool quiet)
{
    current = NULL;
    rec_job *n = &r->now[i];
    if (n->state == JOB_KEPT)
        return;
    if (!n->framed || n->lost || !quiet || !deps) {
        free_job(n);
        return;
    }
    buf b = BUF_INIT;
    uint64_t at = 0;
    for (size_t k = 0; k < deps->n; k++)
        if (!((deps->v[k] >> 16) & SITE_REF_OWNER)) { /* a reference's: its container's read counts */
            binrec_put_u(&b, deps->v[k] - at);
            at = deps->v[k];
            n->ndeps++;
        }
    n->deps_len = b.len;
    n->deps = xmalloc(b.len + 1);
    memcpy(n->deps, b.data, b.len);
    buf_release(&b);
    n->state = JOB_SET;
}

size_t render_record_kept(const render_record *r) { return r ? atomic_load(&r->kept) : 0; }

size_t render_record_pages_known(const render_record *r) { return r && r->have_old ? r->reused : 0; }

size_t render_record_bytes(const render_record *r)
{
    return r ? r->read_bytes + r->read_bytes / 2 + ((size_t)1 << 20) : 0;
}

/* ---- after the commit ------------------------------------------------------ */

static void put_job(buf *b, const rec_job *j, const rec_job *old)
{
    if (j->state == JOB_KEPT)
        j = old;
    if (j->state != JOB_SET && j->state != JOB_KEPT) {
        binrec_put_u(b, JOB_NONE);
        return;
    }
    binrec_put_u(b, JOB_SET);
    binrec_put_w(b, j->frame);
    binrec_put_u(b, j->ndeps);
    buf_put(b, j->deps, j->deps_len);
    binrec_put_u(b, j->nouts);
    for (size_t k = 0; k < j->nouts; k++) {
        const rec_out *o = &j->outs[k];
        size_t n = strlen(o->rel);
        binrec_put_u(b, n);
        buf_put(b, o->rel, n);
        binrec_put_u(b, o->id.dev);
        binrec_put_u(b, o->id.ino);
        binrec_put_u(b, o->id.size);
        binrec_put_u(b, (uint64_t)o->id.mtime_s);
        binrec_put_u(b, (uint64_t)o->id.mtime_ns);
        binrec_put_w(b, o->id.hash);
    }
}

/* Whether the jobs [first, last) write what the last build's record holds:
 * each kept, or as unrecorded as before. */
static bool jobs_same(const render_record *r, size_t first, size_t last)
{
    for (size_t i = first; i < last; i++)
        if (!(r->now[i].state == JOB_KEPT || (r->now[i].state == JOB_NONE && r->old[i].state == JOB_NONE)))
            return false;
    return true;
}

/* Whether the pages [first, last) have the hashes the last build's record
 * holds (an entry that could not be hashed counts as changed). */
static bool pages_same(const render_record *r, size_t first, size_t last)
{
    for (size_t e = r->off[first]; e < r->off[last]; e++)
        if (r->changed[e])
            return false;
    for (size_t i = first; i < last; i++)
        if (r->inputs[i] != r->old_inputs[i])
            return false; /* (its place is the last build's: the global fingerprint is) */
    return true;
}

void render_record_save(render_record *r)
{
    if (!r || !r->usable)
        return;
    /* every job kept, or as unrecorded as before: the record on disk is this one */
    if (r->have_old && jobs_same(r, 0, r->njobs))
        return;
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
        id = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32 ^ r->global;
    size_t nparts = parts_of(r->npages) + parts_of(r->njobs), p = 0;
    uint64_t *ids = xcalloc(nparts + 1, sizeof *ids);
    buf v = BUF_INIT, key = BUF_INIT;
    for (size_t first = 0; first < r->npages; first += PART_ITEMS, p++) {
        size_t last = first + PART_ITEMS < r->npages ? first + PART_ITEMS : r->npages;
        if (r->have_old && pages_same(r, first, last)) {
            ids[p] = r->part_ids[p]; /* the part on disk is this one */
            continue;
        }
        ids[p] = id + p; /* another id than any part of the last record's, but by chance */
        buf_reset(&v);
        binrec_put_w(&v, ids[p]);
        binrec_put_u(&v, first);
        for (size_t i = first; i < last; i++) {
            binrec_put_u(&v, r->off[i + 1] - r->off[i]);
            binrec_put_w(&v, r->inputs[i]);
            binrec_put_w(&v, r->place[i]);
            for (size_t e = r->off[i]; e < r->off[i + 1]; e++)
                binrec_put_w(&v, r->h[e]);
        }
        if (v.len > PART_MAX)
            goto out; /* not kept: the next build renders every output */
        part_key(r, "pages", first / PART_ITEMS, &key);
        cache_put(r->cache, REC_KIND, key.data, key.len, v.data, v.len);
    }
    for (size_t first = 0; first < r->njobs; first += PART_ITEMS, p++) {
        size_t last = first + PART_ITEMS < r->njobs ? first + PART_ITEMS : r->njobs;
        if (r->have_old && jobs_same(r, first, last)) {
            ids[p] = r->part_ids[p];
            continue;
        }
        ids[p] = id + p;
        buf_reset(&v);
        binrec_put_w(&v, ids[p]);
        binrec_put_u(&v, first);
        for (size_t i = first; i < last; i++)
            put_job(&v, &r->now[i], r->old ? &r->old[i] : NULL);
        if (v.len > PART_MAX)
            goto out;
        part_key(r, "jobs", first / PART_ITEMS, &key);
        cache_put(r->cache, REC_KIND, key.data, key.len, v.data, v.len);
    }
    buf_reset(&v);
    binrec_put_w(&v, r->global);
    binrec_put_u(&v, r->npages);
    binrec_put_u(&v, r->off[r->npages]);
    binrec_put_u(&v, r->njobs);
    binrec_put_u(&v, nparts);
    for (size_t k = 0; k < nparts; k++)
        binrec_put_w(&v, ids[k]);
    part_key(r, "head", 0, &key);
    cache_put(r->cache, REC_KIND, key.data, key.len, v.data, v.len);
out:
    free(ids);
    buf_release(&v);
    buf_release(&key);
}

void render_record_free(render_record *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->njobs; i++)
        if (r->now[i].state != JOB_KEPT)
            free_job(&r->now[i]);
    free(r->now);
    drop_old(r);
    free(r->off);
    free(r->h);
    free(r->inputs);
    free(r->place);
    free(r->changed);
    free(r->page_changed);
    free(r->target);
    ptrmap_release(&r->memo.hashes);
    buf_release(&r->key);
    free(r);
}
