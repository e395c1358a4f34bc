/* cache: see cache.h. An entry is one file,
 * `.sheaf-cache/v1/<kind>/<2 hex>/<30 hex>`, the 32 hex digits being a
 * 128-bit hash of (kind, key). The file is
 *
 *   "SHC2" | key length (u32) | value length (u32) | MAC (32 bytes) | key | value
 *
 * (integers little-endian), the MAC an HMAC-SHA256 of kind, key and value
 * under the cache's secret, `.sheaf-cache/v1/.key` (32 random bytes, mode
 * 0600, made with the cache). A read checks all of it; anything else is a
 * miss. Writes go to `.tmp-<name>-<pid>-<n>` in the same folder and are
 * renamed into place.
 *
 * The cache is input like any file of the site: a repository can hold a
 * `.sheaf-cache/` (git stores links too), and whoever can write a file
 * there could put a value in a page. So an entry whose MAC does not check
 * is a miss — an entry edited with its checksum recomputed too — and a
 * secret sheaf did not make (not 0600, another owner: what git or a copy
 * leaves) is replaced, which turns every entry made with it into a miss;
 * an entry that is not a regular file is a miss; a cache folder that is a
 * symbolic link, or holds one, is not used at all (the build would write
 * through it); and the caller still checks that a value is what its kind
 * can be (site/math.c: MathML of the allowed elements only). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/random.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <nettle/memops.h>

#include "cache/cache.h"
#include "util/fs.h"
#include "util/hash.h" /* the entries' names */
#include "util/xalloc.h"
#include "util/vec.h"

#define MAGIC "SHC2"
#define MAC_LEN SHA256_DIGEST_SIZE
#define HEADER (12 + MAC_LEN)
#define SECRET_LEN 32
#define SECRET_NAME ".key"
#define NAME_HEX 32
/* A temporary file older than this is left from a killed build. */
#define STALE_TMP_SECONDS 600

struct cache {
    char *root; /* <site>/.sheaf-cache/v1 */
    size_t max;
    atomic_size_t extra;  /* cache_keep_extra: room beyond max */
    pthread_mutex_t mu;
    char *problem;        /* first write problem */
    atomic_bool broken;   /* stop writing */
    atomic_bool read_only;
    atomic_size_t hits, misses, writes, written_bytes, tmp_seq, damaged;
    size_t trimmed_at;    /* written_bytes when last trimmed or added to the ledger */
    atomic_size_t walks;  /* trims that walked the cache */
    size_t kept_over;     /* under mu: what the last trim kept over the limit, all of it used */
    uint64_t *used;       /* set of the first halves of names read or written */
    size_t used_n, used_cap;
    atomic_bool refused;  /* a symbolic link in the cache's folders: not used */
    atomic_bool made_secret; /* this process made the secret (new, or replacing one not sheaf's) */
    bool have_secret;     /* under mu: */
    /* the HMAC keyed with the secret once (its inner and outer hashes of
     * the key), copied for each entry: keying it per entry cost two of
     * SHA-256's blocks an entry, as much as a small entry's own */
    struct hmac_sha256_ctx keyed;
};

static void fail_locked(cache *c, const char *what, const char *path, int err);

/* Whether path is no symbolic link; *dir says whether it is a folder (a
 * file there makes writing fail later, with its own message). */
static bool real_dir(const char *path, bool *dir)
{
    struct stat st;
    *dir = false;
    if (lstat(path, &st) != 0)
        return true;
    *dir = S_ISDIR(st.st_mode);
    return !S_ISLNK(st.st_mode);
}

/* The folders the cache writes into, down to the shards, are folders of
 * their own: a link at any level (`.sheaf-cache -> ~`, `v1/math ->
 * /etc`) would make a write or a trim land at its target. Returns the
 * first offending path (caller frees), or NULL. */
static char *find_link(const char *top, const char *root)
{
    bool dir;
    if (!real_dir(top, &dir))
        return xstrdup(top);
    if (!dir)
        return NULL;
    if (!real_dir(root, &dir))
        return xstrdup(root);
    if (!dir)
        return NULL;
    char *bad = NULL;
    DIR *d = opendir(root);
    struct dirent *k;
    while (d && !bad && (k = readdir(d)) != NULL) {
        if (!strcmp(k->d_name, ".") || !strcmp(k->d_name, ".."))
            continue;
        char *kd = fs_join(root, k->d_name);
        struct stat st;
        if (lstat(kd, &st) != 0) {
            free(kd);
            continue;
        }
        if (S_ISLNK(st.st_mode)) {
            bad = kd;
            break;
        }
        DIR *sd = S_ISDIR(st.st_mode) ? opendir(kd) : NULL;
        struct dirent *e;
        while (sd && !bad && (e = readdir(sd)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if (e->d_type == DT_DIR || e->d_type == DT_REG)
                continue; /* the folder says what it is: no lstat of each of a kind's 256 shards */
            char *p = fs_join(kd, e->d_name);
            if (e->d_type == DT_LNK || (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)))
                bad = p;
            else
                free(p);
        }
        if (sd)
            closedir(sd);
        free(kd);
    }
    if (d)
        closedir(d);
    return bad;
}

cache *cache_open(const char *site_dir, size_t max_bytes)
{
    cache *c = xcalloc(1, sizeof *c);
    buf b = BUF_INIT;
    buf_printf(&b, "%s/%s/v1", site_dir && *site_dir ? site_dir : ".", CACHE_DIR);
    c->root = buf_detach(&b, NULL);
    c->max = max_bytes ? max_bytes : CACHE_DEFAULT_MAX;
    const char *env = max_bytes ? NULL : getenv("SHEAF_CACHE_MAX");
    if (env && *env) { /* the tests' small limit, in bytes */
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (!*end && v > 0 && v <= SIZE_MAX)
            c->max = (size_t)v;
    }
    pthread_mutex_init(&c->mu, NULL);
    char *top = fs_join(site_dir && *site_dir ? site_dir : ".", CACHE_DIR);
    char *bad = find_link(top, c->root);
    if (bad) {
        atomic_store(&c->refused, true);
        atomic_store(&c->broken, true);
        buf b = BUF_INIT;
        buf_printf(&b, "%s is a symbolic link: sheaf never reads or writes its cache through one "
                       "(remove it)", bad);
        c->problem = buf_detach(&b, NULL);
        free(bad);
    }
    free(top);
    return c;
}

void cache_free(cache *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    free(c->root);
    free(c->problem);
    free(c->used);
    free(c);
}

void cache_read_only(cache *c)
{
    if (c)
        atomic_store(&c->read_only, true);
}

const char *cache_problem(cache *c)
{
    if (!c)
        return NULL;
    pthread_mutex_lock(&c->mu);
    const char *p = c->problem;
    pthread_mutex_unlock(&c->mu);
    return p;
}

void cache_digest(const void *p, size_t n, unsigned char out[CACHE_DIGEST_LEN])
{
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, n, p);
    sha256_digest(&h, CACHE_DIGEST_LEN, out);
}

cache_stats cache_get_stats(cache *c)
{
    cache_stats s = { 0 };
    if (c) {
        s.hits = atomic_load(&c->hits);
        s.misses = atomic_load(&c->misses);
        s.writes = atomic_load(&c->writes);
        s.damaged = atomic_load(&c->damaged);
        s.walks = atomic_load(&c->walks);
        pthread_mutex_lock(&c->mu);
        s.kept_over = c->kept_over;
        pthread_mutex_unlock(&c->mu);
    }
    return s;
}

/* ---- names ---- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

typedef struct name {
    uint64_t h1, h2;
} name;

static name key_name(const char *kind, const void *key, size_t klen)
{
    uint64_t a = hash_add(hash_add(HASH_SEED, kind, strlen(kind) + 1), key, klen);
    /* a second, independent 64 bits: another basis, lengths mixed in */
    uint64_t b = 0x6c62272e07bb0142ull ^ (uint64_t)klen;
    const unsigned char *p = key;
    for (size_t i = 0; i < klen; i++)
        b = (b ^ p[i]) * 0x100000001b3ull ^ (b >> 29);
    b = hash_add(b, kind, strlen(kind));
    return (name){ mix(a), mix(b ^ a) };
}

static bool kind_ok(const char *kind)
{
    if (!kind || !*kind || strlen(kind) > 32)
        return false;
    for (const char *k = kind; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '-' || *k == '_'))
            return false;
    return true;
}

/* "<root>/<kind>/ab" and, when file, "/cdef…" */
static void entry_path(const cache *c, const char *kind, name n, bool file, buf *out)
{
    char hex[NAME_HEX + 1];
    snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)n.h1, (unsigned long long)n.h2);
    buf_printf(out, "%s/%s/%.2s", c->root, kind, hex);
    if (file)
        buf_printf(out, "/%s", hex + 2);
}

/* ---- the secret ---- */

/* Called with mu. */
static void set_secret(cache *c, const unsigned char *secret)
{
    hmac_sha256_set_key(&c->keyed, SECRET_LEN, secret);
    c->have_secret = true;
}

/* Reads the secret into c when it is one sheaf made: a regular file of
 * SECRET_LEN bytes, this user's, readable by no one else. Called with mu. */
static bool read_secret(cache *c, const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
        st.st_size != SECRET_LEN)
        return false;
    buf b = BUF_INIT;
    bool ok = fs_read_file_max(path, SECRET_LEN, &b) && b.len == SECRET_LEN;
    if (ok)
        set_secret(c, (const unsigned char *)b.data);
    buf_release(&b);
    return ok;
}

/* The secret, read or (create: before the first write) made. A secret that
 * is not sheaf's is replaced. Called with mu; false when there is none. */
static bool get_secret(cache *c, bool create)
{
    if (c->have_secret)
        return true;
    buf path = BUF_INIT, tmp = BUF_INIT;
    buf_printf(&path, "%s/%s", c->root, SECRET_NAME);
    bool ok = read_secret(c, path.data);
    if (!ok && create) {
        unsigned char r[SECRET_LEN];
        size_t got = 0;
        while (got < SECRET_LEN) {
            ssize_t n = getrandom(r + got, SECRET_LEN - got, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        buf_printf(&tmp, "%s/.tmp-key-%ld", c->root, (long)getpid());
        int fd = -1;
        if (got == SECRET_LEN && !fs_mkdirs(c->root)) {
            fail_locked(c, "make", c->root, errno);
            got = 0;
        } else if (got == SECRET_LEN) {
            unlink(tmp.data);
            fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        }
        bool written = fd >= 0 && write(fd, r, SECRET_LEN) == SECRET_LEN;
        if (fd >= 0 && close(fd) != 0)
            written = false;
        struct stat st;
        bool theirs = lstat(path.data, &st) == 0; /* replaced, not raced for */
        if (written && (theirs ? rename(tmp.data, path.data) == 0 : link(tmp.data, path.data) == 0)) {
            set_secret(c, r);
            ok = true;
            atomic_store(&c->made_secret, true); /* the entries made before miss: not damage */
        } else if (written && errno == EEXIST) {
            ok = read_secret(c, path.data); /* another build made it first */
        }
        if (!ok && got == SECRET_LEN)
            fail_locked(c, "make", path.data, errno ? errno : EIO);
        unlink(tmp.data);
    }
    buf_release(&path);
    buf_release(&tmp);
    return ok;
}

static void mac(const cache *c, const char *kind, const void *key, size_t klen, const void *v, size_t vlen,
                unsigned char out[MAC_LEN])
{
    struct hmac_sha256_ctx h = c->keyed; /* set before have_secret, under mu; never changed after */
    hmac_sha256_update(&h, strlen(kind) + 1, (const uint8_t *)kind);
    unsigned char kl[4];
    for (int i = 0; i < 4; i++)
        kl[i] = (unsigned char)((uint32_t)klen >> (8 * i));
    hmac_sha256_update(&h, 4, kl);
    hmac_sha256_update(&h, klen, key);
    hmac_sha256_update(&h, vlen, v);
    hmac_sha256_digest(&h, MAC_LEN, out);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* ---- the set of names this process used ---- */

static void mark_used(cache *c, uint64_t h)
{
    if (!h)
        h = 1;
    pthread_mutex_lock(&c->mu);
    if ((c->used_n + 1) * 2 > c->used_cap) {
        size_t cap = c->used_cap ? c->used_cap * 2 : 256;
        uint64_t *v = xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < c->used_cap; i++) {
            uint64_t x = c->used[i];
            if (!x)
                continue;
            size_t k = x & (cap - 1);
            while (v[k])
                k = (k + 1) & (cap - 1);
            v[k] = x;
        }
        free(c->used);
        c->used = v;
        c->used_cap = cap;
    }
    size_t k = h & (c->used_cap - 1);
    while (c->used[k] && c->used[k] != h)
        k = (k + 1) & (c->used_cap - 1);
    if (!c->used[k]) {
        c->used[k] = h;
        c->used_n++;
    }
    pthread_mutex_unlock(&c->mu);
}

/* Called with c->mu held. */
static bool was_used(const cache *c, uint64_t h)
{
    if (!h)
        h = 1;
    if (!c->used_cap)
        return false;
    for (size_t k = h & (c->used_cap - 1); c->used[k]; k = (k + 1) & (c->used_cap - 1))
        if (c->used[k] == h)
            return true;
    return false;
}

/* ---- get / put ---- */

bool cache_get(cache *c, const char *kind, const void *key, size_t klen, buf *out)
{
    if (!c || !kind_ok(kind) || atomic_load(&c->refused))
        return false;
    pthread_mutex_lock(&c->mu);
    bool keyed = get_secret(c, false);
    pthread_mutex_unlock(&c->mu);
    name n = key_name(kind, key, klen);
    buf path = BUF_INIT, data = BUF_INIT;
    entry_path(c, kind, n, true, &path);
    bool hit = false;
    /* a link (to /dev/zero, to a file elsewhere) is there, and no entry */
    bool there = false;
    if (keyed && fs_read_file_placed(path.data, CACHE_ENTRY_MAX, &data, &there) && data.len >= HEADER &&
        !memcmp(data.data, MAGIC, 4)) {
        const unsigned char *p = (const unsigned char *)data.data;
        size_t kl = get_u32(p + 4), vl = get_u32(p + 8);
        unsigned char want[MAC_LEN];
        if (kl == klen && HEADER + kl + vl == data.len && !memcmp(p + HEADER, key, klen)) {
            mac(c, kind, key, klen, p + HEADER + kl, vl, want);
            if (memeql_sec(want, p + 12, MAC_LEN)) {
                if (!out->len) { /* the value moved to the front of the bytes read: no copy */
                    memmove(data.data, data.data + HEADER + kl, vl);
                    data.len = vl;
                    data.data[vl] = 0;
                    buf_release(out);
                    *out = data;
                    data = (buf)BUF_INIT;
                } else {
                    buf_put(out, (const char *)p + HEADER + kl, vl);
                }
                hit = true;
            }
        }
    }
    buf_release(&path);
    buf_release(&data);
    atomic_fetch_add(hit ? &c->hits : &c->misses, 1);
    /* cut short, edited, another key's (a hash collision), not a file */
    if (there && !hit && !atomic_load(&c->made_secret))
        atomic_fetch_add(&c->damaged, 1);
    if (hit)
        mark_used(c, n.h1);
    return hit;
}

void cache_touch(cache *c, const char *kind, const void *key, size_t klen)
{
    if (!c || !kind_ok(kind) || atomic_load(&c->refused))
        return;
    mark_used(c, key_name(kind, key, klen).h1);
}

uint64_t cache_use_id(const char *kind, const void *key, size_t klen)
{
    return kind_ok(kind) ? key_name(kind, key, klen).h1 : 0;
}

void cache_touch_id(cache *c, uint64_t id)
{
    if (c && id && !atomic_load(&c->refused))
        mark_used(c, id);
}

/* fail, called with mu held */
static void fail_locked(cache *c, const char *what, const char *path, int err)
{
    atomic_store(&c->broken, true);
    if (!c->problem) {
        buf b = BUF_INIT;
        buf_printf(&b, "cannot %s %s: %s", what, path, strerror(err));
        c->problem = buf_detach(&b, NULL);
    }
}

static void fail(cache *c, const char *what, const char *path, int err)
{
    pthread_mutex_lock(&c->mu);
    fail_locked(c, what, path, err);
    pthread_mutex_unlock(&c->mu);
}

/* Writes all of data to fd; false with errno set. */
static bool write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

void cache_put(cache *c, const char *kind, const void *key, size_t klen, const void *value,
               size_t vlen)
{
    if (!c || !kind_ok(kind) || atomic_load(&c->broken) || atomic_load(&c->read_only) ||
        klen > CACHE_ENTRY_MAX || vlen > CACHE_ENTRY_MAX - HEADER - klen)
        return;
    pthread_mutex_lock(&c->mu);
    bool keyed = get_secret(c, true);
    pthread_mutex_unlock(&c->mu);
    if (!keyed)
        return;
    name n = key_name(kind, key, klen);
    mark_used(c, n.h1);
    buf dir = BUF_INIT, path = BUF_INIT, tmp = BUF_INIT;
    entry_path(c, kind, n, false, &dir);
    entry_path(c, kind, n, true, &path);
    buf_printf(&tmp, "%s/.tmp-%s-%ld-%zu", dir.data, strrchr(path.data, '/') + 1, (long)getpid(),
               atomic_fetch_add(&c->tmp_seq, 1));
    unsigned char head[HEADER];
    memcpy(head, MAGIC, 4);
    put_u32(head + 4, (uint32_t)klen);
    put_u32(head + 8, (uint32_t)vlen);
    mac(c, kind, key, klen, value, vlen, head + 12);
    int fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
        if (!fs_mkdirs(dir.data)) {
            fail(c, "make", dir.data, errno);
            goto out;
        }
        fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        fail(c, "write", tmp.data, errno);
        goto out;
    }
    bool ok = write_all(fd, head, HEADER) && write_all(fd, key, klen) && write_all(fd, value, vlen);
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        unlink(tmp.data);
        fail(c, "write", tmp.data, err);
        goto out;
    }
    if (rename(tmp.data, path.data) != 0) {
        err = errno;
        unlink(tmp.data);
        fail(c, "write", path.data, err);
        goto out;
    }
    atomic_fetch_add(&c->writes, 1);
    atomic_fetch_add(&c->written_bytes, HEADER + klen + vlen);
out:
    buf_release(&dir);
    buf_release(&path);
    buf_release(&tmp);
}

/* ---- trim ----
 *
 * The ledger, `.sheaf-cache/v1/.ledger`, holds the bytes written since the
 * last trim and the size of the cache that trim left (decimal, one space
 * between; a ledger of the first number only has no size), so that a
 * build that wrote a little does not walk the whole cache: only one that
 * brings it past an eighth of the limit, or of that size when larger,
 * does. (A site whose builds use more than the limit — 2.7 GB of pages at
 * 100,000 posts — would otherwise walk its whole cache every few builds,
 * for nothing to remove: a one-edit build there writes 8 MB. So the walks
 * cost at most a walk of the cache per eighth of it written, and what is
 * unused stays under the limit plus an eighth of the larger of the two.)
 * Each process adds what it wrote by writing a temporary file and
 * renaming it into place, so a reader sees a whole number or none. The
 * ledger only decides when to walk, never which entry goes: two builds
 * adding at once lose one's bytes (a later trim), a killed build adds
 * nothing (a later trim), one missing or unreadable is a trim now (an
 * extra trim; a cache made before the ledger has none). */

#define LEDGER_NAME ".ledger"
#define LEDGER_MAX 48

typedef struct entry {
    uint64_t h1, h2; /* the name */
    time_t mtime;
    size_t size;
    uint32_t kind;   /* index in walk.kinds */
    bool used;
} entry;

typedef struct walk {
    entry *v;
    size_t n, cap;
    char **kinds;
    size_t nkinds;
    size_t total, live;
    size_t removed;
    time_t now;
} walk;

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[n] == '\0';
}

static uint64_t hex64(const char *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 16; i++)
        v = v << 4 | (uint64_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
    return v;
}

/* A folder below fd, never through a link. */
static DIR *open_below(int fd, const char *nm)
{
    int d = openat(fd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d < 0)
        return NULL;
    DIR *r = fdopendir(d);
    if (!r)
        close(d);
    return r;
}

/* One <kind>/<2 hex> folder: the entries and stale temporary files. Only
 * names this module makes are looked at; each is stat-ed relative to the
 * shard's own descriptor (no path to resolve again), and what the folder
 * says is no regular file is not stat-ed at all. */
static void walk_shard(cache *c, walk *w, DIR *d, uint32_t kind, const char *shard)
{
    int fd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *nm = e->d_name;
        if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN)
            continue;
        bool tmpf = !strncmp(nm, ".tmp-", 5);
        if (!tmpf && !is_hex(nm, NAME_HEX - 2))
            continue;
        struct stat st;
        if (fstatat(fd, nm, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (tmpf) {
            if (w->now - st.st_mtime > STALE_TMP_SECONDS && unlinkat(fd, nm, 0) == 0)
                w->removed++;
            continue;
        }
        char full[NAME_HEX];
        memcpy(full, shard, 2);
        memcpy(full + 2, nm, NAME_HEX - 2);
        if (w->n == w->cap) {
            w->cap = w->cap ? w->cap * 2 : 1024;
            w->v = xrealloc(w->v, w->cap * sizeof *w->v);
        }
        entry *x = &w->v[w->n++];
        *x = (entry){ hex64(full), hex64(full + 16), st.st_mtime, (size_t)st.st_size, kind, false };
        x->used = was_used(c, x->h1);
        w->total += x->size;
        if (x->used)
            w->live += x->size;
    }
}

static int by_age(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->mtime != y->mtime)
        return x->mtime < y->mtime ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->h1 != y->h1)
        return x->h1 < y->h1 ? -1 : 1;
    return x->h2 < y->h2 ? -1 : x->h2 > y->h2;
}

/* A decimal number from *p, up to a byte that is not a digit: false
 * when there is none or it does not fit. */
static bool ledger_number(const char **p, const char *end, size_t *v)
{
    const char *q = *p;
    *v = 0;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        if (*v > (SIZE_MAX - 9) / 10)
            return false;
        *v = *v * 10 + (size_t)(*q - '0');
    }
    bool any = q > *p;
    *p = q;
    return any;
}

/* Reads the ledger: false when it is missing or not what sheaf writes.
 * *size: 0 when the ledger has none. */
static bool ledger_read(const cache *c, size_t *bytes, size_t *size)
{
    buf p = BUF_INIT;
    buf_printf(&p, "%s/%s", c->root, LEDGER_NAME);
    int fd = open(p.data, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    buf_release(&p);
    if (fd < 0)
        return false;
    char t[LEDGER_MAX + 1];
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, t, LEDGER_MAX) : -1;
    close(fd);
    if (n < 2 || t[n - 1] != '\n')
        return false;
    const char *at = t, *end = t + n - 1;
    *size = 0;
    if (!ledger_number(&at, end, bytes))
        return false;
    if (at < end && *at == ' ') {
        at++;
        if (!ledger_number(&at, end, size))
            return false;
    }
    return at == end;
}

/* Writes the ledger whole (a temporary file renamed into place). A failure
 * leaves the old one, or none: a later or an extra trim. */
static void ledger_write(const cache *c, size_t bytes, size_t size)
{
    buf p = BUF_INIT, tmp = BUF_INIT;
    buf_printf(&p, "%s/%s", c->root, LEDGER_NAME);
    buf_printf(&tmp, "%s/.tmp-ledger-%ld", c->root, (long)getpid());
    char t[LEDGER_MAX];
    int n = snprintf(t, sizeof t, "%zu %zu\n", bytes, size);
    unlink(tmp.data);
    int fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && write_all(fd, (const unsigned char *)t, (size_t)n);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok || rename(tmp.data, p.data) != 0)
        unlink(tmp.data);
    buf_release(&p);
    buf_release(&tmp);
}

size_t cache_trim_now(cache *c)
{
    if (!c || atomic_load(&c->refused))
        return 0;
    walk w = { .now = time(NULL) };
    pthread_mutex_lock(&c->mu);
    int rfd = open(c->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *root = rfd >= 0 ? fdopendir(rfd) : NULL;
    if (!root && rfd >= 0)
        close(rfd);
    if (root) {
        struct dirent *k;
        while ((k = readdir(root)) != NULL) {
            if (k->d_name[0] == '.' || !kind_ok(k->d_name) ||
                (k->d_type != DT_DIR && k->d_type != DT_UNKNOWN))
                continue;
            DIR *kdir = open_below(dirfd(root), k->d_name);
            if (!kdir)
                continue;
            w.kinds = xrealloc(w.kinds, (w.nkinds + 1) * sizeof *w.kinds);
            w.kinds[w.nkinds++] = xstrdup(k->d_name);
            struct dirent *s;
            while ((s = readdir(kdir)) != NULL) {
                if (!is_hex(s->d_name, 2) || (s->d_type != DT_DIR && s->d_type != DT_UNKNOWN))
                    continue;
                DIR *sd = open_below(dirfd(kdir), s->d_name);
                if (sd) {
                    walk_shard(c, &w, sd, (uint32_t)(w.nkinds - 1), s->d_name);
                    closedir(sd);
                }
            }
            closedir(kdir);
        }
        closedir(root);
    }
    /* Only what this process neither read, wrote nor touched goes, oldest
     * first: the limit bounds what the site no longer uses. When what it
     * used is alone over the limit, it all stays (kept_over says by how
     * much), and every unused entry goes. */
    size_t extra = atomic_load(&c->extra);
    size_t limit = c->max + extra;
    if (w.total > limit) {
        vec_sort(w.v, w.n, sizeof *w.v, by_age);
        size_t goal = c->max / 4 * 3 + extra;
        buf p = BUF_INIT;
        for (size_t i = 0; i < w.n && w.total > goal; i++) {
            if (w.v[i].used)
                continue;
            buf_reset(&p);
            entry_path(c, w.kinds[w.v[i].kind], (name){ w.v[i].h1, w.v[i].h2 }, true, &p);
            if (unlink(p.data) == 0) {
                w.total -= w.v[i].size;
                w.removed++;
            }
        }
        buf_release(&p);
    }
    c->kept_over = w.live > limit ? w.live - limit : 0;
    for (size_t i = 0; i < w.nkinds; i++)
        free(w.kinds[i]);
    free(w.kinds);
    free(w.v);
    c->trimmed_at = atomic_load(&c->written_bytes);
    atomic_fetch_add(&c->walks, 1);
    if (root && !atomic_load(&c->read_only) && !atomic_load(&c->broken))
        ledger_write(c, 0, w.total);
    pthread_mutex_unlock(&c->mu);
    return w.removed;
}

void cache_keep_extra(cache *c, size_t bytes)
{
    if (c)
        atomic_store(&c->extra, bytes);
}

size_t cache_trim(cache *c)
{
    if (!c || atomic_load(&c->refused))
        return 0;
    size_t written = atomic_load(&c->written_bytes);
    pthread_mutex_lock(&c->mu);
    size_t mine = written - c->trimmed_at; /* since this process last trimmed or told the ledger */
    size_t before = 0, size = 0;
    /* no ledger: a cache made before it, or one this process has just
     * made (then nothing is there to trim yet) */
    bool known = ledger_read(c, &before, &size) || atomic_load(&c->made_secret);
    size_t every = (size > c->max ? size : c->max) / 8;
    bool due = mine > 0 && (!known || before + mine > every || before + mine < before);
    if (mine > 0 && !due) {
        ledger_write(c, before + mine, size);
        c->trimmed_at = written;
    }
    pthread_mutex_unlock(&c->mu);
    return due ? cache_trim_now(c) : 0;
}
