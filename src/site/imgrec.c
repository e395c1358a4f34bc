/* imgrec: the images' record in the build cache (kind "images"); see
 * imgrec.h.
 *
 * A warm build of a site of photos read, for each photo, its hash's
 * record (kind "img-src"), its copy's ("copy-out") and its variants'
 * ("photo-out"): three entries, each opened, read and authenticated (an
 * HMAC) on its own, each key printed and hashed, and the photo stat-ed
 * three times — more than everything else the photo cost. Here the
 * records of all the site's images are in SHARDS entries, split by a hash
 * of the file's path (an edit writes one again), each read whole once a
 * build and written again only when a record in it changed; the photo is
 * stat-ed once (site_images_env, in the Markdown stage) and the copy and
 * variant jobs take that.
 *
 * A record is trusted as the sources' records are (srcrec.c): when the
 * file's identity (device, inode, size, mtime and ctime in nanoseconds)
 * is the recorded one, and neither time is later than RACY_NS before the
 * clock the record was taken with (a file written again in the same
 * timestamp granule as the read it was recorded from could keep its
 * identity with other bytes: it is read again by every build until it is
 * older). An edit with its mtime put back changes the ctime; a file
 * replaced by a rename is another inode. A record not trusted is only a
 * miss: the file is read and hashed, copied, and its variants found in the
 * cache (or made) and written, as with no record at all.
 *
 * What a record says of the output folder (the copy's and the variants'
 * files, output_file_id's fields) is only a claim: render/jobs.c keeps
 * such a file only when output_keep finds that very file (device, inode,
 * size, mtime) at its path in the old output, as a kept page is checked
 * (render/record.c): a variant deleted or edited in the output is written
 * again. The output folder's path is in the entry, and the widths, paths,
 * libvips's version and the quality in the record: another output folder
 * or another of these is a miss.
 *
 * Each entry's key holds the record's version (MAGIC, the key's "2": change
 * both with the format), the site folder (resolved) and the shard's
 * number — not this sheaf's identity, as the sources' records do: what a
 * record says depends on the image's bytes alone, and a new sheaf must not
 * read every photo of a site again. An entry that checks (the cache's
 * HMAC) but does not read back as records is ignored. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cache/cache.h"
#include "img/img.h"
#include "site/imgrec.h"
#include "site/srcrec.h"
#include "util/arena.h"
#include "util/binrec.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define KIND "images"
#define SHARDS 16
#define MAGIC "SHIR2\n"
#define MAGIC_LEN 6
#define DIGEST 32
/* the racy-clean margin of srcrec.c: two seconds (FAT's granule) */
#define RACY_NS 2000000000LL
#define HAS_COPY 1u
#define HAS_VARIANTS 2u

/* One record, read: pointers into its entry. */
typedef struct rec {
    const char *src;
    size_t src_len;
    long long clock_s, clock_ns;
    site_src_ident id;
    const unsigned char *digest;
    const char *copy_rel; /* NULL: none */
    size_t copy_len;
    site_img_out copy;
    const char *vips; /* NULL: no variants */
    size_t vips_len;
    long long quality;
    size_t nvar;
    binrec_reader var; /* at the first variant */
} rec;

typedef struct slot {
    bool hashed;  /* stat-ed and hashed this build */
    bool trusted; /* the old record is true of the file */
    site_src_ident id;
    unsigned char digest[DIGEST];
    long long clock_s, clock_ns;
    rec old;        /* when trusted */
    unsigned shard; /* the entry it is in */
    /* this build's output: */
    char *copy_rel;
    site_img_out copy;
    char *vips;
    long quality;
    size_t nvar;
    unsigned *widths;
    char **paths;
    site_img_out *ids;
    uint64_t *use;
} slot;

struct site_img_records {
    cache *c;
    char *site;
    long long now_s, now_ns;
    buf shard[SHARDS];
    const char *target[SHARDS]; /* the output folder an entry's files are in (in shard[k]) */
    size_t target_len[SHARDS];
    strmap *index; /* src → (shard << 32 | offset of its record) */
    arena *keys;   /* the index's keys */
    slot *slots;
    size_t n;
};

static unsigned shard_of(const char *src) { return (unsigned)(hash_str(src) % SHARDS); }

static void shard_key(const site_img_records *r, unsigned k, buf *key)
{
    buf_reset(key);
    buf_printf(key, "sheaf-images 2\n%s\n%u", r->site, k);
}

/* ---- bytes ---------------------------------------------------------------- */

/* One variant of a record: its width, path, file and the cache's id of
 * its entry (cache_use_id). */
static void get_variant(binrec_reader *e, unsigned *width, const char **path, size_t *len, site_img_out *o,
                        uint64_t *use)
{
    *width = (unsigned)binrec_get_u(e);
    *path = binrec_get_bytes(e, len);
    file_id_get(e, o);
    *use = binrec_get_w(e);
}

/* Reads the record e holds (e ends where it does), its variants checked
 * and left for the caller at out->var. */
static bool parse(binrec_reader e, rec *out)
{
    rec r = { 0 };
    r.src = binrec_get_bytes(&e, &r.src_len);
    r.clock_s = binrec_get_i(&e);
    r.clock_ns = binrec_get_i(&e);
    r.id.dev = binrec_get_u(&e);
    r.id.ino = binrec_get_u(&e);
    r.id.size = binrec_get_i(&e);
    r.id.mtime_s = binrec_get_i(&e);
    r.id.mtime_ns = binrec_get_i(&e);
    r.id.ctime_s = binrec_get_i(&e);
    r.id.ctime_ns = binrec_get_i(&e);
    r.digest = binrec_get_raw(&e, DIGEST);
    uint64_t flags = binrec_get_u(&e);
    if (flags & HAS_COPY) {
        r.copy_rel = binrec_get_bytes(&e, &r.copy_len);
        file_id_get(&e, &r.copy);
    }
    if (flags & HAS_VARIANTS) {
        r.vips = binrec_get_bytes(&e, &r.vips_len);
        r.quality = binrec_get_i(&e);
        r.nvar = binrec_get_count(&e, 16); /* width, path, the file, the id: 16 bytes at least */
        r.var = e;
        for (size_t k = 0; k < r.nvar && !e.bad; k++) {
            unsigned w;
            const char *p;
            size_t len;
            site_img_out o;
            uint64_t use;
            get_variant(&e, &w, &p, &len, &o, &use);
        }
    }
    if (e.bad || e.at != e.n || !r.src || !r.digest || (flags & ~(uint64_t)(HAS_COPY | HAS_VARIANTS))
        || ((flags & HAS_COPY) && !r.copy_rel) || ((flags & HAS_VARIANTS) && !r.vips))
        return false;
    *out = r;
    return true;
}

/* The reader of the record at `start` of an entry: from the byte after its
 * length to its end. */
static binrec_reader record_at(const unsigned char *p, size_t n, size_t start)
{
    binrec_reader rd = { p, n, start, false };
    size_t len = binrec_get_count(&rd, 1);
    return (binrec_reader){ p, rd.bad ? 0 : rd.at + len, rd.at, rd.bad };
}

/* Reads an entry's head and walks its records: each start to fn (NULL:
 * none). The number of records, or -1 when it is not an entry. */
static long walk_entry(const unsigned char *p, size_t n, const char **target, size_t *tlen,
                       void (*fn)(void *ctx, const char *src, size_t len, size_t start), void *ctx)
{
    if (n < MAGIC_LEN || memcmp(p, MAGIC, MAGIC_LEN) != 0)
        return -1;
    binrec_reader rd = { p, n, MAGIC_LEN, false };
    *target = binrec_get_bytes(&rd, tlen);
    size_t count = binrec_get_count(&rd, 2);
    for (size_t i = 0; i < count && !rd.bad; i++) {
        size_t start = rd.at;
        binrec_reader e = record_at(p, n, start);
        size_t slen;
        const char *src = binrec_get_bytes(&e, &slen);
        if (e.bad || !src || start > 0xffffffffu)
            return -1;
        if (fn)
            fn(ctx, src, slen, start);
        rd.at = e.n;
    }
    if (rd.bad || rd.at != rd.n || !*target)
        return -1;
    return (long)count;
}

typedef struct indexing {
    site_img_records *r;
    unsigned k;
} indexing;

static void index_one(void *ctx, const char *src, size_t len, size_t start)
{
    indexing *x = ctx;
    char *key = arena_strndup(x->r->keys, src, len); /* the index keeps it */
    if (strlen(key) == len && shard_of(key) == x->k && strmap_get(x->r->index, key) < 0)
        strmap_put(x->r->index, key, (long)((uint64_t)x->k << 32 | start));
}

/* ---- a build's records ------------------------------------------------------ */

site_img_records *site_img_records_open(cache *c, const char *site_dir, size_t nfiles)
{
    site_img_records *r = xcalloc(1, sizeof *r);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    r->now_s = (long long)now.tv_sec;
    r->now_ns = (long long)now.tv_nsec;
    r->c = c;
    r->site = fs_resolve(site_dir);
    r->n = nfiles;
    r->slots = xcalloc(nfiles + 1, sizeof *r->slots);
    r->index = strmap_new(nfiles + 1);
    r->keys = arena_new();
    buf key = BUF_INIT;
    for (unsigned k = 0; k < SHARDS; k++) {
        r->shard[k] = (buf)BUF_INIT;
        shard_key(r, k, &key);
        indexing x = { r, k };
        if (!cache_get(c, KIND, key.data, key.len, &r->shard[k])
            || walk_entry((const unsigned char *)r->shard[k].data, r->shard[k].len, &r->target[k],
                          &r->target_len[k], index_one, &x) < 0) {
            /* the records indexed before it turned out bad point nowhere */
            buf_release(&r->shard[k]);
            r->target[k] = NULL;
        }
    }
    buf_release(&key);
    return r;
}

static bool too_recent(long long s, long long ns, long long now_s, long long now_ns)
{
    long long d_s = now_s - s, d_ns = now_ns - ns;
    long long diff = d_s > 100 ? RACY_NS + 1 : d_s < -100 ? -1 : d_s * 1000000000LL + d_ns;
    return diff <= RACY_NS;
}

static void to_hex(const unsigned char *d, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < DIGEST; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = 0;
}

static bool from_hex(const char *hex, unsigned char *d)
{
    for (size_t i = 0; i < DIGEST; i++) {
        int v = 0;
        for (int h = 0; h < 2; h++) {
            char ch = hex[2 * i + (size_t)h];
            int x = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
            if (x < 0)
                return false;
            v = v * 16 + x;
        }
        d[i] = (unsigned char)v;
    }
    return true;
}

/* The record of src, read, when it is true of the file now (id). */
static bool trusted(const site_img_records *r, const char *src, const site_src_ident *id, rec *out)
{
    long at = strmap_get(r->index, src);
    if (at < 0)
        return false;
    unsigned k = (unsigned)((uint64_t)at >> 32);
    const buf *b = &r->shard[k];
    binrec_reader e = record_at((const unsigned char *)b->data, b->len, (size_t)((uint64_t)at & 0xffffffffu));
    return parse(e, out) && !memcmp(&out->id, id, sizeof *id)
           && !too_recent(id->mtime_s, id->mtime_ns, out->clock_s, out->clock_ns)
           && !too_recent(id->ctime_s, id->ctime_ns, out->clock_s, out->clock_ns);
}

bool site_img_records_hash(site_img_records *r, size_t i, const char *src, const char *path, char hex[65])
{
    if (!r || i >= r->n)
        return false;
    slot *sl = &r->slots[i];
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    sl->id = (site_src_ident){ (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
                               (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec,
                               (long long)st.st_ctim.tv_sec, (long long)st.st_ctim.tv_nsec };
    if (trusted(r, src, &sl->id, &sl->old)) {
        sl->trusted = true;
        sl->shard = shard_of(src);
        memcpy(sl->digest, sl->old.digest, DIGEST);
        sl->clock_s = sl->old.clock_s;
        sl->clock_ns = sl->old.clock_ns;
    } else {
        /* read after the stat: a file changed between the two is recorded
         * with the identity before, which the next build will not find */
        buf bytes = BUF_INIT;
        bool ok = fs_read_file(path, &bytes);
        if (ok)
            img_data_hash((const unsigned char *)bytes.data, bytes.len, hex);
        buf_release(&bytes);
        if (!ok || !from_hex(hex, sl->digest))
            return false;
        sl->clock_s = r->now_s;
        sl->clock_ns = r->now_ns;
    }
    sl->hashed = true;
    to_hex(sl->digest, hex);
    return true;
}

bool site_img_records_known(const site_img_records *r, size_t i, char hex[65])
{
    if (!r || i >= r->n || !r->slots[i].hashed)
        return false;
    to_hex(r->slots[i].digest, hex);
    return true;
}

/* Whether file i's record is trusted and its entry's files are in target. */
static bool same_target(const site_img_records *r, const slot *sl, const char *target)
{
    size_t n = strlen(target);
    const char *t = r->target[sl->shard];
    return sl->trusted && t && r->target_len[sl->shard] == n && !memcmp(t, target, n);
}

bool site_img_records_copy(const site_img_records *r, size_t i, const char *target, const char *rel,
                           site_img_out *out)
{
    if (!r || i >= r->n)
        return false;
    const slot *sl = &r->slots[i];
    if (!same_target(r, sl, target) || !sl->old.copy_rel)
        return false;
    bool ok = sl->old.copy_len == strlen(rel) && !memcmp(sl->old.copy_rel, rel, sl->old.copy_len);
    if (ok)
        *out = sl->old.copy;
    return ok;
}

void site_img_records_set_copy(site_img_records *r, size_t i, const char *rel, const site_img_out *id)
{
    if (!r || i >= r->n || !r->slots[i].hashed)
        return;
    slot *sl = &r->slots[i];
    free(sl->copy_rel);
    sl->copy_rel = xstrdup(rel);
    sl->copy = *id;
}

size_t site_img_records_variants(const site_img_records *r, size_t i, const char *target, const char *vips,
                                 long quality, const site_variant *v, size_t n, site_img_out *ids, uint64_t *use)
{
    if (!r || i >= r->n)
        return 0;
    const slot *sl = &r->slots[i];
    if (!same_target(r, sl, target) || !sl->old.vips || sl->old.nvar != n || sl->old.quality != quality
        || sl->old.vips_len != strlen(vips) || memcmp(sl->old.vips, vips, sl->old.vips_len))
        return 0;
    bool ok = true;
    binrec_reader e = sl->old.var;
    for (size_t k = 0; ok && k < n; k++) {
        unsigned w;
        const char *p;
        size_t len;
        get_variant(&e, &w, &p, &len, &ids[k], &use[k]);
        ok = !e.bad && w == v[k].width && len == strlen(v[k].path) && !memcmp(p, v[k].path, len);
    }
    return ok ? n : 0;
}

void site_img_records_set_variants(site_img_records *r, size_t i, const char *vips, long quality,
                                   const site_variant *v, size_t n, const site_img_out *ids, const uint64_t *use)
{
    if (!r || i >= r->n || !r->slots[i].hashed)
        return;
    slot *sl = &r->slots[i];
    free(sl->vips);
    for (size_t k = 0; k < sl->nvar; k++)
        free(sl->paths[k]);
    free(sl->paths);
    free(sl->widths);
    free(sl->ids);
    free(sl->use);
    sl->vips = xstrdup(vips);
    sl->quality = quality;
    sl->nvar = n;
    sl->widths = xcalloc(n + 1, sizeof *sl->widths);
    sl->paths = xcalloc(n + 1, sizeof *sl->paths);
    sl->ids = xcalloc(n + 1, sizeof *sl->ids);
    sl->use = xcalloc(n + 1, sizeof *sl->use);
    for (size_t k = 0; k < n; k++) {
        sl->widths[k] = v[k].width;
        sl->paths[k] = xstrdup(v[k].path);
        sl->ids[k] = ids[k];
        sl->use[k] = use[k];
    }
}

static void encode(buf *out, const char *src, const slot *sl)
{
    buf b = BUF_INIT;
    binrec_put_bytes(&b, src, strlen(src));
    binrec_put_i(&b, sl->clock_s);
    binrec_put_i(&b, sl->clock_ns);
    binrec_put_u(&b, sl->id.dev);
    binrec_put_u(&b, sl->id.ino);
    binrec_put_i(&b, sl->id.size);
    binrec_put_i(&b, sl->id.mtime_s);
    binrec_put_i(&b, sl->id.mtime_ns);
    binrec_put_i(&b, sl->id.ctime_s);
    binrec_put_i(&b, sl->id.ctime_ns);
    buf_put(&b, (const char *)sl->digest, DIGEST);
    binrec_put_u(&b, (sl->copy_rel ? HAS_COPY : 0) | (sl->vips ? HAS_VARIANTS : 0));
    if (sl->copy_rel) {
        binrec_put_bytes(&b, sl->copy_rel, strlen(sl->copy_rel));
        file_id_put(&b, &sl->copy);
    }
    if (sl->vips) {
        binrec_put_bytes(&b, sl->vips, strlen(sl->vips));
        binrec_put_i(&b, sl->quality);
        binrec_put_u(&b, sl->nvar);
        for (size_t k = 0; k < sl->nvar; k++) {
            binrec_put_u(&b, sl->widths[k]);
            binrec_put_bytes(&b, sl->paths[k], strlen(sl->paths[k]));
            file_id_put(&b, &sl->ids[k]);
            binrec_put_w(&b, sl->use[k]);
        }
    }
    binrec_put_u(out, b.len);
    buf_put(out, b.data, b.len);
    buf_release(&b);
}

void site_img_records_save(site_img_records *r, const site *s, const char *target)
{
    if (!r)
        return;
    size_t count[SHARDS] = { 0 };
    for (size_t i = 0; i < r->n && i < s->nfiles; i++)
        if (r->slots[i].hashed)
            count[shard_of(s->files[i].src)]++;
    buf v = BUF_INIT, key = BUF_INIT;
    for (unsigned k = 0; k < SHARDS; k++) {
        if (!count[k] && !r->shard[k].len)
            continue;
        buf_reset(&v);
        buf_put(&v, MAGIC, MAGIC_LEN);
        binrec_put_bytes(&v, target, strlen(target));
        binrec_put_u(&v, count[k]);
        for (size_t i = 0; i < r->n && i < s->nfiles; i++)
            if (r->slots[i].hashed && shard_of(s->files[i].src) == k)
                encode(&v, s->files[i].src, &r->slots[i]);
        /* the same records as the entry holds: nothing to write */
        if (v.len == r->shard[k].len && !memcmp(v.data, r->shard[k].data, v.len))
            continue;
        shard_key(r, k, &key);
        if (v.len + key.len < CACHE_ENTRY_MAX)
            cache_put(r->c, KIND, key.data, key.len, v.data, v.len);
    }
    buf_release(&v);
    buf_release(&key);
}

void site_img_records_free(site_img_records *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        slot *sl = &r->slots[i];
        free(sl->copy_rel);
        free(sl->vips);
        for (size_t k = 0; k < sl->nvar; k++)
            free(sl->paths[k]);
        free(sl->paths);
        free(sl->widths);
        free(sl->ids);
        free(sl->use);
    }
    free(r->slots);
    for (unsigned k = 0; k < SHARDS; k++)
        buf_release(&r->shard[k]);
    strmap_free(r->index);
    arena_free(r->keys);
    free(r->site);
    free(r);
}

typedef struct checking {
    const unsigned char *p;
    size_t n;
    int whole;
} checking;

static void check_one(void *ctx, const char *src, size_t len, size_t start)
{
    (void)src, (void)len;
    checking *x = ctx;
    rec r;
    if (parse(record_at(x->p, x->n, start), &r))
        x->whole++;
}

int site_img_records_check(const void *value, size_t n)
{
    const char *target;
    size_t tlen;
    checking x = { value, n, 0 };
    return walk_entry(value, n, &target, &tlen, check_one, &x) < 0 ? -1 : x.whole;
}
