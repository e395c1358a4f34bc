/* mdcache: each page's Markdown — its HTML, summary, headings, anchors,
 * links as written and as resolved, citations, labels, shortcodes, word
 * counts and plain text — in the build cache (src/cache, kind "page"), so
 * that the next `sheaf build` renders again only the pages whose inputs
 * changed. Everything after the Markdown stage (links, model, templates,
 * output) runs as in any build, on what the entries give back.
 *
 * An entry's key holds everything its value depends on, so a changed input
 * is a miss, never a stale page:
 *   - this sheaf binary (its ELF build id, else a hash of the executable)
 *     and the cache's generation (below);
 *   - the site's configuration file's bytes, the text of the CSL style it
 *     names (a .csl file of the site is edited without site.yaml), and the
 *     theme's words the Markdown writes (captions, alerts, the language);
 *   - the link environment (pagecache.c's rule, links.c: every page's
 *     source and output path and state, every file, every image's size and
 *     time, the tags, the base path);
 *   - for a page that cites, every bibliography entry's fields (and a
 *     CSL-JSON item whole);
 *   - the page's source path and its bytes (their SHA-256), front matter
 *     included.
 * With a CSL style the value also holds the page's bibliography as its
 * citeproc-js document gave it (page.csl_bib, cite_csl.c), which depends on
 * nothing the key does not (the style, the language, the entries, the
 * citations, this binary's citeproc-js), so a page taken from here needs
 * no other look-up for its citations.
 * A page that used shortcodes is also checked against what those read
 * (their templates, the site's values: the session's rule), stored in the
 * value. A page whose Markdown reported a problem is never kept, so its
 * diagnostics come back on every build.
 *
 * An entry is two parts: the head (all of the above but the body, the
 * summary and the search keys and text, with the search excerpt, and the
 * name, lengths and hashes of the rest), one of many in an entry of heads
 * (kind "page-heads", below), and the bulk (kind "page-bulk": those four
 * strings), a cache file of its own; each under its own HMAC. The bulk's
 * key is a 128-bit name only its head holds (a digest of this sheaf's id,
 * the site folder and the head's key). The Markdown stage
 * reads heads only; the bulk is read when something first uses it
 * (site_md_disk_bulk, through site/bulk.c's accessors), checked then, and
 * made again from the source when it does not check.
 *
 * The manifest (kind "manifest", key "pages") names the sheaf binary, the
 * site folder and a random generation that every key holds, and whether a
 * build is writing: "open" from a build's first entry written until it
 * ends (a build that writes none leaves the manifest alone). A manifest of another binary or site folder, or one left open
 * (a build killed, or one running beside this one) is said in a warning
 * and replaced by a new generation: none of its entries is used again
 * (cache_trim removes them in time). The manifest only adds caution: each
 * entry is written whole (temporary file, rename) and checked (HMAC) on
 * its own, and its key holds all of its inputs. */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "site/cite.h"
#include "site/mdcache.h"
#include "site/pool.h"
#include "site/spill.h"
#include "util/binrec.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define MANIFEST_HEAD "sheaf pages 1\n"
#define VALUE_MAGIC "SHM5"
#define BULK_MAGIC "SHB2"
#define BULK_KIND "page-bulk"
#define HEADS_KIND "page-heads"
#define HEADS_MAGIC "SHMH1\n"
#define HEADS_MAGIC_LEN 6
/* the heads are split in this many entries by a hash of the source path:
 * an edit writes one again (at 100,000 posts about 2 MB), and each stays
 * far below CACHE_ENTRY_MAX up to several hundred thousand pages */
#define HEAD_SHARDS 64
/* a head's key: five hashes of 8 bytes and the page's digest, then its path */
#define KEY_FIXED (5 * 8 + CACHE_DIGEST_LEN)

/* One entry of heads: read whole at site_md_disk_begin. */
typedef struct head_shard {
    buf b;      /* its value, or empty */
    bool bad;   /* absent, or not readable as heads */
    bool got;   /* the cache gave it */
    bool found; /* there (whether it read back or not): a bad one is written again */
    size_t n;   /* heads it held */
} head_shard;

/* A page's head: the record read (in its shard's value) and whether this
 * build took it, or the one this build made. */
typedef struct head_slot {
    const char *old;
    size_t old_len;
    bool used;
    char *fresh; /* malloc'd, when there is no spill file */
    size_t fresh_at; /* else its place in the spill file + 1 (site/spill.h) */
    size_t fresh_len;
} head_slot;

/* The head this build made for a slot, or NULL: in memory, else in the
 * spill file, mapped by now (site_md_disk_end runs after site_spill_map;
 * NULL when the map failed: that page is not kept, made again next time). */
static const char *fresh_head(const site *s, const head_slot *sl)
{
    return sl->fresh ? sl->fresh : sl->fresh_at ? site_spill_at(s, sl->fresh_at) : NULL;
}

struct site_md_disk {
    cache *c;
    bool write;
    char *binary; /* hex */
    char *site;   /* the site folder, resolved */
    uint64_t generation;
    site_md_env menv; /* site_md_disk_begin: configuration, words, bibliography */
    uint64_t env;
    atomic_size_t damaged, hits, stored;
    atomic_size_t bad_shards; /* entries of heads that checked but did not read back */
    head_shard shard[HEAD_SHARDS];
    head_slot *slots; /* by page number, site_md_disk_begin to site_md_disk_end */
    size_t nslots;
    atomic_size_t bytes; /* of the entries this build read or wrote (keys and values) */
    pthread_mutex_t mu;
    bool opened;         /* under mu: the manifest says "open" (before the first entry is written) */
    arena *late;         /* under mu: bulk parts read without a spill file */
    diag_list *d;        /* site_md_disk_begin's */
};

/* ---- which sheaf wrote it -------------------------------------------- */

static int note_cb(struct dl_phdr_info *info, size_t size, void *vout)
{
    (void)size;
    buf *out = vout;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        size_t n = ph->p_memsz, at = 0;
        while (at + sizeof(ElfW(Nhdr)) <= n) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(p + at);
            size_t name = (nh->n_namesz + 3) & ~(size_t)3, desc = (nh->n_descsz + 3) & ~(size_t)3;
            const unsigned char *d = p + at + sizeof *nh + name;
            if (at + sizeof *nh + name + nh->n_descsz > n)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                !memcmp(p + at + sizeof *nh, "GNU", 4)) {
                buf_puts(out, "id:");
                for (size_t k = 0; k < nh->n_descsz; k++)
                    buf_printf(out, "%02x", d[k]);
                return 1;
            }
            at += sizeof *nh + name + desc;
        }
    }
    return 1; /* the first object is the program: only its id counts */
}

/* The binary's id, made once a process: without a build id it is the hash
 * of the whole program file, read 64 KiB at a time (read whole, a 14 MB
 * buffer at the render's peak, in the search index's job). */
static char *binary_id;

static void make_binary_id(void)
{
    buf b = BUF_INIT;
    dl_iterate_phdr(note_cb, &b);
    int fd = b.len ? -1 : open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        static unsigned char chunk[64 * 1024];
        uint64_t h = HASH_SEED;
        size_t len = 0;
        ssize_t n;
        while ((n = read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
            if (n > 0) /* FNV-1a, byte by byte: the same as over the whole file at once */
                h = hash_add(h, chunk, (size_t)n), len += (size_t)n;
        if (!n)
            buf_printf(&b, "exe:%016llx:%zu", (unsigned long long)h, len);
        close(fd);
    }
    if (!b.len)
        buf_puts(&b, "unknown");
    binary_id = buf_detach(&b, NULL);
}

char *site_binary_id(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_binary_id);
    return xstrdup(binary_id);
}

static uint64_t new_generation(void)
{
    uint64_t g = 0;
    if (getrandom(&g, sizeof g, 0) != (ssize_t)sizeof g)
        g = (uint64_t)time(NULL) * 6364136223846793005ull ^ (uint64_t)getpid();
    return g;
}

static void put_manifest(site_md_disk *m, const char *state)
{
    buf v = BUF_INIT;
    buf_printf(&v, MANIFEST_HEAD "%s\n%s\n%016llx\n%s\n", m->binary, m->site,
               (unsigned long long)m->generation, state);
    cache_put(m->c, "manifest", "pages", 5, v.data, v.len);
    buf_release(&v);
}

/* The manifest's lines (binary, site, generation, state) into f[4]. */
static bool read_manifest(cache *c, buf *v, char *f[4])
{
    if (!cache_get(c, "manifest", "pages", 5, v))
        return false;
    size_t h = strlen(MANIFEST_HEAD);
    if (v->len < h || memcmp(v->data, MANIFEST_HEAD, h) != 0)
        return false;
    char *p = v->data + h;
    for (int i = 0; i < 4; i++) {
        char *nl = strchr(p, '\n');
        if (!nl)
            return false;
        *nl = 0;
        f[i] = p;
        p = nl + 1;
    }
    return *p == 0;
}

site_md_disk *site_md_disk_open(site *s, bool write, diag_list *d)
{
    if (!s->cache)
        return NULL;
    site_md_disk *m = xcalloc(1, sizeof *m);
    m->c = s->cache;
    m->write = write;
    pthread_mutex_init(&m->mu, NULL);
    m->binary = site_binary_id();
    m->site = fs_resolve(s->dir);
    buf v = BUF_INIT;
    char *f[4];
    const char *why = NULL;
    bool good = false;
    if (read_manifest(m->c, &v, f)) {
        char *end;
        unsigned long long g = strtoull(f[2], &end, 16);
        if (strcmp(f[0], m->binary))
            why = "it was written by another version of sheaf";
        else if (strcmp(f[1], m->site))
            why = arena_printf(s->a, "it was made for the site in %s, not this one", f[1]);
        else if (strcmp(f[3], "done"))
            why = "the build that last wrote it did not finish (it was killed, or is still running)";
        else if (*end == 0 && end != f[2]) {
            m->generation = g;
            good = true;
        }
    }
    buf_release(&v);
    if (why)
        diag_warning(d, CACHE_DIR, 0, 0,
                     "%s: none of the pages it holds is used; they are rendered again", why);
    if (!good && !write) {
        site_md_disk_close(m, NULL);
        return NULL;
    }
    if (!good)
        m->generation = new_generation();
    return m;
}

static void drop_heads(site_md_disk *m)
{
    for (size_t i = 0; m->slots && i < m->nslots; i++)
        free(m->slots[i].fresh);
    free(m->slots);
    m->slots = NULL;
    m->nslots = 0;
    for (unsigned k = 0; k < HEAD_SHARDS; k++)
        buf_release(&m->shard[k].b);
}

void site_md_disk_close(site_md_disk *m, diag_list *d)
{
    if (!m)
        return;
    if (m->opened && d)
        put_manifest(m, "done");
    size_t bad = atomic_load(&m->damaged);
    if (bad && d)
        diag_warning(d, CACHE_DIR, 0, 0,
                     "%zu page %s in the build cache could not be read back and %s rendered again",
                     bad, bad == 1 ? "entry" : "entries", bad == 1 ? "was" : "were");
    size_t badh = atomic_load(&m->bad_shards);
    if (badh && d)
        diag_warning(d, CACHE_DIR, 0, 0,
                     "%zu %s of the pages' heads in the build cache could not be read back: the pages %s held "
                     "were rendered again",
                     badh, badh == 1 ? "entry" : "entries", badh == 1 ? "it" : "they");
    drop_heads(m);
    pthread_mutex_destroy(&m->mu);
    arena_free(m->late);
    free(m->binary);
    free(m->site);
    free(m);
}

size_t site_md_disk_hits(const site_md_disk *m)
{
    return m ? atomic_load(&((site_md_disk *)m)->hits) : 0;
}

size_t site_md_disk_bytes(const site_md_disk *m)
{
    return m ? atomic_load(&((site_md_disk *)m)->bytes) : 0;
}

/* ---- what an entry depends on ---------------------------------------- */

static uint64_t add_str(uint64_t h, const char *s)
{
    s = s ? s : "\x01";
    return hash_add(hash_add(h, s, strlen(s)), "\xff", 1);
}

static uint64_t words_hash(uint64_t h, const md_words *w)
{
    if (!w)
        return add_str(h, NULL);
    for (size_t i = 0; i < MD_LABEL_KINDS; i++)
        h = add_str(add_str(h, w->one[i]), w->many[i]);
    h = add_str(add_str(add_str(h, w->list_sep), w->list_and), w->caption_sep);
    for (size_t i = 0; i < 5; i++)
        h = add_str(h, w->alert[i]);
    return add_str(h, w->in);
}

/* ---- the heads, in HEAD_SHARDS entries ---------------------------------
 *
 * An entry's key holds this sheaf's id, the site folder (resolved) and the
 * shard's number, so another version's or another site's heads are never
 * found. Its value: HEADS_MAGIC, the count, then each head as
 *   hint (the page's number when written), key length, key, value length, value
 * where the key is make_key's (the source path in it, after KEY_FIXED bytes,
 * NUL-terminated) and the value write_value's. Each entry is written
 * whole (temporary file, rename) and checked (HMAC) by src/cache once
 * for all its heads; one that checks but does not read back is ignored
 * whole (a warning), its pages rendered again and the entry written again. */

static unsigned head_shard_of(const char *src) { return (unsigned)(hash_str(src) % HEAD_SHARDS); }

static void shard_key(const site_md_disk *m, unsigned k, buf *key)
{
    buf_reset(key);
    buf_printf(key, "sheaf-md-heads 1\n%s\n%s\n%u", m->binary, m->site, k);
}

/* One head's parts, from the reader at its first byte; false when it does
 * not read back. */
static bool head_at(binrec_reader *in, uint64_t *hint, const char **key, size_t *klen, const char **value,
                    size_t *vlen)
{
    *hint = binrec_get_u(in);
    *key = binrec_get_bytes(in, klen);
    *value = binrec_get_bytes(in, vlen);
    return !in->bad && *key && *value && *klen > KEY_FIXED && memchr(*key + KEY_FIXED, 0, *klen - KEY_FIXED);
}

/* What heads_walk gives each head: where it starts in the value, its parts. */
typedef bool (*head_fn)(void *ctx, size_t start, size_t end, uint64_t hint, const char *key,
                        size_t klen, const char *value, size_t vlen);

/* Walks an entry of heads' value (HEADS_MAGIC, the count, the heads),
 * giving each head to fn; false when it does not read as heads (a head
 * that does not read back, fn's false, bytes after the last). *count: how
 * many it holds. */
static bool heads_walk(const char *data, size_t len, size_t *count, head_fn fn, void *ctx)
{
    *count = 0;
    if (len < HEADS_MAGIC_LEN || memcmp(data, HEADS_MAGIC, HEADS_MAGIC_LEN) != 0)
        return false;
    binrec_reader in = binrec_reader_of(data, len);
    in.at = HEADS_MAGIC_LEN;
    size_t n = binrec_get_count(&in, 3);
    for (size_t i = 0; i < n && !in.bad; i++) {
        size_t start = in.at;
        uint64_t hint;
        const char *key, *value;
        size_t klen, vlen;
        if (!head_at(&in, &hint, &key, &klen, &value, &vlen) ||
            !fn(ctx, start, in.at, hint, key, klen, value, vlen))
            return false;
    }
    if (in.bad || in.at != in.n)
        return false;
    *count = n;
    return true;
}

typedef struct index_ctx {
    site_md_disk *m;
    const site *s;
    unsigned k;
    strmap **by_src;
} index_ctx;

static bool index_head(void *vctx, size_t start, size_t end, uint64_t hint, const char *key,
                       size_t klen, const char *value, size_t vlen)
{
    (void)klen, (void)value, (void)vlen;
    index_ctx *x = vctx;
    site_md_disk *m = x->m;
    if (start > 0xffffffffu)
        return false;
    const char *src = key + KEY_FIXED;
    const char *data = m->shard[x->k].b.data;
    if (hint < m->nslots && !m->slots[hint].old && !strcmp(x->s->pages[hint].src, src)) {
        m->slots[hint].old = data + start;
        m->slots[hint].old_len = end - start;
    } else { /* a page added or removed before it since: by its path */
        if (!*x->by_src)
            *x->by_src = strmap_new(64);
        strmap_put(*x->by_src, src, (long)((uint64_t)x->k << 32 | start));
    }
    return true;
}

/* Indexes one shard's heads into m->slots (by its hint, else by the
 * source path through *by_src); false when it does not read as heads. */
static bool index_shard(site_md_disk *m, const site *s, unsigned k, strmap **by_src)
{
    const buf *b = &m->shard[k].b;
    index_ctx x = { m, s, k, by_src };
    size_t n;
    if (!heads_walk(b->data, b->len, &n, index_head, &x))
        return false;
    m->shard[k].n = n;
    return true;
}

/* Reads shard k whole (its HMAC checked: the workers share that cost). */
static void read_shard(void *vm, size_t k, int worker)
{
    (void)worker;
    site_md_disk *m = vm;
    head_shard *h = &m->shard[k];
    buf key = BUF_INIT;
    shard_key(m, (unsigned)k, &key);
    h->got = cache_get(m->c, HEADS_KIND, key.data, key.len, &h->b);
    if (h->got)
        atomic_fetch_add(&m->bytes, key.len + h->b.len);
    buf_release(&key);
}

/* Reads every shard of heads, whole, and finds each page's head. */
static void load_heads(site_md_disk *m, const site *s, int jobs)
{
    m->nslots = s->npages;
    m->slots = xcalloc(s->npages ? s->npages : 1, sizeof *m->slots);
    strmap *by_src = NULL;
    for (unsigned k = 0; k < HEAD_SHARDS; k++)
        m->shard[k].b = (buf)BUF_INIT;
    /* an entry there but damaged is counted by the cache: that it was
     * there is known by the count (a miss that is no damage is absent) */
    size_t damaged = cache_get_stats(m->c).damaged;
    site_parallel(HEAD_SHARDS, jobs, read_shard, m);
    bool some_damaged = cache_get_stats(m->c).damaged != damaged, unreadable = false;
    for (unsigned k = 0; k < HEAD_SHARDS; k++) {
        head_shard *h = &m->shard[k];
        h->found = h->got || some_damaged;
        if (!h->got || !index_shard(m, s, k, &by_src)) {
            if (h->got) { /* it checked, but holds no heads this code reads */
                atomic_fetch_add(&m->bad_shards, 1);
                unreadable = true;
            }
            h->bad = true;
            h->n = 0;
        }
    }
    /* a head of a shard that did not read back may have been indexed
     * before it was found bad (one that was not there indexed none) */
    for (size_t i = 0; unreadable && i < m->nslots; i++) {
        const char *o = m->slots[i].old;
        if (o && m->shard[head_shard_of(s->pages[i].src)].bad)
            m->slots[i].old = NULL;
    }
    for (size_t i = 0; by_src && i < m->nslots; i++) {
        if (m->slots[i].old)
            continue;
        long at = strmap_get(by_src, s->pages[i].src);
        if (at < 0)
            continue;
        unsigned k = (unsigned)((uint64_t)at >> 32);
        const buf *b = &m->shard[k].b;
        if (m->shard[k].bad)
            continue;
        binrec_reader in = binrec_reader_of(b->data, b->len);
        in.at = (size_t)((uint64_t)at & 0xffffffffu);
        uint64_t hint;
        const char *hk, *hv;
        size_t kl, vl;
        if (head_at(&in, &hint, &hk, &kl, &hv, &vl)) {
            m->slots[i].old = b->data + (size_t)((uint64_t)at & 0xffffffffu);
            m->slots[i].old_len = in.at - (size_t)((uint64_t)at & 0xffffffffu);
        }
    }
    strmap_free(by_src);
}

/* The manifest says "open" before the first entry is written (a build
 * that writes none — every page from the cache — leaves it as it was). */
static void opening(site_md_disk *m)
{
    pthread_mutex_lock(&m->mu);
    if (!m->opened)
        put_manifest(m, "open");
    m->opened = true;
    pthread_mutex_unlock(&m->mu);
}

void site_md_disk_end(site_md_disk *m, const site *s)
{
    if (!m || !m->slots)
        return;
    if (m->write) {
        /* a shard is written again when a head of it is new, or one it
         * held is used no more (a page changed, removed, or failed) */
        bool dirty[HEAD_SHARDS];
        size_t kept[HEAD_SHARDS] = { 0 };
        unsigned char *of = xmalloc(m->nslots ? m->nslots : 1);
        for (unsigned k = 0; k < HEAD_SHARDS; k++)
            dirty[k] = m->shard[k].bad;
        for (size_t i = 0; i < m->nslots; i++) {
            const head_slot *sl = &m->slots[i];
            bool fresh = fresh_head(s, sl) != NULL;
            if (!sl->used && !fresh)
                continue;
            unsigned k = head_shard_of(s->pages[i].src);
            of[i] = (unsigned char)k;
            kept[k]++;
            if (fresh)
                dirty[k] = true;
        }
        for (unsigned k = 0; k < HEAD_SHARDS; k++)
            if (kept[k] != m->shard[k].n)
                dirty[k] = true;
        buf key = BUF_INIT, v = BUF_INIT;
        for (unsigned k = 0; k < HEAD_SHARDS; k++) {
            /* (an entry that was there but did not check, written again
             * even empty: else every build would warn of it) */
            if (!dirty[k] || (m->shard[k].bad && !m->shard[k].found && !kept[k]))
                continue;
            buf_reset(&v);
            buf_put(&v, HEADS_MAGIC, HEADS_MAGIC_LEN);
            binrec_put_u(&v, kept[k]);
            for (size_t i = 0; i < m->nslots; i++) {
                const head_slot *sl = &m->slots[i];
                const char *fresh = fresh_head(s, sl);
                if (!sl->used && !fresh)
                    continue;
                if (of[i] != k)
                    continue;
                if (fresh) {
                    buf_put(&v, fresh, sl->fresh_len);
                } else { /* as it was, under this build's number */
                    binrec_reader in = binrec_reader_of(sl->old, sl->old_len);
                    binrec_get_u(&in);
                    binrec_put_u(&v, i);
                    buf_put(&v, sl->old + in.at, sl->old_len - in.at);
                }
            }
            shard_key(m, k, &key);
            if (v.len + key.len + 256 < CACHE_ENTRY_MAX) {
                opening(m);
                cache_put(m->c, HEADS_KIND, key.data, key.len, v.data, v.len);
                atomic_fetch_add(&m->bytes, key.len + v.len);
            }
            site_spill_trim(s); /* the heads read from the spill file leave memory */
        }
        free(of);
        buf_release(&key);
        buf_release(&v);
    }
    drop_heads(m);
}

static uint64_t page_words_hash(const site_md_env *e, const md_words *w)
{
    for (size_t i = 0; i < e->nwords; i++)
        if (e->words_of[i] == w)
            return e->words_hash[i];
    return words_hash(HASH_SEED, w);
}

uint64_t site_config_file_hash(const site *s)
{
    uint64_t h = HASH_SEED;
    char *path = fs_join(s->dir, "site.yaml");
    buf cfg = BUF_INIT;
    if (fs_read_file_max(path, FS_READ_MAX, &cfg))
        h = hash_add(h, cfg.data, cfg.len);
    else
        h = add_str(h, "(no site.yaml)");
    buf_release(&cfg);
    free(path);
    return h;
}

void site_md_env_begin(const site *s, site_md_env *e)
{
    uint64_t h = site_config_file_hash(s);
    const md_options *o = &s->cfg.markdown;
    h = add_str(add_str(add_str(h, o->label_table), o->label_math), o->label_diagram);
    h = words_hash(h, o->words);
    h = add_str(h, site_csl_style_hash(s)); /* a .csl file edited: its text */
    e->global = h;
    uint64_t b = HASH_SEED;
    for (size_t i = 0; s->bib && i < s->bib->n; i++) {
        const bib_entry *x = &s->bib->entries[i];
        b = add_str(add_str(add_str(b, x->key), x->type), x->src);
        for (size_t k = 0; k < x->nfields; k++)
            b = add_str(add_str(add_str(b, x->fields[k].name), x->fields[k].text), x->fields[k].raw);
        if (x->csl) /* a CSL-JSON item, whole */
            b = add_str(b, x->csl);
        b = add_str(b, "\x02");
    }
    e->bib = b;
    /* the words' hash by their address: a few languages at most */
    e->nwords = 0;
    for (size_t i = 0; i < s->npages && e->nwords < SITE_MD_WORDS_KNOWN; i++) {
        const md_words *w = s->pages[i].words;
        size_t k = 0;
        while (k < e->nwords && e->words_of[k] != w)
            k++;
        if (k == e->nwords) {
            e->words_of[k] = w;
            e->words_hash[k] = words_hash(HASH_SEED, w);
            e->nwords++;
        }
    }
}

uint64_t site_md_env_page(const site *s, const page *p, const site_md_env *e)
{
    uint64_t h = hash_mix(e->global, page_words_hash(e, p->words));
    h = hash_mix(h, site_page_cites(s, p) ? e->bib : 0);
    return add_str(h, site_csl_page_hash(s, p)); /* a .csl file the page names: its text */
}

void site_md_disk_begin(site_md_disk *m, const site *s, uint64_t env, int jobs, diag_list *d)
{
    if (!m)
        return;
    m->env = env;
    m->d = d;
    site_md_env_begin(s, &m->menv);
    load_heads(m, s, jobs);
}

/* The key of p's head: a record of its shard (below) is p's when its key
 * is this one, byte for byte. Binary, made without formatting: the
 * generation, the site's and the link environment's hashes, the words',
 * the bibliography's (for a page that may cite), the SHA-256 of the
 * page's bytes, its source path, and the hash of a .csl file it names. */

static void put64(unsigned char *o, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        o[i] = (unsigned char)(v >> (8 * i));
}

static void make_key(const site_md_disk *m, const site *s, const page *p, buf *key)
{
    /* the fixed part made in place, then added at once (a key is made
     * for every page of every build) */
    unsigned char fixed[KEY_FIXED];
    put64(fixed, m->generation);
    put64(fixed + 8, m->menv.global);
    put64(fixed + 16, m->env);
    put64(fixed + 24, page_words_hash(&m->menv, p->words));
    put64(fixed + 32, site_page_cites(s, p) ? m->menv.bib : 0);
    unsigned char *text = fixed + 40; /* the page's bytes, by their SHA-256 */
    if (p->text)
        cache_digest(p->text, p->text_len, text);
    else /* not read: the load stage's record of the file says (srcrec.c) */
        memcpy(text, p->digest, CACHE_DIGEST_LEN);
    buf_reset(key);
    buf_put(key, (const char *)fixed, sizeof fixed);
    buf_puts(key, p->src);
    buf_putc(key, 0);
    const char *style = site_csl_page_hash(s, p); /* a .csl file the page names: its text */
    if (*style)
        buf_puts(key, style);
}

/* ---- the value ------------------------------------------------------- */

/* Numbers: LEB128 (util/binrec.h): most are small, and every byte of
 * every head is read and authenticated by each build. */
static void w_u64(buf *b, uint64_t v) { binrec_put_u(b, v); }

/* A string, or NULL: its length + 1 (0 for NULL), then its bytes. */
static void w_strn(buf *b, const char *s, size_t n)
{
    w_u64(b, s ? (uint64_t)n + 1 : 0);
    if (s)
        buf_put(b, s, n);
}

/* A signed number (a line, a page's index or -1): zigzag, short when small. */
static void w_int(buf *b, int v) { binrec_put_i(b, v); }

static void w_str(buf *b, const char *s) { w_strn(b, s, s ? strlen(s) : 0); }

typedef struct reader {
    binrec_reader in;
    arena *a; /* what strings and arrays are copied into */
} reader;

/* A number: one byte (most are) inline, else binrec's reader. */
static inline uint64_t r_u64(reader *r)
{
    binrec_reader *in = &r->in;
    if (in->at < in->n && !(in->p[in->at] & 0x80) && !in->bad)
        return in->p[in->at++];
    return binrec_get_u(in);
}

static int r_int(reader *r)
{
    uint64_t u = r_u64(r);
    return (int)((int64_t)(u >> 1) ^ -(int64_t)(u & 1));
}

/* A count of items of at least `each` bytes that the rest can hold. */
static size_t r_count(reader *r, size_t each) { return binrec_fit(&r->in, r_u64(r), each); }

static const char *r_strn(reader *r, size_t *len)
{
    uint64_t v = r_u64(r);
    *len = 0;
    binrec_reader *in = &r->in;
    if (in->bad || !v)
        return NULL;
    if (v - 1 > in->n - in->at) {
        in->bad = true;
        return NULL;
    }
    size_t n = (size_t)(v - 1);
    char *s = arena_alloc(r->a, n + 1);
    memcpy(s, in->p + in->at, n);
    s[n] = 0;
    in->at += n;
    *len = n;
    return s;
}

static const char *r_str(reader *r)
{
    size_t n;
    return r_strn(r, &n);
}

static const char *r_str_nn(reader *r) /* a string that is never NULL */
{
    const char *s = r_str(r);
    return s ? s : "";
}

static void *r_array(reader *r, size_t n, size_t size)
{
    return n ? arena_calloc(r->a, n * size) : NULL;
}

static void write_value(buf *b, const page *p, uint64_t sc, size_t formulas, size_t diagrams)
{
    const md_result *md = &p->md;
    buf_puts(b, VALUE_MAGIC);
    w_u64(b, formulas);
    w_u64(b, diagrams);
    w_u64(b, sc);
    w_u64(b, md->has_more);
    w_u64(b, md->word_count);
    w_u64(b, md->cjk_count);
    w_u64(b, md->nheadings);
    for (size_t i = 0; i < md->nheadings; i++) {
        const md_heading *h = &md->headings[i];
        w_int(b, h->level);
        w_str(b, h->id);
        w_str(b, h->title);
        w_str(b, h->html);
        w_int(b, h->line);
    }
    w_u64(b, md->nanchors);
    for (size_t i = 0; i < md->nanchors; i++)
        w_str(b, md->anchors[i]);
    w_u64(b, md->nlinks);
    for (size_t i = 0; i < md->nlinks; i++) {
        const md_link *l = &md->links[i];
        w_str(b, l->dest);
        w_str(b, l->text);
        w_int(b, l->line);
        w_int(b, l->col);
        w_u64(b, l->image | (uint64_t)l->img_tag << 1 | (uint64_t)(l->img != NULL) << 2);
        if (l->img) {
            w_u64(b, l->img->width);
            w_u64(b, l->img->height);
            w_u64(b, l->img->lazy);
            w_str(b, l->img->srcset);
            w_str(b, l->img->sizes);
        }
    }
    w_u64(b, md->ncites);
    for (size_t i = 0; i < md->ncites; i++) {
        const md_cite *c = &md->cites[i];
        w_str(b, c->key);
        w_str(b, c->prefix);
        w_str(b, c->locator);
        w_u64(b, c->suppress_author | (uint64_t)c->narrative << 1);
        w_int(b, c->group);
        w_int(b, c->line);
        w_int(b, c->col);
        w_str(b, c->context);
    }
    w_u64(b, md->nshortcodes);
    for (size_t i = 0; i < md->nshortcodes; i++)
        w_str(b, md->shortcodes[i]);
    w_u64(b, md->nlabels);
    for (size_t i = 0; i < md->nlabels; i++) {
        const md_label *l = &md->labels[i];
        w_str(b, l->id);
        w_u64(b, (uint64_t)l->kind);
        w_str(b, l->number);
        w_str(b, l->text);
        w_int(b, l->line);
        w_int(b, l->col);
    }
    w_u64(b, md->nxlinks);
    for (size_t i = 0; i < md->nxlinks; i++) {
        w_u64(b, md->xlinks[i].link);
        w_u64(b, md->xlinks[i].at);
        w_u64(b, md->xlinks[i].summary_at);
    }
    w_u64(b, p->nlinks);
    for (size_t i = 0; i < p->nlinks; i++) {
        const link_rec *l = &p->links[i];
        w_u64(b, (uint64_t)l->kind);
        w_str(b, l->dest);
        w_str(b, l->text);
        w_str(b, l->anchor);
        w_str(b, l->missing_path);
        w_int(b, l->target);
        w_int(b, l->line);
        w_int(b, l->col);
        w_int(b, l->image);
        w_str(b, l->image_error);
        w_str(b, l->url);
        w_u64(b, l->img_tag | (uint64_t)l->image_key << 1);
    }
    /* the CSL bibliography, [[key, html], …]: its length + 1, 0 for none */
    const tpl_list *bib = p->csl_bib.kind == TPL_LIST ? p->csl_bib.u.list : NULL;
    w_u64(b, bib ? (uint64_t)bib->len + 1 : 0);
    for (size_t i = 0; bib && i < bib->len; i++) {
        const tpl_list *kv = bib->items[i].u.list;
        w_strn(b, kv->items[0].u.s, kv->items[0].len);
        w_strn(b, kv->items[1].u.s, kv->items[1].len);
    }
    /* the bulk: where it is, and what the model's stand-ins name */
    const site_bulk *k = p->bulk;
    w_strn(b, (const char *)k->id, sizeof k->id);
    w_u64(b, k->search);
    w_u64(b, k->html_len + 1); /* SITE_BULK_NONE: 0 */
    w_u64(b, k->summary_len + 1);
    w_u64(b, k->keys_len + 1);
    w_u64(b, k->text_len + 1);
    w_u64(b, k->html_hash);
    w_u64(b, k->summary_hash);
    w_strn(b, p->search_excerpt, p->search_excerpt_len);
}

static size_t r_len(reader *r)
{
    uint64_t v = r_u64(r);
    if (v > CACHE_ENTRY_MAX + 1)
        r->in.bad = true;
    return v ? (size_t)(v - 1) : SITE_BULK_NONE;
}

static size_t part(size_t n) { return n == SITE_BULK_NONE ? 0 : n + 1; }

/* The bytes of a bulk part's four strings, each with its NUL. */
static size_t bulk_room(const site_bulk *k)
{
    return part(k->summary_len) + part(k->html_len) + part(k->keys_len) + part(k->text_len);
}

/* Reads a value into p; false when it is not one (then p is untouched). */
static bool read_value(reader *r, const site *s, page *p, uint64_t *sc, size_t *formulas,
                       size_t *diagrams)
{
    if (r->in.n < 4 || memcmp(r->in.p, VALUE_MAGIC, 4) != 0)
        return false;
    r->in.at = 4;
    md_result md;
    memset(&md, 0, sizeof md);
    *formulas = (size_t)r_u64(r);
    *diagrams = (size_t)r_u64(r);
    *sc = r_u64(r);
    md.has_more = r_u64(r) != 0;
    md.word_count = (size_t)r_u64(r);
    md.cjk_count = (size_t)r_u64(r);
    md.nheadings = r_count(r, 5);
    md.headings = r_array(r, md.nheadings, sizeof *md.headings);
    for (size_t i = 0; i < md.nheadings && !r->in.bad; i++) {
        md_heading *h = &md.headings[i];
        h->level = r_int(r);
        h->id = r_str_nn(r);
        h->title = r_str_nn(r);
        h->html = r_str_nn(r);
        h->line = r_int(r);
    }
    md.nanchors = r_count(r, 1);
    md.anchors = r_array(r, md.nanchors, sizeof *md.anchors);
    for (size_t i = 0; i < md.nanchors && !r->in.bad; i++)
        md.anchors[i] = r_str_nn(r);
    md.nlinks = r_count(r, 5);
    md.links = r_array(r, md.nlinks, sizeof *md.links);
    for (size_t i = 0; i < md.nlinks && !r->in.bad; i++) {
        md_link *l = &md.links[i];
        l->dest = r_str_nn(r);
        l->text = r_str_nn(r);
        l->line = r_int(r);
        l->col = r_int(r);
        uint64_t bits = r_u64(r);
        l->image = bits & 1;
        l->img_tag = (bits >> 1) & 1;
        if (bits & 4) {
            l->img = arena_calloc(r->a, sizeof *l->img);
            l->img->width = (unsigned)r_u64(r);
            l->img->height = (unsigned)r_u64(r);
            l->img->lazy = r_u64(r) != 0;
            l->img->srcset = r_str(r);
            l->img->sizes = r_str(r);
        }
    }
    md.ncites = r_count(r, 9);
    md.cites = r_array(r, md.ncites, sizeof *md.cites);
    for (size_t i = 0; i < md.ncites && !r->in.bad; i++) {
        md_cite *c = &md.cites[i];
        c->key = r_str_nn(r);
        c->prefix = r_str_nn(r);
        c->locator = r_str_nn(r);
        uint64_t bits = r_u64(r);
        c->suppress_author = bits & 1;
        c->narrative = (bits >> 1) & 1;
        c->group = r_int(r);
        c->line = r_int(r);
        c->col = r_int(r);
        c->context = r_str_nn(r);
    }
    md.nshortcodes = r_count(r, 1);
    md.shortcodes = r_array(r, md.nshortcodes, sizeof *md.shortcodes);
    for (size_t i = 0; i < md.nshortcodes && !r->in.bad; i++)
        md.shortcodes[i] = r_str_nn(r);
    md.nlabels = r_count(r, 6);
    md.labels = r_array(r, md.nlabels, sizeof *md.labels);
    for (size_t i = 0; i < md.nlabels && !r->in.bad; i++) {
        md_label *l = &md.labels[i];
        l->id = r_str_nn(r);
        uint64_t k = r_u64(r);
        l->kind = k < MD_LABEL_KINDS ? (md_label_kind)k : (r->in.bad = true, (md_label_kind)0);
        l->number = r_str_nn(r);
        l->text = r_str_nn(r);
        l->line = r_int(r);
        l->col = r_int(r);
    }
    md.nxlinks = r_count(r, 3);
    md.xlinks = r_array(r, md.nxlinks, sizeof *md.xlinks);
    for (size_t i = 0; i < md.nxlinks && !r->in.bad; i++) {
        md.xlinks[i].link = (size_t)r_u64(r);
        md.xlinks[i].at = (size_t)r_u64(r);
        md.xlinks[i].summary_at = (size_t)r_u64(r);
        if (md.xlinks[i].link >= md.nlinks)
            r->in.bad = true;
    }
    size_t nrec = r_count(r, 12);
    link_rec *recs = r_array(r, nrec, sizeof *recs);
    for (size_t i = 0; i < nrec && !r->in.bad; i++) {
        link_rec *l = &recs[i];
        uint64_t k = r_u64(r);
        if (k > LINK_MISSING)
            r->in.bad = true;
        l->kind = (link_kind)k;
        l->dest = r_str(r);
        l->text = r_str(r);
        l->anchor = r_str(r);
        l->missing_path = r_str(r);
        l->target = r_int(r);
        l->line = r_int(r);
        l->col = r_int(r);
        l->image = r_int(r);
        l->image_error = r_str(r);
        l->url = r_str(r);
        uint64_t bits = r_u64(r);
        l->img_tag = bits & 1;
        l->image_key = (bits >> 1) & 1;
        if (l->target >= (int)s->npages || l->image >= (int)s->nfiles)
            r->in.bad = true;
    }
    tpl_value csl_bib = tpl_none();
    uint64_t nbib = r_u64(r);
    if (nbib && !r->in.bad) {
        if (nbib - 1 > (r->in.n - r->in.at) / 2) {
            r->in.bad = true;
        } else {
            tpl_list *bib = tpl_list_new(r->a, (size_t)(nbib - 1));
            for (size_t i = 0; i < bib->len && !r->in.bad; i++) {
                tpl_list *kv = tpl_list_new(r->a, 2);
                for (size_t k = 0; k < 2; k++) {
                    size_t len;
                    const char *t = r_strn(r, &len);
                    if (!t)
                        r->in.bad = true;
                    kv->items[k] = tpl_strn(t ? t : "", len);
                }
                bib->items[i] = tpl_list_value(kv);
            }
            csl_bib = tpl_list_value(bib);
        }
    }
    site_bulk *k = arena_calloc(r->a, sizeof *k);
    size_t idn;
    const char *id = r_strn(r, &idn);
    if (!id || idn != sizeof k->id)
        r->in.bad = true;
    else
        memcpy(k->id, id, sizeof k->id);
    k->cached = true;
    k->search = r_u64(r) != 0;
    k->html_len = r_len(r);
    k->summary_len = r_len(r);
    k->keys_len = r_len(r);
    k->text_len = r_len(r);
    k->html_hash = r_u64(r);
    k->summary_hash = r_u64(r);
    size_t exn;
    const char *ex = r_strn(r, &exn);
    if (r->in.bad || r->in.at != r->in.n)
        return false;
    p->bulk = k;
    p->search_excerpt = ex;
    p->search_excerpt_len = exn;
    p->md = md;
    p->csl_bib = csl_bib;
    p->links = recs;
    p->nlinks = nrec;
    return true;
}

typedef struct check_ctx {
    const site *s;
    arena *a;
    int got;
} check_ctx;

static bool check_head(void *vctx, size_t start, size_t end, uint64_t hint, const char *key,
                       size_t klen, const char *value, size_t vlen)
{
    (void)start, (void)end, (void)hint, (void)key, (void)klen;
    check_ctx *x = vctx;
    reader r = { binrec_reader_of(value, vlen), x->a };
    page p;
    memset(&p, 0, sizeof p);
    uint64_t sc;
    size_t formulas, diagrams;
    if (read_value(&r, x->s, &p, &sc, &formulas, &diagrams))
        x->got++;
    return true; /* a value that does not read back is the page's alone */
}

int site_md_heads_check(const void *value, size_t n, arena *a)
{
    /* link records name pages and files by number: any of these fits */
    site s;
    memset(&s, 0, sizeof s);
    s.npages = s.nfiles = (size_t)1 << 20;
    check_ctx x = { &s, a, 0 };
    size_t count;
    return heads_walk(value, n, &count, check_head, &x) ? x.got : -1;
}

#define BULK_KEY_HEAD "sheaf-md-bulk 2\n"

/* The key of a bulk part: its name, which only the head that names it knows. */
static void bulk_key(const site_bulk *k, char out[64])
{
    static const char digits[] = "0123456789abcdef";
    memcpy(out, BULK_KEY_HEAD, sizeof BULK_KEY_HEAD - 1);
    char *o = out + sizeof BULK_KEY_HEAD - 1;
    for (size_t i = 0; i < sizeof k->id; i++) {
        *o++ = digits[k->id[i] >> 4];
        *o++ = digits[k->id[i] & 15];
    }
    *o = 0;
}

bool site_md_disk_take(site_md_disk *m, site *s, page *p, arena *a, buf *key,
                       size_t *formulas, size_t *diagrams)
{
    if (!m || !m->slots || (!p->text && !p->has_digest))
        return false;
    size_t i = (size_t)(p - s->pages);
    if (i >= m->nslots)
        return false;
    make_key(m, s, p, key);
    head_slot *sl = &m->slots[i];
    if (!sl->old)
        return false;
    binrec_reader in = binrec_reader_of(sl->old, sl->old_len);
    uint64_t hint;
    const char *hk, *hv;
    size_t kl, vl;
    if (!head_at(&in, &hint, &hk, &kl, &hv, &vl) || kl != key->len || memcmp(hk, key->data, kl) != 0)
        return false; /* another page's, or this page's of other inputs */
    reader r = { binrec_reader_of(hv, vl), a };
    page q = *p;
    uint64_t sc;
    if (!read_value(&r, s, &q, &sc, formulas, diagrams)) {
        atomic_fetch_add(&m->damaged, 1);
        return false;
    }
    if (site_shortcode_env(s, 0, &q.md) != sc)
        return false;
    *p = q;
    sl->used = true;
    if (p->csl_bib.kind == TPL_LIST)
        site_csl_page_cached(s, p);
    site_bulk *k = p->bulk;
    k->body_len = p->body.len;
    k->slot = site_spill_reserve(s, bulk_room(k)); /* written there if read */
    char bk[64];
    bulk_key(k, bk);
    cache_touch(m->c, BULK_KIND, bk, sizeof BULK_KEY_HEAD - 1 + 2 * sizeof k->id); /* kept by a trim */
    atomic_fetch_add(&m->hits, 1);
    atomic_fetch_add(&m->bytes, bulk_room(k) + 64);
    return true;
}

/* The bulk part's value: the four strings, in this order. */
static void write_bulk(buf *b, const char *summary, size_t sn, const char *html, size_t hn,
                       const char *keys, size_t kn, const char *text, size_t tn)
{
    buf_puts(b, BULK_MAGIC);
    w_strn(b, summary, sn);
    w_strn(b, html, hn);
    w_strn(b, keys, kn);
    w_strn(b, text, tn);
}

void site_md_disk_keep(site_md_disk *m, site *s, const page *p, const buf *key,
                       size_t formulas, size_t diagrams)
{
    site_bulk *k = p->bulk;
    if (!m || !m->write || !m->slots || !key->len || p->md.nproblems || p->failed || !k)
        return;
    size_t i = (size_t)(p - s->pages);
    if (i >= m->nslots)
        return;
    /* named by the head's key (and this sheaf and site): the same inputs
     * give the same name, so a page written again replaces its part
     * instead of leaving one behind */
    buf named = BUF_INIT;
    buf_puts(&named, m->binary);
    buf_putc(&named, 0);
    buf_puts(&named, m->site);
    buf_putc(&named, 0);
    buf_put(&named, key->data, key->len);
    unsigned char d[CACHE_DIGEST_LEN];
    cache_digest(named.data, named.len, d);
    buf_release(&named);
    memcpy(k->id, d, sizeof k->id);
    buf bv = BUF_INIT, v = BUF_INIT, rec = BUF_INIT;
    write_bulk(&bv, p->md.summary_html, p->md.summary_len, p->md.html, p->md.html_len, p->search_keys,
               p->search_keys_len, p->search_text, p->search_text_len);
    write_value(&v, p, site_shortcode_env(s, 0, &p->md), formulas, diagrams);
    binrec_put_u(&rec, i);
    binrec_put_bytes(&rec, key->data, key->len);
    binrec_put_bytes(&rec, v.data, v.len);
    char bk[64];
    bulk_key(k, bk);
    if (rec.len < CACHE_ENTRY_MAX / HEAD_SHARDS && bv.len + strlen(bk) < CACHE_ENTRY_MAX) {
        opening(m);
        /* the bulk now, its head in its shard at site_md_disk_end: a head
         * is never there without its part (but for a trim, or a damaged
         * disk: then the page is made again) */
        cache_put(m->c, BULK_KIND, bk, strlen(bk), bv.data, bv.len);
        /* its head in the spill file until site_md_disk_end, else in
         * memory (≈ 1.3 KB a page: 126 MB at 100,000 pages written) */
        if ((m->slots[i].fresh_at = site_spill_put(s, rec.data, rec.len)))
            m->slots[i].fresh_len = rec.len;
        else
            m->slots[i].fresh = buf_detach(&rec, &m->slots[i].fresh_len);
        atomic_fetch_add(&m->stored, 1);
        atomic_fetch_add(&m->bytes, strlen(bk) + bv.len);
    }
    buf_release(&rec);
    buf_release(&bv);
    buf_release(&v);
}

/* ---- the bulk, read when first used (site/bulk.h) --------------------- */

/* The four strings (NULL for a missing one) into the room at place (the
 * spill file: one write), else into m->late; out[i] where each is now. */
static void settle(site_md_disk *m, const site *s, size_t place, const char *const t[4],
                   const size_t n[4], const char *out[4])
{
    buf all = BUF_INIT;
    size_t at[4];
    for (int i = 0; i < 4; i++) {
        at[i] = all.len;
        if (t[i]) {
            buf_put(&all, t[i], n[i]);
            buf_putc(&all, 0);
        }
    }
    const char *base = NULL;
    if (!all.len) {
        /* nothing */
    } else if (place && site_spill_write(s, place, all.data, all.len - 1)) {
        base = site_spill_at(s, place);
    } else {
        pthread_mutex_lock(&m->mu);
        if (!m->late)
            m->late = arena_new();
        char *r = arena_alloc(m->late, all.len);
        memcpy(r, all.data, all.len);
        pthread_mutex_unlock(&m->mu);
        base = r;
    }
    for (int i = 0; i < 4; i++)
        out[i] = t[i] ? base + at[i] : NULL;
    buf_release(&all);
}

static bool same_len(size_t want, const char *t, size_t n)
{
    return want == SITE_BULK_NONE ? t == NULL : t != NULL && n == want;
}

void site_md_disk_bulk(site_md_disk *m, const site *s, page *p)
{
    site_bulk *k = p->bulk;
    const char *t[4] = { NULL, NULL, NULL, NULL };
    size_t n[4] = { 0, 0, 0, 0 };
    buf v = BUF_INIT;
    buf again[4] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
    bool got[4] = { false, false, false, false };
    bool ok = false;
    if (m && k) {
        char bk[64];
        bulk_key(k, bk);
        bool there = cache_get(m->c, BULK_KIND, bk, strlen(bk), &v);
        if (there && v.len >= 4 && !memcmp(v.data, BULK_MAGIC, 4)) {
            binrec_reader in = binrec_reader_of(v.data, v.len);
            in.at = 4;
            for (int i = 0; i < 4; i++) {
                uint64_t len = binrec_get_u(&in);
                if (in.bad || !len)
                    continue;
                t[i] = binrec_get_raw(&in, binrec_fit(&in, len - 1, 1));
                n[i] = t[i] ? (size_t)(len - 1) : 0;
            }
            ok = binrec_done(&in) && same_len(k->summary_len, t[0], n[0]) &&
                 same_len(k->html_len, t[1], n[1]) && same_len(k->keys_len, t[2], n[2]) &&
                 same_len(k->text_len, t[3], n[3]);
        }
        if (!ok) {
            /* missing (trimmed), cut short or changed (the cache counts
             * those as damaged), or checked but not what its head says
             * (counted here): made again from the source, and stored again */
            if (there)
                atomic_fetch_add(&m->damaged, 1);
            ok = site_page_bulk_again(s, p, k->body_len, again, got, m->d);
            for (int i = 0; i < 4; i++) {
                t[i] = ok && got[i] ? again[i].data : NULL;
                n[i] = t[i] ? again[i].len : 0;
            }
            if (ok && m->write) {
                buf bv = BUF_INIT;
                write_bulk(&bv, t[0], n[0], t[1], n[1], t[2], n[2], t[3], n[3]);
                cache_put(m->c, BULK_KIND, bk, strlen(bk), bv.data, bv.len);
                buf_release(&bv);
            }
            if (ok && !(same_len(k->summary_len, t[0], n[0]) && same_len(k->html_len, t[1], n[1]) &&
                        same_len(k->keys_len, t[2], n[2]) && same_len(k->text_len, t[3], n[3])))
                k->slot = 0; /* not the room reserved: in memory */
        }
    }
    const char *at[4];
    settle(m, s, ok ? k->slot : 0, t, n, at);
    p->md.summary_html = at[0];
    p->md.summary_len = at[0] ? n[0] : 0;
    p->md.html = at[1];
    p->md.html_len = at[1] ? n[1] : 0;
    p->search_keys = at[2];
    p->search_keys_len = at[2] ? n[2] : 0;
    p->search_text = at[3];
    p->search_text_len = at[3] ? n[3] : 0;
    if (!ok) { /* said as an error (site_page_bulk_again): the build fails */
        p->md.html = p->md.summary_html = "";
        p->md.html_len = p->md.summary_len = 0;
    }
    buf_release(&v);
    for (int i = 0; i < 4; i++)
        buf_release(&again[i]);
}
