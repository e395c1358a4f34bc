/* srcrec: the load stage's record of each source in the build cache
 * (src/cache, kind "src"), so that the next `sheaf build` only stats a
 * source whose file did not change (srcrec.h).
 *
 * A record holds the source's path, its identity when it was read
 * (device, inode, size, mtime and ctime in nanoseconds: git's rule, not
 * make's mtime alone), the clock just before the build stat-ed anything,
 * the SHA-256 of its bytes, its length, where its body starts (offset,
 * length, line), its front matter as a value tree and where each key
 * was written. It holds only what depends on the file's bytes and this
 * sheaf: everything the site's configuration or the clock changes (the
 * title from the file name, the known keys, taxonomies, held pages) is
 * read again from the tree on every build, by the code a fresh parse
 * runs (front_matter.c).
 *
 * A record is trusted when the file's identity is the one recorded and
 * neither its mtime nor its ctime is later than RACY_NS before the clock
 * the record was taken with. Otherwise the file is read again, as for any
 * change. The second condition is git's racy-clean rule: a file written
 * again in the same timestamp granule as the read it was recorded from
 * (a coarse clock tick, a second, FAT's two) could keep its identity with
 * other bytes; a file whose times are that recent is never trusted, so
 * the next build reads it again and records it then. An edit with the
 * mtime put back (touch -d, a tool restoring times) changes the ctime,
 * which nothing but the kernel sets: it is a change whether or not the
 * size changed. A file replaced by a rename is another inode.
 *
 * A page whose parse reported anything (an error, a warning) is never
 * recorded, so its diagnostics come back on every build; nor a notebook.
 *
 * The records are split in SHARDS entries by a hash of the source path,
 * so that an edit writes one shard again; each entry's key holds this
 * sheaf's identity (mdcache.c's binary id), the site folder (resolved)
 * and the shard's number, so another version's or another site's records
 * are never found. An entry is written whole (temporary file, rename) and
 * checked (HMAC) by src/cache; one that checks but does not read back as
 * records (cut, or of a format this code does not write) is ignored with
 * a warning. A build that was killed leaves records that are each still
 * true of the file they describe. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cache/cache.h"
#include "site/mdcache.h"
#include "site/pool.h"
#include "site/srcrec.h"
#include "util/binrec.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/ptrmap.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define SHARDS 16
#define MAGIC "SHSR2\n"
#define MAGIC_LEN 6
/* a file whose mtime or ctime is this close to the record's clock is not
 * trusted (two seconds: FAT's granule, more than any clock tick) */
#define RACY_NS 2000000000LL
/* nesting of the value tree (fm/ refuses deeper front matter long before) */
#define DEPTH_MAX 512
#define REF 0xfe /* a list or map met before: its number */

typedef struct slot {
    const unsigned char *old; /* the record read (an entry of a shard), or NULL */
    size_t old_len;
    size_t at;                /* 1 + where its record starts in its shard, 0: none */
    bool used;                /* its record was trusted: written again as it was */
    unsigned char shard;      /* its shard + 1, once known (0: not yet) */
    char *fresh;              /* a new record (malloc'd), or NULL */
    size_t fresh_len;
} slot;

struct site_src_records {
    cache *c;
    char *binary, *site;
    long long now_s, now_ns; /* the clock before anything was stat-ed */
    buf shard[SHARDS];
    bool shard_bad[SHARDS]; /* unreadable or absent: written again */
    size_t shard_n[SHARDS]; /* records it held */
    const page *pages;
    size_t *order;          /* the pages' numbers by shard, each shard's in page order */
    size_t first[SHARDS + 1]; /* shard k's are order[first[k]] .. order[first[k + 1] - 1] */
    slot *slots;
    size_t n;
    atomic_size_t damaged; /* records that did not read back */
};

static unsigned shard_of(const char *src) { return (unsigned)(hash_str(src) % SHARDS); }

static void shard_key(const site_src_records *r, unsigned k, buf *key)
{
    buf_reset(key);
    buf_printf(key, "sheaf-src 1\n%s\n%s\n%u", r->binary, r->site, k);
}

/* ---- bytes ------------------------------------------------------------ */

/* Numbers, strings and the reader: util/binrec.h (LEB128; zigzag for
 * signed numbers). */
typedef binrec_reader reader;

static char *r_str(reader *r, arena *a, size_t *len)
{
    size_t n;
    const char *s = binrec_get_bytes(r, &n);
    if (len)
        *len = n;
    return s ? arena_strndup(a, s, n) : NULL;
}

/* ---- the value tree ---------------------------------------------------- */

static uint64_t head_word(tpl_value v, unsigned kind)
{
    return (uint64_t)kind | (uint64_t)v.flags << 8;
}

/* false for what front matter never holds (an engine object). seen: the
 * lists and maps written so far by address → their number in the order
 * first written, so a tree that shares one (a YAML alias) is read back
 * sharing it, and the key places name their map by number. */
static bool w_value(buf *b, tpl_value v, ptrmap *seen, size_t *next, int depth)
{
    if (depth > DEPTH_MAX)
        return false;
    if (v.kind == TPL_LIST || v.kind == TPL_MAP) {
        const void *p = v.kind == TPL_LIST ? (const void *)v.u.list : (const void *)v.u.map;
        uint64_t id;
        if (ptrmap_get(seen, p, &id)) {
            binrec_put_u(b, REF);
            binrec_put_u(b, id);
            return true;
        }
        ptrmap_put(seen, p, (*next)++);
    }
    binrec_put_u(b, head_word(v, v.kind));
    binrec_put_u(b, v.len);
    switch (v.kind) {
    case TPL_UNDEFINED:
    case TPL_NONE:
        return true;
    case TPL_BOOL:
        binrec_put_u(b, v.u.b);
        return true;
    case TPL_INT:
    case TPL_DATE:
        binrec_put_i(b, v.u.i);
        return true;
    case TPL_FLOAT: {
        uint64_t bits;
        memcpy(&bits, &v.u.f, sizeof bits);
        binrec_put_u(b, bits);
        return true;
    }
    case TPL_STRING:
        buf_put(b, v.u.s, v.len);
        return true;
    case TPL_LIST:
        binrec_put_u(b, v.u.list->len);
        for (size_t i = 0; i < v.u.list->len; i++)
            if (!w_value(b, v.u.list->items[i], seen, next, depth + 1))
                return false;
        return true;
    case TPL_MAP:
        binrec_put_u(b, v.u.map->len);
        for (size_t i = 0; i < v.u.map->len; i++)
            if (!w_value(b, v.u.map->entries[i].key, seen, next, depth + 1) ||
                !w_value(b, v.u.map->entries[i].value, seen, next, depth + 1))
                return false;
        return true;
    default:
        return false;
    }
}

typedef struct made {
    tpl_value *v; /* the lists and maps read so far, by number: first, or malloc'd */
    size_t n, cap;
    tpl_value first[16]; /* a page's front matter: a map, its lists (no allocation) */
} made;

static void made_add(made *m, tpl_value v)
{
    if (m->n == m->cap) {
        size_t cap = m->cap * 2;
        tpl_value *grown = xmalloc(cap * sizeof *grown);
        memcpy(grown, m->v, m->n * sizeof *grown);
        if (m->v != m->first)
            free(m->v);
        m->v = grown;
        m->cap = cap;
    }
    m->v[m->n++] = v;
}

static tpl_value r_value(reader *r, arena *a, made *m, int depth)
{
    tpl_value v = tpl_undefined();
    uint64_t w = binrec_get_u(r);
    if (r->bad || depth > DEPTH_MAX) {
        r->bad = true;
        return v;
    }
    if (w == REF) {
        uint64_t id = binrec_get_u(r);
        if (id >= m->n) {
            r->bad = true;
            return v;
        }
        return m->v[id];
    }
    uint64_t len = binrec_get_u(r);
    v.kind = (uint8_t)(w & 0xff);
    v.flags = (uint8_t)(w >> 8);
    v.len = (uint32_t)len;
    if ((w >> 16) || len > UINT32_MAX) {
        r->bad = true;
        return v;
    }
    switch (v.kind) {
    case TPL_UNDEFINED:
    case TPL_NONE:
        break;
    case TPL_BOOL:
        v.u.b = binrec_get_u(r) != 0;
        break;
    case TPL_INT:
    case TPL_DATE:
        v.u.i = binrec_get_i(r);
        break;
    case TPL_FLOAT: {
        uint64_t bits = binrec_get_u(r);
        memcpy(&v.u.f, &bits, sizeof bits);
        break;
    }
    case TPL_STRING: {
        const char *s = binrec_get_raw(r, v.len);
        v.u.s = s ? arena_strndup(a, s, v.len) : "";
        break;
    }
    case TPL_LIST: {
        size_t n = binrec_get_count(r, 2); /* an item: its kind and length at least */
        tpl_list *l = tpl_list_new(a, n);
        l->len = n;
        v.u.list = l;
        made_add(m, v);
        for (size_t i = 0; i < n && !r->bad; i++)
            l->items[i] = r_value(r, a, m, depth + 1);
        break;
    }
    case TPL_MAP: {
        size_t n = binrec_get_count(r, 4);
        tpl_map *map = tpl_map_new(a, n ? n : 1);
        v.u.map = map;
        made_add(m, v);
        for (size_t i = 0; i < n && !r->bad; i++) {
            map->entries[i].key = r_value(r, a, m, depth + 1);
            map->entries[i].value = r_value(r, a, m, depth + 1);
            map->len = i + 1;
        }
        if (!r->bad)
            tpl_map_seal(a, map);
        break;
    }
    default:
        r->bad = true;
    }
    return v;
}

/* ---- a record ----------------------------------------------------------
 * u64 length of the rest; the path; the clock (s, ns); the identity (7);
 * the digest; text length, body offset, body length, body line; the tree;
 * the key places (map number, key, line, col, vline, vcol). */

static void w_ident(buf *b, const site_src_ident *id)
{
    binrec_put_u(b, id->dev);
    binrec_put_u(b, id->ino);
    binrec_put_i(b, id->size);
    binrec_put_i(b, id->mtime_s);
    binrec_put_i(b, id->mtime_ns);
    binrec_put_i(b, id->ctime_s);
    binrec_put_i(b, id->ctime_ns);
}

static void r_ident(reader *r, site_src_ident *id)
{
    id->dev = binrec_get_u(r);
    id->ino = binrec_get_u(r);
    id->size = binrec_get_i(r);
    id->mtime_s = binrec_get_i(r);
    id->mtime_ns = binrec_get_i(r);
    id->ctime_s = binrec_get_i(r);
    id->ctime_ns = binrec_get_i(r);
}

static bool encode(buf *b, const char *src, long long now_s, long long now_ns, const site_src_ident *id,
                   const unsigned char digest[CACHE_DIGEST_LEN], const site_src_head *h)
{
    buf rec = BUF_INIT, *out = b;
    b = &rec; /* the record, then its length and it into out */
    binrec_put_bytes(b, src, strlen(src));
    binrec_put_i(b, now_s);
    binrec_put_i(b, now_ns);
    w_ident(b, id);
    buf_put(b, (const char *)digest, CACHE_DIGEST_LEN);
    binrec_put_u(b, h->text_len);
    binrec_put_u(b, h->body_off);
    binrec_put_u(b, h->body_len);
    binrec_put_i(b, h->body_line);
    ptrmap seen = PTRMAP_INIT;
    size_t next = 0;
    bool ok = w_value(b, h->fm, &seen, &next, 0);
    binrec_put_u(b, h->npos);
    for (size_t i = 0; ok && i < h->npos; i++) {
        const fm_key_pos *kp = &h->pos[i];
        uint64_t m;
        if (!ptrmap_get(&seen, kp->map, &m) || !kp->key) { /* a place in no map of the tree: not recorded */
            ok = false;
            break;
        }
        binrec_put_u(b, m);
        binrec_put_bytes(b, kp->key, strlen(kp->key));
        binrec_put_i(b, kp->line);
        binrec_put_i(b, kp->col);
        binrec_put_i(b, kp->vline);
        binrec_put_i(b, kp->vcol);
    }
    ptrmap_release(&seen);
    binrec_put_u(out, rec.len);
    buf_put(out, rec.data, rec.len);
    buf_release(&rec);
    return ok;
}

/* ---- the records of a build -------------------------------------------- */

bool site_src_ident_at(int dirfd, const char *path, site_src_ident *id)
{
    struct stat st;
    if (fstatat(dirfd, path, &st, 0) != 0 || !S_ISREG(st.st_mode))
        return false;
    *id = (site_src_ident){ (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
                            (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec,
                            (long long)st.st_ctim.tv_sec, (long long)st.st_ctim.tv_nsec };
    return true;
}

bool site_src_ident_of(const site *s, const char *src, site_src_ident *id)
{
    char *full = fs_join(s->dir, src);
    bool ok = site_src_ident_at(AT_FDCWD, full, id);
    free(full);
    return ok;
}

/* Whether a record's path (src, slen bytes: any bytes) is page p's. */
static bool same_src(const page *p, const char *src, size_t slen)
{
    return strlen(p->src) == slen && !memcmp(p->src, src, slen);
}

/* Gives the records of shard k to its pages (slot.at); false when the
 * shard does not read as records. A build writes a shard's records in
 * the order of its pages, and the walk finds the pages in the same order
 * every time, so the records and the shard's pages (r->order) are merged
 * in step: no index of the paths, no copy of them. A page added (or one
 * moved) puts the merge out of step; the records met then are looked up
 * by path afterwards, in a map of those only. With starts (the fuzz
 * target: no pages), every record's offset is added there instead. */
static bool index_shard(site_src_records *r, unsigned k, size_t **starts, size_t *nstarts)
{
    const buf *b = &r->shard[k];
    if (b->len < MAGIC_LEN + 1 || memcmp(b->data, MAGIC, MAGIC_LEN) != 0)
        return false;
    const size_t *mine = r->order ? r->order + r->first[k] : NULL;
    size_t m = mine ? r->first[k + 1] - r->first[k] : 0, j = 0;
    strmap *left = NULL; /* the records met out of step: path → offset */
    arena *keys = NULL;  /* their paths */
    bool ok = false;
    reader rd = { (const unsigned char *)b->data, b->len, MAGIC_LEN, false };
    size_t n = binrec_get_count(&rd, 2);
    for (size_t i = 0; i < n && !rd.bad; i++) {
        size_t start = rd.at;
        size_t len = binrec_get_count(&rd, 1);
        size_t end = rd.at + len;
        size_t slen = rd.bad ? 0 : binrec_get_count(&rd, 1);
        const char *src = binrec_get_raw(&rd, slen);
        if (rd.bad || rd.at > end || !src || start > 0xffffffffu)
            goto out;
        if (starts) {
            *starts = xrealloc(*starts, (*nstarts + 1) * sizeof **starts);
            (*starts)[(*nstarts)++] = start;
        } else if (j < m && same_src(&r->pages[mine[j]], src, slen)) {
            r->slots[mine[j++]].at = start + 1;
        } else if (j + 1 < m && same_src(&r->pages[mine[j + 1]], src, slen)) {
            r->slots[mine[j + 1]].at = start + 1; /* mine[j]: a page added (or moved) */
            j += 2;
        } else {
            if (!left) {
                left = strmap_new(16);
                keys = arena_new();
            }
            char *key = arena_strndup(keys, src, slen);
            if (strlen(key) == slen)
                strmap_put(left, key, (long)start);
        }
        rd.at = end;
    }
    if (rd.bad || rd.at != rd.n)
        goto out;
    r->shard_n[k] = n;
    ok = true;
    for (size_t q = 0; left && q < m; q++)
        if (!r->slots[mine[q]].at) {
            long at = strmap_get(left, r->pages[mine[q]].src);
            if (at >= 0)
                r->slots[mine[q]].at = (size_t)at + 1;
        }
out:
    for (size_t q = 0; !ok && q < m; q++)
        r->slots[mine[q]].at = 0;
    strmap_free(left);
    arena_free(keys);
    return ok;
}

/* One shard read and indexed (a job of site_src_records_open: the
 * shards are read, checked and given to their pages on the build's
 * threads, each shard by one). */
static void open_shard(void *ctx, size_t i, int worker)
{
    (void)worker;
    site_src_records *r = ctx;
    unsigned k = (unsigned)i;
    buf key = BUF_INIT;
    shard_key(r, k, &key);
    bool got = cache_get(r->c, "src", key.data, key.len, &r->shard[k]);
    buf_release(&key);
    if (!got || !index_shard(r, k, NULL, NULL)) {
        if (got) /* it checked, but holds no records this code reads */
            atomic_fetch_add(&r->damaged, 1);
        r->shard_bad[k] = true;
        r->shard_n[k] = 0;
        buf_release(&r->shard[k]); /* (indexed in part before it turned out bad) */
    }
}

site_src_records *site_src_records_open(site *s, size_t n, int jobs)
{
    site_src_records *r = xcalloc(1, sizeof *r);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    r->now_s = (long long)now.tv_sec;
    r->now_ns = (long long)now.tv_nsec;
    r->c = s->cache;
    r->binary = site_binary_id();
    r->site = fs_resolve(s->dir);
    for (unsigned k = 0; k < SHARDS; k++)
        r->shard[k] = (buf)BUF_INIT;
    r->n = n;
    r->slots = xcalloc(n ? n : 1, sizeof *r->slots);
    /* each page's shard, and the pages by shard in page order (for the
     * merge: index_shard) */
    r->pages = s->pages;
    r->order = xmalloc((n ? n : 1) * sizeof *r->order);
    size_t fill[SHARDS] = { 0 };
    for (size_t i = 0; i < n; i++) {
        unsigned k = shard_of(s->pages[i].src);
        r->slots[i].shard = (unsigned char)(k + 1);
        fill[k]++;
    }
    for (unsigned k = 0; k < SHARDS; k++) {
        r->first[k + 1] = r->first[k] + fill[k];
        fill[k] = r->first[k];
    }
    for (size_t i = 0; i < n; i++)
        r->order[fill[r->slots[i].shard - 1u]++] = i;
    site_parallel(SHARDS, jobs, open_shard, r);
    return r;
}

static bool too_recent(long long s, long long ns, long long now_s, long long now_ns)
{
    /* (s, ns) >= now - RACY_NS, without overflow */
    long long d_s = now_s - s, d_ns = now_ns - ns;
    long long diff = d_s > 100 ? RACY_NS + 1 : d_s < -100 ? -1 : d_s * 1000000000LL + d_ns;
    return diff <= RACY_NS;
}

/* A record's path, clock and identity, from the reader of one record
 * (its n ends where the record does). */
static void record_head(reader *e, long long *then_s, long long *then_ns, site_src_ident *was)
{
    size_t slen = binrec_get_count(e, 1);
    binrec_get_raw(e, slen);
    *then_s = binrec_get_i(e);
    *then_ns = binrec_get_i(e);
    r_ident(e, was);
}

/* The rest of a record, for a file of `size` bytes: its digest (in place)
 * and its head in a; false when it does not read back whole. */
static bool record_body(reader *e, long long size, arena *a, site_src_head *h, const char **digest)
{
    *digest = binrec_get_raw(e, CACHE_DIGEST_LEN);
    site_src_head hd = { 0 };
    hd.text_len = (size_t)binrec_get_u(e);
    hd.body_off = (size_t)binrec_get_u(e);
    hd.body_len = (size_t)binrec_get_u(e);
    hd.body_line = (int)binrec_get_i(e);
    if (e->bad || size < 0 || hd.text_len != (size_t)size || hd.body_off > hd.text_len ||
        hd.body_len > hd.text_len - hd.body_off || hd.body_line < 1)
        return false;
    made m;
    m.v = m.first;
    m.n = 0;
    m.cap = sizeof m.first / sizeof *m.first;
    hd.fm = r_value(e, a, &m, 0);
    hd.npos = binrec_get_count(e, 6);
    hd.pos = hd.npos ? arena_alloc(a, hd.npos * sizeof *hd.pos) : NULL;
    for (size_t j = 0; j < hd.npos && !e->bad; j++) {
        fm_key_pos *kp = &hd.pos[j];
        uint64_t mi = binrec_get_u(e);
        kp->map = mi < m.n && m.v[mi].kind == TPL_MAP ? m.v[mi].u.map : NULL;
        kp->key = r_str(e, a, NULL);
        kp->line = (int)binrec_get_i(e);
        kp->col = (int)binrec_get_i(e);
        kp->vline = (int)binrec_get_i(e);
        kp->vcol = (int)binrec_get_i(e);
        if (!kp->map)
            e->bad = true;
    }
    if (m.v != m.first)
        free(m.v);
    if (e->bad || e->at != e->n || hd.fm.kind != TPL_MAP)
        return false;
    *h = hd;
    return true;
}

/* The reader of the record at start of b: from its first byte after the
 * length to its end. */
static reader record_at(const buf *b, size_t start)
{
    reader rd = { (const unsigned char *)b->data, b->len, start, false };
    size_t len = binrec_get_count(&rd, 1);
    reader e = { (const unsigned char *)b->data, rd.bad ? 0 : rd.at + len, rd.at, rd.bad };
    return e;
}

bool site_src_records_take(site_src_records *r, size_t i, page *p, const site_src_ident *id, arena *a,
                           site_src_head *h)
{
    if (!r || i >= r->n || !r->slots[i].at)
        return false;
    unsigned k = r->slots[i].shard - 1u;
    size_t start = r->slots[i].at - 1;
    const buf *b = &r->shard[k];
    if (r->shard_bad[k] || start >= b->len)
        return false;
    reader e = record_at(b, start);
    long long then_s, then_ns;
    site_src_ident was;
    record_head(&e, &then_s, &then_ns, &was);
    if (e.bad)
        goto damaged;
    if (memcmp(&was, id, sizeof was) != 0 || too_recent(was.mtime_s, was.mtime_ns, then_s, then_ns) ||
        too_recent(was.ctime_s, was.ctime_ns, then_s, then_ns))
        return false; /* changed, or racily clean: read again */
    const char *digest;
    if (!record_body(&e, id->size, a, h, &digest))
        goto damaged;
    memcpy(p->digest, digest, CACHE_DIGEST_LEN);
    p->has_digest = true;
    r->slots[i].old = (const unsigned char *)b->data + start;
    r->slots[i].old_len = e.n - start;
    r->slots[i].used = true;
    return true;
damaged:
    atomic_fetch_add(&r->damaged, 1);
    return false;
}

int site_src_records_check(const void *value, size_t n, arena *a)
{
    site_src_records r;
    memset(&r, 0, sizeof r);
    r.shard[0] = (buf)BUF_INIT;
    buf_put(&r.shard[0], value, n);
    size_t *starts = NULL, nstarts = 0;
    int got = -1;
    if (index_shard(&r, 0, &starts, &nstarts)) {
        got = 0;
        for (size_t i = 0; i < nstarts; i++) {
            reader e = record_at(&r.shard[0], starts[i]);
            long long then_s, then_ns;
            site_src_ident was;
            site_src_head h;
            const char *digest;
            record_head(&e, &then_s, &then_ns, &was);
            if (!e.bad && record_body(&e, was.size, a, &h, &digest))
                got++;
        }
    }
    free(starts);
    buf_release(&r.shard[0]);
    return got;
}

void site_src_records_keep(site_src_records *r, size_t i, page *p, const site_src_ident *id,
                           const site_src_head *h)
{
    cache_digest(p->text, p->text_len, p->digest);
    p->has_digest = true;
    if (!r || i >= r->n)
        return;
    buf b = BUF_INIT;
    if (encode(&b, p->src, r->now_s, r->now_ns, id, p->digest, h) && b.len < CACHE_ENTRY_MAX / SHARDS) {
        r->slots[i].fresh = buf_detach(&b, &r->slots[i].fresh_len);
        return;
    }
    buf_release(&b);
}

void site_src_records_close(site_src_records *r, site *s, diag_list *d)
{
    if (!r)
        return;
    /* a shard is written again when a record of it is new, or one it held
     * is used no more (a page changed, removed, or failed) */
    bool dirty[SHARDS];
    size_t kept[SHARDS] = { 0 };
    memcpy(dirty, r->shard_bad, sizeof dirty);
    for (size_t i = 0; i < r->n; i++) {
        if (!r->slots[i].shard)
            r->slots[i].shard = (unsigned char)(shard_of(s->pages[i].src) + 1);
        unsigned k = r->slots[i].shard - 1u;
        if (r->slots[i].fresh)
            dirty[k] = true;
        if (r->slots[i].used || r->slots[i].fresh)
            kept[k]++;
    }
    for (unsigned k = 0; k < SHARDS; k++)
        if (kept[k] != r->shard_n[k])
            dirty[k] = true;
    buf key = BUF_INIT, v = BUF_INIT;
    for (unsigned k = 0; k < SHARDS; k++) {
        if (!dirty[k] || (r->shard_bad[k] && !kept[k]))
            continue;
        buf_reset(&v);
        buf_put(&v, MAGIC, MAGIC_LEN);
        binrec_put_u(&v, kept[k]);
        for (size_t i = 0; i < r->n; i++) {
            const slot *sl = &r->slots[i];
            if (sl->shard - 1u != k)
                continue;
            if (sl->fresh)
                buf_put(&v, sl->fresh, sl->fresh_len);
            else if (sl->used)
                buf_put(&v, (const char *)sl->old, sl->old_len);
        }
        shard_key(r, k, &key);
        if (v.len + key.len < CACHE_ENTRY_MAX)
            cache_put(r->c, "src", key.data, key.len, v.data, v.len);
    }
    buf_release(&key);
    buf_release(&v);
    size_t bad = atomic_load(&r->damaged);
    if (bad && d)
        diag_warning(d, CACHE_DIR, 0, 0,
                     "%zu source %s in the build cache could not be read back: ignored, the %s read again",
                     bad, bad == 1 ? "record" : "records", bad == 1 ? "source is" : "sources are");
    for (size_t i = 0; i < r->n; i++)
        free(r->slots[i].fresh);
    free(r->slots);
    for (unsigned k = 0; k < SHARDS; k++)
        buf_release(&r->shard[k]);
    free(r->order);
    free(r->binary);
    free(r->site);
    free(r);
}
