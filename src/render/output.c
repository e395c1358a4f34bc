/* output: stage changed files, commit them by rename (see output.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "render/internal.h"
#include "render/output.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/manifest.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "util/xalloc.h"

struct output_memory {
    bool valid;      /* filled by a build that committed; else compare on disk */
    strmap *idx;     /* path → slot */
    char **keys;
    uint64_t *hashes;
    size_t *lens;
    size_t n;
};

output_memory *output_memory_new(void) { return xcalloc(1, sizeof(output_memory)); }

static void memory_clear(output_memory *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->hashes);
    free(m->lens);
    strmap_free(m->idx);
    memset(m, 0, sizeof *m);
}

void output_memory_free(output_memory *m)
{
    if (!m)
        return;
    memory_clear(m);
    free(m);
}

/* The values of output.stale. */
enum { STALE_NOT_IN_SPARE = 1, STALE_IN_SPARE = 2 };

/* A fast 64-bit hash of the bytes (8 at a time, multiply-xorshift mixing);
 * with the length it tells an unchanged output from a changed one. */
static uint64_t hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0x9E3779B97F4A7C15u ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9u;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    memcpy(&w, p + i, len - i);
    h = (h ^ w) * 0x94D049BB133111EBu;
    return h ^ (h >> 29);
}

/* The start time of process pid, in clock ticks since boot (field 22 of
 * /proc/<pid>/stat), or 0 when /proc cannot say. */
static unsigned long long proc_start(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    buf b = BUF_INIT;
    unsigned long long t = 0;
    if (fs_read_file(path, &b)) {
        char *p = strrchr(b.data, ')'); /* the command name may hold spaces */
        int field = 2;
        for (p = p ? p + 1 : NULL; p && *p; p++)
            if (*p == ' ' && ++field == 22) {
                t = strtoull(p + 1, NULL, 10);
                break;
            }
    }
    buf_release(&b);
    return t;
}

/* Parses "<pid>-<start>" (all of s): true when it names a process that is
 * gone — no such pid, or one started at another time (a reused pid). */
static bool names_dead_process(const char *s, bool with_start)
{
    char *end;
    errno = 0;
    long pid = strtol(s, &end, 10);
    if (errno || end == s || pid <= 0 || (with_start ? *end != '-' : *end != 0))
        return false;
    unsigned long long start = 0;
    if (with_start) {
        const char *t = end + 1;
        start = strtoull(t, &end, 10);
        if (end == t || *end || !isdigit((unsigned char)*t))
            return false;
    }
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return true;
    unsigned long long now = with_start ? proc_start(pid) : 0;
    return now != 0 && now != start;
}

/* Removes what killed builds left beside the target (see output.h): their
 * staging folders, and the old tree of an interrupted fallback exchange —
 * renamed back into place when the target is missing (the kill came
 * between the two renames). Folders whose process still runs stay. */
static void clean_stale(const char *parent, const char *base)
{
    DIR *dp = opendir(parent);
    if (!dp)
        return;
    buf pre = BUF_INIT;
    buf_printf(&pre, ".%s.sheaf-", base);
    buf legacy = BUF_INIT;
    buf_printf(&legacy, ".%s.tmp-", base); /* the staging folders of sheaf 0.x */
    char **restore = NULL, **gone = NULL;
    size_t nrestore = 0, ngone = 0, cr = 0, cg = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        const char *n = e->d_name;
        bool stale = false, old = false;
        if (!strncmp(n, pre.data, pre.len)) {
            const char *k = n + pre.len;
            if (!strncmp(k, "new-", 4))
                stale = names_dead_process(k + 4, true);
            else if (!strncmp(k, "old-", 4))
                stale = old = names_dead_process(k + 4, true);
        } else if (!strncmp(n, legacy.data, legacy.len)) {
            stale = names_dead_process(n + legacy.len, false);
        }
        if (stale && old)
            *VEC_ADD(restore, nrestore, cr, 4) = fs_join(parent, n);
        else if (stale)
            *VEC_ADD(gone, ngone, cg, 4) = fs_join(parent, n);
    }
    closedir(dp);
    char *target = fs_join(parent, base);
    struct stat st;
    for (size_t i = 0; i < nrestore; i++) {
        if (lstat(target, &st) != 0 && errno == ENOENT && rename(restore[i], target) == 0) {
        } else {
            fs_rmtree(restore[i]);
        }
        free(restore[i]);
    }
    for (size_t i = 0; i < ngone; i++) {
        fs_rmtree(gone[i]);
        free(gone[i]);
    }
    free(restore);
    free(gone);
    free(target);
    buf_release(&pre);
    buf_release(&legacy);
}

/* Whether folder path holds anything (false when it cannot be read). */
static bool has_entries(const char *path)
{
    DIR *dp = opendir(path);
    if (!dp)
        return false;
    struct dirent *e;
    bool any = false;
    while (!any && (e = readdir(dp)))
        any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dp);
    return any;
}

/* A path beside the target t in its folder (output.h): ".<name>.sheaf-"
 * and what (the staging folder's, the old tree's, the spare's). */
static char *beside(const char *t, const char *what)
{
    const char *slash = strrchr(t, '/');
    buf b = BUF_INIT;
    if (slash)
        buf_put(&b, t, slash == t ? 1 : (size_t)(slash - t));
    buf_printf(&b, "%s.%s.sheaf-%s", slash && slash != t ? "/" : "", slash ? slash + 1 : t, what);
    return buf_detach(&b, NULL);
}

/* The spare's path beside the target t: ".<name>.sheaf-spare". */
static char *spare_of(const char *t) { return beside(t, "spare"); }

/* ---- the manifests read ahead ---------------------------------------- *
 * The target's manifest and the spare's (each a line for every output and
 * folder: 31,000 lines at 10,000 posts, ≈ 10 ms to read into their maps)
 * are read on a thread of their own while the build reads its sources,
 * which leaves the second core idle for a while. output_begin takes a
 * manifest read ahead only when its file is still the one that was read:
 * the same device, inode, size, mode and modification and change times,
 * before and after the read and when it is taken; otherwise it reads the
 * file again itself. (A write leaves the times as they were only within
 * one tick of the file system's clock, as for the sources' records; a
 * build of sheaf's puts its manifest in place with its whole new tree, so
 * as another inode.) */
/* The spare's records of folders, indexed (see "folder stamps" below). */
typedef struct folder_index {
    const manifest *m;    /* the spare's manifest: m->folders and m->user */
    strmap *at;           /* a folder's path → its record */
    size_t *child, *next; /* each record's first child and next sibling; NONE: none */
    size_t *uhead;        /* each record's first user entry (of m->user) */
    size_t *unext;        /* the next user entry of the same folder */
    bool *udir;           /* a user entry that is a folder (one of the records) */
    size_t listed, known; /* folders listed by this walk, folders taken from records */
    bool *taken;          /* per record: taken from it by this walk */
    struct prestat *pre;  /* per record: its folder's lstat, taken before the walk (prestat) */
} folder_index;

static folder_index *index_folders(const manifest *m);
static void free_folders(folder_index *x);

typedef struct ahead {
    char *dir;
    manifest m;
    folder_index *x; /* the spare's: its records of folders indexed (index_folders) */
    bool listed;
    bool there;     /* the file was there when read (id holds its identity) */
    bool steady;    /* the same file before and after the read */
    struct stat id;
} ahead;

struct output_prefetch {
    pthread_t thread;
    bool running;
    ahead at[2]; /* the target's, the spare's */
};

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec &&
           a->st_mode == b->st_mode;
}

static bool manifest_stat(const char *dir, struct stat *st)
{
    char *f = fs_join(dir, OUTPUT_MANIFEST);
    bool ok = lstat(f, st) == 0;
    free(f);
    return ok;
}

static void read_ahead(ahead *a)
{
    struct stat after;
    a->there = manifest_stat(a->dir, &a->id);
    a->listed = a->there && manifest_read(a->dir, &a->m);
    a->steady = a->there ? manifest_stat(a->dir, &after) && same_file(&a->id, &after) : !manifest_stat(a->dir, &after);
}

static void *prefetch_run(void *arg)
{
    output_prefetch *p = arg;
    for (int i = 0; i < 2; i++)
        read_ahead(&p->at[i]);
    /* the spare's records of folders, which the commit's walk looks up by
     * path (≈ 25 ms at 100,000 posts, on one core), indexed here while
     * the build has serial stages to come */
    ahead *sp = &p->at[1];
    if (sp->listed && sp->steady && sp->m.nfolders)
        sp->x = index_folders(&sp->m);
    return NULL;
}

output_prefetch *output_prefetch_start(const char *target)
{
    output_prefetch *p = xcalloc(1, sizeof *p);
    p->at[0].dir = output_real_target(target);
    p->at[1].dir = spare_of(p->at[0].dir);
    p->running = pthread_create(&p->thread, NULL, prefetch_run, p) == 0;
    if (!p->running) { /* read when asked */
        for (int i = 0; i < 2; i++) {
            free(p->at[i].dir);
            p->at[i].dir = NULL;
        }
    }
    return p;
}

static void prefetch_join(output_prefetch *p)
{
    if (p && p->running) {
        pthread_join(p->thread, NULL);
        p->running = false;
    }
}

void output_prefetch_free(output_prefetch *p)
{
    if (!p)
        return;
    prefetch_join(p);
    for (int i = 0; i < 2; i++) {
        free(p->at[i].dir);
        manifest_free(&p->at[i].m);
        free_folders(p->at[i].x);
    }
    free(p);
}

/* manifest_read(dir, m), or what was read ahead of it (which: 0 the
 * target's, 1 the spare's) when that is still the file there; then *x
 * (when x is not NULL) is the index of its folders made ahead, if any. */
static bool read_manifest(output_prefetch *p, int which, const char *dir, manifest *m, folder_index **x)
{
    prefetch_join(p);
    ahead *a = p ? &p->at[which] : NULL;
    if (a && a->dir && a->steady && !strcmp(a->dir, dir)) {
        struct stat now;
        bool there = manifest_stat(dir, &now);
        if (there == a->there && (!there || same_file(&now, &a->id))) {
            *m = a->m;
            memset(&a->m, 0, sizeof a->m);
            if (x && a->x) {
                *x = a->x;
                (*x)->m = m; /* (what the index points into moved with it) */
                a->x = NULL;
            }
            a->steady = false; /* taken */
            return a->listed;
        }
    }
    return manifest_read(dir, m);
}

/* Whether the spare beside the target is the tree the target's manifest
 * names (by its manifest's hash), so that this build may bring it up to
 * date in place; its manifest is then removed before anything in it
 * changes, so that a build killed while it updates the spare leaves one
 * no later build trusts. A spare that is not named is removed (it is
 * sheaf's: only sheaf puts anything there), with a warning when it looks
 * changed by hand: a manifest that is neither the named one nor that of a
 * build killed just before its exchange (which names the target's). */
static bool take_spare(output *o, output_prefetch *pre, diag_list *d)
{
    struct stat st, ts;
    if (lstat(o->spare, &st) != 0)
        return false;
    bool dir = S_ISDIR(st.st_mode) && lstat(o->target, &ts) == 0 && st.st_dev == ts.st_dev;
    bool listed = dir && read_manifest(pre, 1, o->spare, &o->spare_m, &o->spare_index);
    bool ok = listed && o->manifest.spare && o->spare_m.hash == o->manifest.spare;
    if (ok) {
        char *m = fs_join(o->spare, OUTPUT_MANIFEST);
        ok = unlink(m) == 0;
        free(m);
    }
    if (ok)
        return true;
    if (listed && o->manifest.spare && o->spare_m.spare != o->manifest.hash)
        diag_warning(d, o->spare, 0, 0,
                     "this copy of the previous output was changed since sheaf left it (its "
                     OUTPUT_MANIFEST " is not the one %s/" OUTPUT_MANIFEST " names): not "
                     "used, and removed; this build stages the whole new output instead",
                     o->target);
    manifest_free(&o->spare_m);
    free_folders(o->spare_index);
    o->spare_index = NULL;
    fs_rmtree(o->spare);
    return false;
}

char *output_real_target(const char *target)
{
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/')
        n--;
    char *t = xstrndup(target, n);
    const char *last = strrchr(t, '/') ? strrchr(t, '/') + 1 : t;
    struct stat st;
    if (!strcmp(last, ".") || !strcmp(last, "..")) {
        /* "-o ..": work beside the folder itself */
        char *r = fs_resolve(t);
        free(t);
        t = r;
    }
    for (int hops = 0; hops < 40 && lstat(t, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        /* a link to the real folder (which may not exist yet): work there */
        char *dest = xmalloc((size_t)st.st_size + 1);
        ssize_t k = readlink(t, dest, (size_t)st.st_size + 1);
        if (k < 0 || k > st.st_size) {
            free(dest);
            break;
        }
        dest[k] = 0;
        char *slash = strrchr(t, '/');
        char *dir = slash ? xstrndup(t, (size_t)(slash - t)) : xstrdup(".");
        char *joined = dest[0] == '/' ? xstrdup(dest) : fs_join(dir, dest);
        char *r = fs_resolve(joined);
        free(dest);
        free(dir);
        free(joined);
        free(t);
        t = r;
    }
    return t;
}

bool output_begin(output *o, const char *target, bool write, bool force, output_memory *mem,
                  output_prefetch *pre, diag_list *d)
{
    memset(o, 0, sizeof *o);
    o->spare_fd = -1;
    o->target_fd = -1;
    o->write = write;
    o->force = force;
    o->mem = write ? mem : NULL;
    o->known = o->mem && o->mem->valid;
    atomic_init(&o->written, 0);
    atomic_init(&o->unchanged, 0);
    atomic_init(&o->removed, 0);
    atomic_init(&o->copied, 0);
    atomic_init(&o->disk_failed, false);
    pthread_mutex_init(&o->mu, NULL);
    o->produced = strmap_new(1024);
    char *t = output_real_target(target);
    struct stat st;
    o->target = t;
    if (!write)
        return true;
    char *slash = strrchr(t, '/');
    char *parent = slash ? xstrndup(t, slash == t ? 1 : (size_t)(slash - t)) : xstrdup(".");
    const char *base = slash ? slash + 1 : t;
    unsigned long long start = proc_start((long)getpid());
    char who[64]; /* this process: its id and start time (names_dead_process reads them back) */
    snprintf(who, sizeof who, "new-%ld-%llu", (long)getpid(), start);
    o->tmp = beside(t, who);
    snprintf(who, sizeof who, "old-%ld-%llu", (long)getpid(), start);
    o->old = beside(t, who);
    o->spare = spare_of(t);
    bool ok = fs_mkdirs(parent);
    if (!ok)
        diag_error(d, NULL, 0, 0, "cannot create the output folder's parent %s: %s", parent,
                   strerror(errno));
    if (ok)
        clean_stale(parent, base);
    free(parent);
    if (!ok)
        return false;
    fs_rmtree(o->tmp);
    fs_rmtree(o->old);
    if (lstat(t, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            diag_error(d, t, 0, 0, "exists and is not a folder: not replacing it with the output");
            return false;
        }
        struct stat up;
        char *slash2 = strrchr(t, '/');
        char *par = slash2 ? xstrndup(t, slash2 == t ? 1 : (size_t)(slash2 - t)) : xstrdup(".");
        bool mounted = stat(par, &up) == 0 && up.st_dev != st.st_dev;
        free(par);
        if (mounted) {
            diag_error(d, t, 0, 0,
                       "the output folder is a mount point: sheaf builds the new output beside it "
                       "and exchanges the two, which cannot be done across file systems; mount "
                       "the folder above it, or build into a folder inside it");
            return false;
        }
        o->exists = true;
        /* kept open for output_keep, when it is still the folder just stat-ed */
        struct stat fst;
        o->target_fd = open(t, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (o->target_fd >= 0 && (fstat(o->target_fd, &fst) != 0 || fst.st_ino != st.st_ino ||
                                  fst.st_dev != st.st_dev)) {
            close(o->target_fd);
            o->target_fd = -1;
        }
        bool listed = read_manifest(pre, 0, t, &o->manifest, NULL);
        if (listed) { /* room for as many outputs as the last build made: not grown on the way */
            strmap_free(o->produced);
            o->produced = strmap_new(o->manifest.n + 1024);
        }
        o->fresh = !listed && !has_entries(t);
        if (!listed && !o->fresh && !force) {
            diag_error(d, t, 0, 0,
                       "the output folder is not empty and has no " OUTPUT_MANIFEST
                       ", so sheaf did not make it, and sheaf removes only files it wrote: "
                       "choose a new or empty folder, or build with --force to write into it "
                       "(its other files are then left as they are)");
            return false;
        }
    } else {
        o->fresh = true;
    }
    /* Another build of this output that is using the spare holds a lock
     * on it: then it is left alone, and this build stages a whole tree. */
    o->spare_fd = open(o->spare, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (o->spare_fd >= 0 && flock(o->spare_fd, LOCK_EX | LOCK_NB) != 0) {
        close(o->spare_fd);
        o->spare_fd = -1;
        o->spare_busy = true;
    }
    if (!o->spare_busy && !o->fresh && !o->mem && o->manifest.text && take_spare(o, pre, d)) {
        free(o->tmp);
        o->tmp = xstrdup(o->spare);
        o->use_spare = true;
        /* the spare's paths are the target's but for the target's \changed
         * paths (sync_spare): whether the spare holds each of those is all
         * this build asks of its list, which is let go (its names and
         * index, ≈ 20 MB at 100,000 posts: each name is held once, in the
         * target's manifest) */
        o->stale = strmap_new(o->manifest.nchanged * 2 + 16);
        for (size_t i = 0; i < o->manifest.nchanged; i++)
            strmap_put(o->stale, o->manifest.changed[i],
                       manifest_has(&o->spare_m, o->manifest.changed[i]) ? STALE_IN_SPARE : STALE_NOT_IN_SPARE);
        manifest_drop_paths(&o->spare_m);
        chmod(o->tmp, st.st_mode & 07777);
        return true;
    }
    struct stat sp; /* a spare not used (a session's build, a fresh target): in the way */
    if (!o->spare_busy && lstat(o->spare, &sp) == 0)
        fs_rmtree(o->spare);
    if (mkdir(o->tmp, 0755) != 0) {
        diag_error(d, NULL, 0, 0, "cannot create %s: %s", o->tmp, strerror(errno));
        return false;
    }
    if (o->exists)
        chmod(o->tmp, st.st_mode & 07777); /* the new folder looks like the old one */
    return true;
}

/* Where the disk that holds path is mounted: the highest folder above it
 * on the same device. Caller frees. */
static char *mount_point(const char *path)
{
    char *p = fs_resolve(path);
    struct stat st, up;
    if (stat(p, &st) != 0)
        return p;
    for (;;) {
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            if (stat("/", &up) == 0 && up.st_dev == st.st_dev)
                p[1] = 0;
            return p;
        }
        *slash = 0;
        if (stat(p, &up) != 0 || up.st_dev != st.st_dev) {
            *slash = '/';
            return p;
        }
    }
}

/* Whether errno says the disk (not this one file) refuses writes. */
static bool disk_error(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EFBIG || e == EROFS || e == EIO;
}

/* Reports a failed write of rel: once for the whole build when the disk is
 * full (or read-only, or failing) — every later write fails the same way —
 * else for this file. */
static void report_write(output *o, const char *verb, const char *rel, const char *path,
                         diag_list *d)
{
    int e = errno;
    if (!disk_error(e)) {
        diag_error(d, NULL, 0, 0, "cannot %s %s: %s", verb, path, strerror(e));
        return;
    }
    if (atomic_exchange(&o->disk_failed, true))
        return;
    char *mp = mount_point(o->tmp);
    diag_error(d, o->target, 0, 0,
               "cannot write the new output beside it: %s (on the disk mounted at %s, first at %s); "
               "the previous output was left as it was",
               strerror(e), mp, rel);
    free(mp);
}

/* Records rel as produced (and staged when `staged`), with its bytes' hash
 * and length (SIZE_MAX: not known); listed: whether the target's manifest
 * lists rel, when the caller has just asked (-1: not asked). */
static void record_listed(output *o, const char *rel, bool staged, uint64_t hash, size_t len, int listed)
{
    pthread_mutex_lock(&o->mu);
    if (!o->key_text)
        o->key_text = arena_new();
    char *k = arena_strdup(o->key_text, rel); /* (one arena: 17,000 keys at 10,000 posts) */
    if (o->nkeys == o->capkeys) {
        o->capkeys = o->capkeys ? o->capkeys * 2 : 1024;
        o->keys = xrealloc(o->keys, o->capkeys * sizeof *o->keys);
        o->hashes = xrealloc(o->hashes, o->capkeys * sizeof *o->hashes);
        o->lens = xrealloc(o->lens, o->capkeys * sizeof *o->lens);
    }
    o->hashes[o->nkeys] = hash;
    o->lens[o->nkeys] = len;
    o->keys[o->nkeys++] = k;
    long at = (long)o->nkeys - 1;
    if (strmap_put(o->produced, k, at) != at)
        o->ndup++; /* (made twice: the commit then trusts no count) */
    else if (o->write && (listed >= 0 ? listed : manifest_has(&o->manifest, k)))
        o->nours++;
    if (staged) {
        if (o->nstaged == o->capstaged) {
            o->capstaged = o->capstaged ? o->capstaged * 2 : 1024;
            o->staged = xrealloc(o->staged, o->capstaged * sizeof *o->staged);
        }
        o->staged[o->nstaged++] = k;
    }
    pthread_mutex_unlock(&o->mu);
}

static void record(output *o, const char *rel, bool staged, uint64_t hash, size_t len)
{
    record_listed(o, rel, staged, hash, len, -1);
}

static bool ensure_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return true;
    char *dir = xstrndup(path, (size_t)(slash - path));
    bool ok = fs_mkdirs(dir);
    free(dir);
    return ok;
}

/* In the spare, whatever stands at dst goes before a file is made there:
 * it may be a hard link to the target's own file, which must never be
 * written in place (the published site would change during the build). */
static void clear_dst(const output *o, const char *dst)
{
    if (o->use_spare && unlink(dst) != 0 && (errno == EISDIR || errno == EPERM))
        fs_rmtree(dst);
}

/* ensure_parent; in the spare, a file of an older generation that stands
 * where a folder now goes is removed first. */
static bool make_parent(const output *o, const char *dst)
{
    if (ensure_parent(dst))
        return true;
    if (!o->use_spare || (errno != ENOTDIR && errno != EEXIST))
        return false;
    char *p = xstrdup(dst);
    for (char *s = strchr(p + strlen(o->tmp) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        struct stat st;
        if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
            unlink(p);
        *s = '/';
    }
    free(p);
    return ensure_parent(dst);
}

/* Is the old file at `old` byte-identical to data? Read a block at a
 * time: a large output (the search index, an archive) read whole was a
 * second copy of it in memory. */
static bool same_as(const char *old, const void *data, size_t len)
{
    int fd = open(old, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
    char block[16384];
    const char *p = data;
    size_t at = 0;
    while (same) {
        ssize_t k = read(fd, block, sizeof block);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            same = k == 0 && at == len;
            break;
        }
        same = (size_t)k <= len - at && memcmp(block, p + at, (size_t)k) == 0;
        at += (size_t)k;
    }
    close(fd);
    return same;
}

/* Whether the old folder's file for rel is sheaf's: one it may compare,
 * keep and replace. */
static bool is_ours(const output *o, const char *rel)
{
    return o->known ? strmap_get(o->mem->idx, rel) >= 0 : manifest_has(&o->manifest, rel);
}

/* Puts the old folder's entry `from` (st: its lstat) into the staging tree
 * at `to`: a hard link, so it keeps its inode and mtime, or, where the
 * file system refuses links, a copy (a symbolic link: a new one). */
static bool carry(const char *from, const char *to, const struct stat *st)
{
    if (link(from, to) == 0)
        return true;
    if (errno != EXDEV && errno != EPERM && errno != EMLINK && errno != ENOTSUP &&
        errno != EOPNOTSUPP && errno != ENOSYS)
        return false;
    if (S_ISLNK(st->st_mode)) {
        char *dest = xmalloc((size_t)st->st_size + 1);
        ssize_t n = readlink(from, dest, (size_t)st->st_size + 1);
        bool ok = n >= 0 && n <= st->st_size;
        if (ok) {
            dest[n] = 0;
            ok = symlink(dest, to) == 0;
        }
        free(dest);
        return ok;
    }
    if (!S_ISREG(st->st_mode))
        return false;
    return fs_copy_file(from, to) && chmod(to, st->st_mode & 07777) == 0;
}

/* Whether the spare's file for rel is already the target's (a hard link
 * to it, or where links are refused a copy): sheaf's in the spare, and
 * neither written nor removed by the build that made the target. */
static bool spare_current(const output *o, const char *rel)
{
    return o->use_spare && strmap_get(o->stale, rel) < 0 && manifest_has(&o->manifest, rel);
}

/* Whether the spare (in use) holds sheaf's file rel: its paths are the
 * target's but for the target's \changed paths, of which output_begin
 * noted which the spare holds (its own list is not kept). */
static bool spare_has(const output *o, const char *rel)
{
    long v = strmap_get(o->stale, rel);
    return v < 0 ? manifest_has(&o->manifest, rel) : v == STALE_IN_SPARE;
}

/* rel's old file (sheaf's, with the same bytes) into the staging tree;
 * in the spare, nothing when it is there already (unless `anew`: dst was
 * just emptied). */
static bool keep_old(output *o, const char *rel, const char *old, const char *dst, bool anew)
{
    if (!anew && spare_current(o, rel))
        return true;
    struct stat st;
    if (lstat(old, &st) != 0)
        return false;
    clear_dst(o, dst);
    return make_parent(o, dst) && carry(old, dst, &st);
}

bool output_put(output *o, const char *rel, const void *data, size_t len, diag_list *d)
{
    if (!o->write) {
        record(o, rel, false, 0, len); /* what `sheaf check` made (site_check_root_links) */
        return true;
    }
    if (atomic_load(&o->disk_failed))
        return false;
    char *dst = fs_join(o->tmp, rel);
    char *old = fs_join(o->target, rel);
    bool ok = true;
    uint64_t h = o->mem ? hash_bytes(data, len) : 0;
    bool same;
    if (o->fresh || !is_ours(o, rel)) {
        same = false;
    } else if (o->known) {
        long i = strmap_get(o->mem->idx, rel);
        same = i >= 0 && o->mem->lens[i] == len && o->mem->hashes[i] == h;
    } else {
        same = same_as(old, data, len);
    }
    if (same && keep_old(o, rel, old, dst, false)) {
        atomic_fetch_add(&o->unchanged, 1);
        record(o, rel, false, h, len);
    } else {
        clear_dst(o, dst);
        ok = make_parent(o, dst) && fs_write_file(dst, data, len);
        if (ok) {
            atomic_fetch_add(&o->written, 1);
            record(o, rel, true, h, len);
        }
    }
    if (!ok)
        report_write(o, "write", rel, dst, d);
    free(dst);
    free(old);
    return ok;
}

/* output_fill's two ends of fill: a file written, or an old file read
 * and compared. */
typedef struct piece_fd {
    int fd;
    bool failed; /* a write failed (errno says why), or the bytes differ */
    size_t seen;
} piece_fd;

static bool put_fd(void *pc, const void *p, size_t n)
{
    piece_fd *w = pc;
    const char *q = p;
    while (n) {
        ssize_t k = write(w->fd, q, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            w->failed = true;
            return false;
        }
        q += k;
        n -= (size_t)k;
    }
    return true;
}

static bool cmp_fd(void *pc, const void *p, size_t n)
{
    piece_fd *w = pc;
    char b[16384];
    const char *q = p;
    while (n && !w->failed) {
        size_t want = n < sizeof b ? n : sizeof b;
        ssize_t k = read(w->fd, b, want);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0 || memcmp(b, q, (size_t)k))
            w->failed = true;
        else {
            q += k;
            n -= (size_t)k;
            w->seen += (size_t)k;
        }
    }
    return !w->failed;
}

/* Whether the old file holds exactly the len bytes fill makes. */
static bool same_stream(const char *old, size_t len, output_fill_fn fill, void *ctx)
{
    int fd = open(old, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    piece_fd w = { fd, false, 0 };
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
    if (same) {
        diag_list *quiet = diag_list_new(); /* the write says it, if it fails too */
        same = fill(ctx, cmp_fd, &w, quiet) && !w.failed && w.seen == len;
        diag_list_free(quiet);
    }
    close(fd);
    return same;
}

bool output_fill(output *o, const char *rel, size_t len, uint64_t hash, output_fill_fn fill, void *ctx,
                 diag_list *d)
{
    if (!o->write) {
        record(o, rel, false, 0, len);
        return true;
    }
    if (atomic_load(&o->disk_failed))
        return false;
    char *dst = fs_join(o->tmp, rel);
    char *old = fs_join(o->target, rel);
    uint64_t h = o->mem ? hash : 0;
    bool same, ok = true;
    if (o->fresh || !is_ours(o, rel)) {
        same = false;
    } else if (o->known) {
        long i = strmap_get(o->mem->idx, rel);
        same = i >= 0 && o->mem->lens[i] == len && o->mem->hashes[i] == hash;
    } else {
        same = same_stream(old, len, fill, ctx);
    }
    if (same && keep_old(o, rel, old, dst, false)) {
        atomic_fetch_add(&o->unchanged, 1);
        record(o, rel, false, h, len);
    } else {
        piece_fd w = { -1, false, 0 };
        clear_dst(o, dst);
        ok = make_parent(o, dst) && (w.fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) >= 0;
        if (!ok) {
            report_write(o, "write", rel, dst, d);
        } else {
            bool made = fill(ctx, put_fd, &w, d);
            int e = errno;
            bool closed = close(w.fd) == 0;
            if (w.failed || !closed) {
                errno = w.failed ? e : errno;
                report_write(o, "write", rel, dst, d);
                ok = false;
            } else if (!made) {
                ok = false; /* fill said why */
            }
            if (ok) {
                atomic_fetch_add(&o->written, 1);
                record(o, rel, true, h, len);
            } else {
                unlink(dst);
            }
        }
    }
    free(dst);
    free(old);
    return ok;
}

static void id_of_stat(const struct stat *st, uint64_t hash, output_file_id *id)
{
    *id = (output_file_id){ (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
                            (int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec, hash };
}

bool output_put_id(output *o, const char *rel, const void *data, size_t len, diag_list *d,
                   output_file_id *id)
{
    memset(id, 0, sizeof *id);
    if (!o->write || !output_put(o, rel, data, len, d))
        return false;
    char *dst = fs_join(o->tmp, rel);
    struct stat st;
    bool ok = lstat(dst, &st) == 0 && S_ISREG(st.st_mode);
    if (ok)
        id_of_stat(&st, hash_bytes(data, len), id);
    free(dst);
    return ok;
}

/* The lstat of the old tree's entry rel: relative to the target folder
 * held open (one lookup a component of rel, not of the target's path
 * again), else by its whole path. */
static bool lstat_old(const output *o, const char *rel, struct stat *st)
{
    if (o->target_fd >= 0)
        return fstatat(o->target_fd, rel, st, AT_SYMLINK_NOFOLLOW) == 0;
    char *old = fs_join(o->target, rel);
    bool ok = lstat(old, st) == 0;
    free(old);
    return ok;
}

bool output_keep(output *o, const char *rel, const output_file_id *id)
{
    if (!o->write || o->fresh || atomic_load(&o->disk_failed))
        return false;
    /* is_ours, asked once for it and for record_listed */
    int listed = -1;
    if (o->known ? strmap_get(o->mem->idx, rel) < 0 : !(listed = manifest_has(&o->manifest, rel)))
        return false;
    struct stat st;
    output_file_id now;
    bool ok = lstat_old(o, rel, &st) && S_ISREG(st.st_mode);
    if (ok) {
        id_of_stat(&st, id->hash, &now);
        ok = !memcmp(&now, id, sizeof now);
    }
    /* in the spare, the target's very file is most often there already
     * (spare_current, whose question of the manifest is answered: listed) */
    if (ok && !(o->use_spare && strmap_get(o->stale, rel) < 0)) {
        char *old = fs_join(o->target, rel), *dst = fs_join(o->tmp, rel);
        ok = keep_old(o, rel, old, dst, false);
        free(dst);
        free(old);
    }
    if (ok) {
        atomic_fetch_add(&o->unchanged, 1);
        record_listed(o, rel, false, id->hash, id->hash ? (size_t)id->size : SIZE_MAX, listed); /* 0: a copy's */
    }
    return ok;
}

void output_stream_open(output *o, const char *rel, output_stream *st)
{
    st->rel = xstrdup(rel);
    st->dst = NULL;
    st->fd = -1;
    st->len = 0;
    st->error = 0;
    if (!o->write || atomic_load(&o->disk_failed))
        return; /* `sheaf check` has no staging folder */
    st->dst = fs_join(o->tmp, rel);
    clear_dst(o, st->dst);
    if (!make_parent(o, st->dst) ||
        (st->fd = open(st->dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
        st->error = errno ? errno : EIO;
}

void output_stream_write(output_stream *st, const void *data, size_t n)
{
    st->len += n;
    const char *p = data;
    while (st->fd >= 0 && n) {
        ssize_t k = write(st->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            st->error = errno;
            close(st->fd);
            st->fd = -1;
            break;
        }
        p += k;
        n -= (size_t)k;
    }
}

/* Are the files at a and b byte-identical? Read a block at a time. */
static bool same_files(const char *a, const char *b)
{
    int fa = open(a, O_RDONLY | O_CLOEXEC), fb = fa < 0 ? -1 : open(b, O_RDONLY | O_CLOEXEC);
    struct stat sa, sb;
    bool same = fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 &&
                S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) && sa.st_size == sb.st_size;
    static const size_t block = 16384;
    char *x = same ? xmalloc(2 * block) : NULL, *y = x ? x + block : NULL; /* NULL + 0 is undefined */
    while (same) {
        ssize_t k = read(fa, x, block);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            same = k == 0;
            break;
        }
        size_t got = 0;
        while (got < (size_t)k) {
            ssize_t m = read(fb, y + got, (size_t)k - got);
            if (m < 0 && errno == EINTR)
                continue;
            if (m <= 0)
                break;
            got += (size_t)m;
        }
        same = got == (size_t)k && memcmp(x, y, got) == 0;
    }
    free(x);
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    return same;
}

bool output_stream_close(output *o, output_stream *st, diag_list *d)
{
    bool ok = true;
    if (!o->write) {
        record(o, st->rel, false, 0, st->len);
    } else if (st->fd < 0 || close(st->fd) != 0 || st->error) {
        if (!st->error)
            st->error = errno ? errno : EIO;
        if (!atomic_load(&o->disk_failed)) {
            errno = st->error;
            report_write(o, "write", st->rel, st->dst, d);
        }
        ok = false;
    } else {
        char *old = fs_join(o->target, st->rel);
        bool same = !o->fresh && is_ours(o, st->rel) && same_files(old, st->dst);
        if (same && unlink(st->dst) == 0 && keep_old(o, st->rel, old, st->dst, true)) {
            atomic_fetch_add(&o->unchanged, 1);
            record(o, st->rel, false, 0, st->len);
        } else if (same) { /* the old file could not take its place: write it again */
            ok = fs_copy_file(old, st->dst);
            if (ok) {
                atomic_fetch_add(&o->written, 1);
                record(o, st->rel, true, 0, st->len);
            } else {
                report_write(o, "write", st->rel, st->dst, d);
            }
        } else {
            atomic_fetch_add(&o->written, 1);
            record(o, st->rel, true, 0, st->len);
        }
        free(old);
    }
    free(st->rel);
    free(st->dst);
    return ok;
}

static bool same_file_content(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || sa.st_size != sb.st_size || !S_ISREG(sb.st_mode))
        return false;
    buf x = BUF_INIT, y = BUF_INIT;
    bool same = fs_read_file(a, &x) && fs_read_file(b, &y) && x.len == y.len &&
                memcmp(x.data, y.data, x.len) == 0;
    buf_release(&x);
    buf_release(&y);
    return same;
}

bool output_copy_id(output *o, const char *rel, const char *src, diag_list *d, output_file_id *id)
{
    memset(id, 0, sizeof *id);
    if (!output_copy(o, rel, src, NULL, 0, d) || !o->write) /* (check records it, writes nothing) */
        return false;
    char *dst = fs_join(o->tmp, rel);
    struct stat st;
    bool ok = lstat(dst, &st) == 0 && S_ISREG(st.st_mode);
    if (ok)
        id_of_stat(&st, 0, id);
    free(dst);
    return ok;
}

bool output_copy(output *o, const char *rel, const char *src, const void *data, size_t len,
                 diag_list *d)
{
    if (data)
        return output_put(o, rel, data, len, d);
    if (!o->write) {
        record(o, rel, false, 0, SIZE_MAX);
        return true;
    }
    if (atomic_load(&o->disk_failed))
        return false;
    char *dst = fs_join(o->tmp, rel);
    char *old = fs_join(o->target, rel);
    bool ok = true;
    if (!o->fresh && is_ours(o, rel) && same_file_content(src, old) && keep_old(o, rel, old, dst, false)) {
        atomic_fetch_add(&o->unchanged, 1);
        record(o, rel, false, 0, SIZE_MAX);
    } else {
        clear_dst(o, dst);
        ok = make_parent(o, dst) && fs_copy_file(src, dst);
        if (ok) {
            atomic_fetch_add(&o->copied, 1);
            record(o, rel, true, 0, SIZE_MAX);
        } else if (!disk_error(errno)) {
            int e = errno;
            diag_error(d, NULL, 0, 0, "cannot copy %s to %s: %s", src, dst, fs_strerror(e));
        } else {
            report_write(o, "copy", rel, dst, d);
        }
    }
    free(dst);
    free(old);
    return ok;
}

/* The memory takes this build's outputs: all of them (`whole`: whatever the
 * last run left is forgotten), or just those a partial build produced (the
 * others stay as they were). */
static void remember(output *o, bool whole)
{
    output_memory *m = o->mem;
    if (whole) {
        memory_clear(m);
        m->idx = strmap_new(o->nkeys + 1);
    }
    size_t room = m->n + o->nkeys + 1;
    m->keys = xrealloc(m->keys, room * sizeof *m->keys);
    m->hashes = xrealloc(m->hashes, room * sizeof *m->hashes);
    m->lens = xrealloc(m->lens, room * sizeof *m->lens);
    for (size_t i = 0; i < o->nkeys; i++) {
        long at = whole ? -1 : strmap_get(m->idx, o->keys[i]);
        if (at < 0) {
            at = (long)m->n++;
            m->keys[at] = xstrdup(o->keys[i]);
            strmap_put(m->idx, m->keys[at], at);
        }
        m->hashes[at] = o->hashes[i];
        m->lens[at] = o->lens[i];
    }
    m->valid = true;
}

/* Moves one staged file into the target, replacing whatever is in the way
 * (a folder where a file now goes, or a file where a folder now goes). */
static bool commit_one(output *o, const char *rel)
{
    char *src = fs_join(o->tmp, rel), *dst = fs_join(o->target, rel);
    bool ok = ensure_parent(dst);
    if (!ok && errno == ENOTDIR) {
        /* a file sits where a folder must be: remove it */
        for (char *p = strchr(dst + strlen(o->target) + 1, '/'); p; p = strchr(p + 1, '/')) {
            *p = 0;
            struct stat st;
            if (lstat(dst, &st) == 0 && !S_ISDIR(st.st_mode))
                unlink(dst);
            *p = '/';
        }
        ok = ensure_parent(dst);
    }
    if (ok && rename(src, dst) != 0) {
        if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) {
            fs_rmtree(dst);
            ok = rename(src, dst) == 0;
        } else {
            ok = false;
        }
    }
    free(src);
    free(dst);
    return ok;
}

/* ---- the commit -------------------------------------------------------- */

/* Notes rel, which is not sheaf's, as found in the target (dir: a folder
 * that holds nothing of sheaf's): it goes into the new tree, and its path
 * into the new manifest's \user lines. */
static void user_entry(output *o, const char *rel, bool dir)
{
    (void)dir; /* (the spare's update looks at the target's entry itself) */
    *VEC_ADD(o->user, o->nuser, o->capuser, 16) = xstrdup(rel);
}

/* Whether a folder above rel is one of this build's files. */
static bool under_produced(const output *o, const char *rel)
{
    char *p = xstrdup(rel);
    bool hit = false;
    for (char *s = strchr(p, '/'); s && !hit; s = strchr(s + 1, '/')) {
        *s = 0;
        hit = strmap_get(o->produced, p) >= 0;
        *s = '/';
    }
    free(p);
    return hit;
}

/* Every folder this build's files are in, for the spare's carry-over
 * (o->pdirs; its keys are kept in o->pdir_keys). */
static void produced_dirs(output *o)
{
    if (o->pdirs)
        return;
    o->pdirs = strmap_new(o->nkeys + 16);
    for (size_t i = 0; i < o->nkeys; i++) {
        char *k = xstrdup(o->keys[i]);
        for (char *s = strrchr(k, '/'); s; s = strrchr(k, '/')) {
            *s = 0;
            if (strmap_get(o->pdirs, k) >= 0)
                break; /* (and so are the folders above it) */
            char *key = xstrdup(k);
            *VEC_ADD(o->pdir_keys, o->npdir, o->cappdir, 256) = key;
            strmap_put(o->pdirs, key, 1);
        }
        free(k);
    }
}

/* Whether rel is a folder of one of this build's files. */
static bool is_pdir(output *o, const char *rel)
{
    produced_dirs(o); /* (made when first asked: only other people's entries ask) */
    return strmap_get(o->pdirs, rel) >= 0;
}

/* Removes the spare's path (a file, or a folder that is now empty) and
 * then each folder above it left empty. */
static void prune(const output *o, const char *rel, bool dir)
{
    char *p = fs_join(o->tmp, rel);
    if (dir ? rmdir(p) == 0 || errno == ENOENT : unlink(p) == 0 || errno == ENOENT || errno == ENOTDIR) {
        size_t root = strlen(o->tmp);
        for (char *s = strrchr(p, '/'); s && (size_t)(s - p) > root; s = strrchr(p, '/')) {
            *s = 0;
            if (rmdir(p) != 0)
                break;
        }
    }
    free(p);
}

static int cmp_rev(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* Brings the spare's own files and the others' in line with the target,
 * once every output is in it: removes sheaf's files this build did not
 * make and what someone else had in the target at the last build and no
 * longer has, then makes what they have now — by hard link, unless the
 * spare holds that very file already. */
static bool sync_spare(output *o, diag_list *d)
{
    /* the spare's files are the target's but for the target's \changed
     * paths (its manifest, named by the target's, says so): those this
     * build does not make are among the target's it does not make (gone)
     * and those \changed paths */
    for (int pass = 0; pass < 2; pass++) {
        char **v = pass ? o->manifest.changed : o->gone;
        size_t n = pass ? o->manifest.nchanged : o->ngone;
        for (size_t i = 0; i < n; i++)
            if (spare_has(o, v[i]) && strmap_get(o->produced, v[i]) < 0)
                prune(o, v[i], false);
    }
    strmap *now = strmap_new(o->nuser * 2 + 16);
    for (size_t i = 0; i < o->nuser; i++)
        strmap_put(now, o->user[i], 1);
    char **gone = xmalloc((o->manifest.nuser + 1) * sizeof *gone);
    size_t ngone = 0;
    for (size_t i = 0; i < o->manifest.nuser; i++) {
        const char *u = o->manifest.user[i];
        if (strmap_get(now, u) < 0 && strmap_get(o->produced, u) < 0 && !is_pdir(o, u))
            gone[ngone++] = o->manifest.user[i];
    }
    vec_sort(gone, ngone, sizeof *gone, cmp_rev); /* what is in a folder before the folder */
    for (size_t i = 0; i < ngone; i++) {
        char *p = fs_join(o->tmp, gone[i]);
        struct stat st;
        bool dir = lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
        free(p);
        prune(o, gone[i], dir);
    }
    free(gone);
    strmap_free(now);
    vec_sort(o->user, o->nuser, sizeof *o->user, vec_cmp_str); /* a folder before what is in it */
    bool ok = true;
    for (size_t i = 0; i < o->nuser && ok; i++) {
        char *from = fs_join(o->target, o->user[i]), *to = fs_join(o->tmp, o->user[i]);
        struct stat fs, ts;
        if (lstat(from, &fs) != 0) {
            /* gone meanwhile */
        } else if (S_ISDIR(fs.st_mode)) {
            if (lstat(to, &ts) == 0 && S_ISDIR(ts.st_mode)) {
                if ((ts.st_mode & 07777) != (fs.st_mode & 07777))
                    chmod(to, fs.st_mode & 07777);
            } else {
                clear_dst(o, to);
                ok = make_parent(o, to) && mkdir(to, fs.st_mode & 07777) == 0;
            }
        } else if (!(lstat(to, &ts) == 0 && ts.st_ino == fs.st_ino && ts.st_dev == fs.st_dev)) {
            clear_dst(o, to);
            ok = make_parent(o, to) && carry(from, to, &fs);
        }
        if (!ok)
            report_write(o, "carry over", o->user[i], from, d);
        free(from);
        free(to);
    }
    return ok;
}

typedef struct carry_ctx {
    output *o;
    dev_t dev;      /* the old folder's device: a folder on another is a mount */
    diag_list *d;
    bool ok;
    struct folder_index *known; /* the last walk's records of the old folder's folders, or NULL */
} carry_ctx;

/* Someone else's entry rel of the old folder stands where this build puts
 * its own: with --force the build's wins (the other one is dropped), else
 * it is an error. */
static void clash(carry_ctx *c, const char *rel, bool dir)
{
    output *o = c->o;
    if (o->force) {
        atomic_fetch_add(&o->removed, 1);
        return;
    }
    char *p = fs_join(o->target, rel);
    diag_error(c->d, p, 0, 0,
               "this %s is in the way of the build's output and sheaf did not write it (it is not "
               "in " OUTPUT_MANIFEST "): move it away, or build with --force to replace it",
               dir ? "folder" : "file");
    free(p);
    c->ok = false;
}

/* ---- folder stamps -------------------------------------------------------
 * The walk of the old folder for other people's files lists a folder only
 * when it may have changed since the last walk of that tree (two builds
 * ago: the trees take turns). What proves it did not: its stamp — device,
 * inode, mode, modification and change times — is the one that walk saw.
 * The kernel sets a folder's modification and change times whenever an
 * entry is made, removed or renamed in it (and the change time on any
 * change of the folder itself: its mode, its times set by hand); nothing
 * sets a change time back. So an equal stamp means the same entries, and
 * each entry the same inode: a file changed in place is still the file
 * the new tree links to. It says nothing of the folders below, which have
 * stamps of their own; so every folder of the tree is stat-ed, and only
 * those whose stamp moved are listed again.
 *
 * A stamp is kept as "trusted" only when its times are older than the
 * clock of the file system read before the walk began (o->clock: the
 * staging folder's change time, set to now): an entry made later, even in
 * the same tick of a coarse clock, gives the folder a later change time.
 * A folder changed during the walk or just before it is listed again by
 * the next walk of its tree. (A clock set back past a folder's times could
 * hide a change, as for the sources' records; --no-cache does not help
 * here: remove the spare beside the output folder.)
 *
 * The records travel in the manifests: a build writes the stamps its walk
 * saw into the new tree's manifest (\folder lines), describing the tree it
 * replaced — the next build's spare. The build after that, if it found
 * that spare trusted (its manifest is the one named) and brought it up to
 * date in place (the target's manifest says \base with the spare's
 * manifest's hash), has the old folder's records in the spare's manifest.
 * Folders that build changed in the spare have moved on, and are listed.
 * (The index of those records, folder_index, is above: the thread that
 * reads the manifests ahead makes it.) */

#define NONE ((size_t)-1)

/* The record of the folder that path (a folder's or a user entry's) is
 * in, or -1 (the top, or a folder without one). */
static long record_above(const folder_index *x, char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        return -1;
    *slash = 0; /* (the manifest's text, put back at once) */
    long p = strmap_get(x->at, path);
    *slash = '/';
    return p;
}

static folder_index *index_folders(const manifest *m)
{
    folder_index *x = xcalloc(1, sizeof *x);
    x->m = m;
    size_t n = m->nfolders;
    x->at = strmap_new(n + 16); /* (the hint is a count: the map makes twice its room) */
    x->child = xmalloc((n + 1) * sizeof *x->child);
    x->next = xmalloc((n + 1) * sizeof *x->next);
    x->uhead = xmalloc((n + 1) * sizeof *x->uhead);
    x->taken = xcalloc(n + 1, sizeof *x->taken);
    bool *repeated = xcalloc(n + 1, sizeof *repeated); /* a line whose path an earlier one has */
    for (size_t i = 0; i < n; i++) {
        x->child[i] = x->next[i] = x->uhead[i] = NONE;
        repeated[i] = strmap_put(x->at, m->folders[i].path, (long)i) != (long)i;
    }
    for (size_t i = n; i-- > 0;) { /* (backwards: each list in the file's order) */
        long p = repeated[i] ? -1 : record_above(x, m->folders[i].path);
        if (p >= 0) {
            x->next[i] = x->child[p];
            x->child[p] = i;
        }
    }
    free(repeated);
    x->unext = xmalloc((m->nuser + 1) * sizeof *x->unext);
    x->udir = xcalloc(m->nuser + 1, sizeof *x->udir);
    for (size_t i = m->nuser; i-- > 0;) {
        long p = record_above(x, m->user[i]);
        x->udir[i] = strmap_get(x->at, m->user[i]) >= 0;
        x->unext[i] = NONE;
        if (p >= 0) {
            x->unext[i] = x->uhead[p];
            x->uhead[p] = i;
        }
    }
    return x;
}

/* What the walk asks of a folder's lstat, kept compactly (64 bytes a
 * folder, not a struct stat's 144: 14,000 folders at 10,000 posts). */
typedef struct prestat {
    uint64_t dev, ino, size;
    struct timespec mtim, ctim;
    uint32_t mode;
    bool ok;       /* taken: the folder was there */
    bool walkable; /* walkable()'s answer for it, asked with the stat */
} prestat;

typedef struct prestat_part {
    folder_index *x;
    int fd;           /* the target, open */
    size_t from, to;  /* the records this part stats */
    dev_t dev;        /* the walk's device */
    const strmap *produced;
} prestat_part;

static bool walkable(const folder_index *x, long k, const char *rel, const struct stat *st, dev_t dev,
                     const strmap *produced);

/* fn on the two halves of a piece of work: the second on a thread of its
 * own when `two` (and one can be made), else after the first. */
static void in_halves(void *(*fn)(void *), void *first, void *second, bool two)
{
    pthread_t t;
    two = two && pthread_create(&t, NULL, fn, second) == 0;
    fn(first);
    if (two)
        pthread_join(t, NULL);
    else
        fn(second);
}

static void *prestat_run(void *arg)
{
    prestat_part *pp = arg;
    for (size_t i = pp->from; i < pp->to; i++) {
        struct stat st;
        prestat *p = &pp->x->pre[i];
        const char *rel = pp->x->m->folders[i].path;
        p->ok = fstatat(pp->fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (p->ok)
            *p = (prestat){ (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size, st.st_mtim,
                            st.st_ctim, (uint32_t)st.st_mode, true,
                            walkable(pp->x, (long)i, rel, &st, pp->dev, pp->produced) };
    }
    return NULL;
}

/* Every record's folder stat-ed before the walk, half of them on a second
 * thread: the walk's one lstat a folder of the tree (which its stamp needs)
 * is most of the commit, and independent of the others; so is whether the
 * walk may take the folder from its record (walkable: a look-up among the
 * paths produced and a hash of the stamp). Each is taken, as
 * the walk's own was, after the walk's clock and before any listing; the
 * walk uses a record's only when it reaches the folder through its parent
 * (stat-ed and found a folder, as before), and stats it itself where the
 * early one failed (so its error is said as before). */
static void prestat_folders(folder_index *x, int fd, dev_t dev, const strmap *produced)
{
    size_t n = x->m->nfolders;
    if (fd < 0 || n < 2)
        return;
    x->pre = xcalloc(n, sizeof *x->pre);
    prestat_part half[2] = { { x, fd, 0, n / 2, dev, produced }, { x, fd, n / 2, n, dev, produced } };
    in_halves(prestat_run, &half[0], &half[1], n >= 512);
}

/* The lstat of record k's folder, name in the folder open at dfd: the one
 * taken before the walk, else taken now. */
static bool record_stat(const folder_index *x, long k, int dfd, const char *name, struct stat *st)
{
    if (x && x->pre && k >= 0 && x->pre[k].ok) {
        const prestat *p = &x->pre[k];
        memset(st, 0, sizeof *st);
        st->st_dev = (dev_t)p->dev;
        st->st_ino = (ino_t)p->ino;
        st->st_size = (off_t)p->size;
        st->st_mtim = p->mtim;
        st->st_ctim = p->ctim;
        st->st_mode = (mode_t)p->mode;
        return true;
    }
    return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void free_folders(folder_index *x)
{
    if (!x)
        return;
    free(x->pre);
    strmap_free(x->at);
    free(x->child);
    free(x->next);
    free(x->uhead);
    free(x->unext);
    free(x->udir);
    free(x->taken);
    free(x);
}

static uint64_t folder_stamp(const struct stat *st)
{
    uint64_t w[7] = { (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_mode,
                      (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec,
                      (uint64_t)st->st_ctim.tv_sec, (uint64_t)st->st_ctim.tv_nsec };
    uint64_t h = hash_bytes(w, sizeof w);
    return h ? h : 1; /* 0: not trusted */
}

static bool earlier(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec != b->tv_sec ? a->tv_sec < b->tv_sec : a->tv_nsec < b->tv_nsec;
}

/* The file system's clock: the change time folder dir (one of sheaf's,
 * whose times are its own) takes when its times are set to now. */
static bool fs_clock(const char *dir, struct timespec *now)
{
    struct stat st;
    if (utimensat(AT_FDCWD, dir, NULL, 0) != 0 || stat(dir, &st) != 0)
        return false;
    *now = st.st_ctim;
    return true;
}

/* What this build's walk saw of the folder rel (for the new manifest);
 * rel is kept (a record's path, or one copied into o->seen_paths). */
static void saw_folder(output *o, const char *rel, uint64_t stamp, bool direct)
{
    *VEC_ADD(o->seen, o->nseen, o->capseen, 256) = (manifest_folder){ (char *)rel, stamp, direct };
}

/* The stamp of a folder listed now (st: its lstat, taken before the
 * listing), or 0 when its times are not older than the walk's clock. */
static uint64_t fresh_stamp(const output *o, const struct stat *st)
{
    bool old = o->clock.tv_sec && earlier(&st->st_mtim, &o->clock) && earlier(&st->st_ctim, &o->clock);
    return old ? folder_stamp(st) : 0;
}

/* Record i, when it is trusted and its stamp is the folder's now (st). */
static bool record_holds(const folder_index *x, long i, const struct stat *st)
{
    return i >= 0 && x->m->folders[i].stamp && x->m->folders[i].stamp == folder_stamp(st);
}

/* Whether the walk takes record k's folder rel (st: its lstat) from its
 * record: a folder on the walk's device, not a path this build makes,
 * whose record holds. */
static bool walkable(const folder_index *x, long k, const char *rel, const struct stat *st, dev_t dev,
                     const strmap *produced)
{
    return S_ISDIR(st->st_mode) && st->st_dev == dev && strmap_get(produced, rel) < 0 && record_holds(x, k, st);
}

/* walkable, answered before the walk when the folder was stat-ed then. */
static bool takes_record(const carry_ctx *c, long k, const char *rel, const struct stat *st)
{
    const folder_index *x = c->known;
    if (x->pre && x->pre[k].ok)
        return x->pre[k].walkable;
    return walkable(x, k, rel, st, c->dev, c->o->produced);
}

static bool carry_over(carry_ctx *c, const char *rel, const struct stat *self, long rec);

/* One entry r of the old folder, not one of sheaf's files that its
 * directory entry showed to be no folder: st its lstat (NULL: not taken
 * yet), rec its record when it is a folder with one (-1: look it up).
 * Returns whether it is or holds files of sheaf's. */
static bool carry_entry(carry_ctx *c, const char *r, const struct stat *known_st, long rec)
{
    output *o = c->o;
    bool ours = false;
    char *from = fs_join(o->target, r), *to = fs_join(o->tmp, r);
    struct stat st, ts;
    bool in_new = false;
    /* the entry's lstat first: whether it is a folder decides what to ask
     * of the new tree (the folders of this build's files are gathered only
     * for an entry that is no folder: is_pdir) */
    bool read = known_st ? (st = *known_st, true) : lstat(from, &st) == 0;
    if (!read) {
        /* said below */
    } else if (o->use_spare) { /* the spare holds older files: ask what this build made */
        bool file = strmap_get(o->produced, r) >= 0;
        /* (a folder of the new tree matters only to an entry that is no folder) */
        in_new = file || (!S_ISDIR(st.st_mode) && is_pdir(o, r));
        ts.st_mode = file ? S_IFREG : S_IFDIR;
    } else {
        in_new = lstat(to, &ts) == 0;
    }
    if (!read) {
        diag_error(c->d, from, 0, 0, "cannot read: %s", strerror(errno));
        c->ok = false;
    } else if (S_ISDIR(st.st_mode)) {
        if (st.st_dev != c->dev) {
            diag_error(c->d, from, 0, 0,
                       "a file system is mounted here, inside the output folder: sheaf "
                       "replaces the output folder as a whole and cannot take it along; "
                       "unmount it, or mount it at the output folder itself");
            c->ok = false;
        } else if (in_new && !S_ISDIR(ts.st_mode)) {
            saw_folder(o, arena_strdup(o->seen_paths, r), 0, false); /* not walked: listed next time */
            clash(c, r, true);
        } else if (carry_over(c, r, &st, rec)) {
            ours = true;
        } else if (o->use_spare) {
            user_entry(o, r, true); /* made in the spare once the spare is pruned */
        } else if (lstat(to, &ts) == 0) {
            chmod(to, st.st_mode & 07777); /* someone else's folder, carried over */
            user_entry(o, r, true);
        } else if (c->ok && (!ensure_parent(to) || mkdir(to, st.st_mode & 07777) != 0)) {
            /* someone else's empty folder: kept too */
            report_write(o, "create", r, to, c->d);
            c->ok = false;
        } else {
            user_entry(o, r, true);
        }
    } else if (manifest_has(&o->manifest, r)) {
        ours = true;
        if (strmap_get(o->produced, r) < 0)
            atomic_fetch_add(&o->removed, 1);
    } else if (in_new) {
        clash(c, r, false);
    } else if (o->use_spare) {
        if (under_produced(o, r))
            clash(c, r, false); /* one of this build's files is where its folder was */
        else
            user_entry(o, r, false);
    } else if (!ensure_parent(to)) {
        if (errno == ENOTDIR || errno == EEXIST) {
            clash(c, r, false); /* one of this build's files is where its folder was */
        } else {
            report_write(o, "create the folder of", r, to, c->d);
            c->ok = false;
        }
    } else if (!carry(from, to, &st)) {
        report_write(o, "carry over", r, from, c->d);
        c->ok = false;
    } else {
        user_entry(o, r, false);
    }
    free(from);
    free(to);
    return ours;
}

/* The folder of record i (self: its lstat, whose stamp is the record's)
 * as the last walk of it saw it: the same entries, so the same files.
 * Its folders are stat-ed (relative to it, opened) and walked in turn;
 * someone else's entries in it are carried by name; its own files of
 * sheaf's are not looked at (those this build no longer makes are counted
 * as removed after the walk: count_removed). Returns whether it holds
 * files of sheaf's. */
static bool walk_known(carry_ctx *c, size_t i, const struct stat *self)
{
    folder_index *x = c->known;
    output *o = c->o;
    const manifest_folder *f = &x->m->folders[i];
    x->known++;
    x->taken[i] = true;
    saw_folder(o, f->path, f->stamp, f->direct);
    bool ours = f->direct;
    int dfd = -1;
    if (x->child[i] != NONE) {
        char *dir = fs_join(o->target, f->path);
        struct stat now;
        dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0 || fstat(dfd, &now) != 0 || now.st_ino != self->st_ino || now.st_dev != self->st_dev) {
            diag_error(c->d, dir, 0, 0, "cannot read the old output's folder: %s",
                       dfd < 0 ? strerror(errno) : "it changed during the build");
            c->ok = false;
        }
        free(dir);
    }
    for (size_t k = x->child[i]; k != NONE && c->ok; k = x->next[k]) {
        const char *r = x->m->folders[k].path, *name = strrchr(r, '/') + 1;
        struct stat st;
        if (!record_stat(x, (long)k, dfd, name, &st)) {
            char *from = fs_join(o->target, r);
            diag_error(c->d, from, 0, 0, "cannot read: %s", strerror(errno));
            free(from);
            c->ok = false;
        } else if (takes_record(c, (long)k, r, &st)) {
            /* (carry_entry's way for a folder, without its questions) */
            if (walk_known(c, k, &st))
                ours = true;
            else
                user_entry(o, r, true);
        } else if (carry_entry(c, r, &st, (long)k)) {
            ours = true;
        }
    }
    if (dfd >= 0)
        close(dfd);
    for (size_t k = x->uhead[i]; k != NONE && c->ok; k = x->unext[k]) {
        const char *r = x->m->user[k];
        if (x->udir[k])
            continue; /* someone else's folder: one of the folders above */
        /* no folder (the last walk saw none here, and the folder has the
         * same entries): carry_entry's way for such an entry, unread */
        if (manifest_has(&o->manifest, r))
            ours = true;
        else if (strmap_get(o->produced, r) >= 0 || is_pdir(o, r) || under_produced(o, r))
            clash(c, r, false);
        else
            user_entry(o, r, false);
    }
    return ours;
}

/* What the walk of a listed folder asks of each entry (its path rel/name)
 * before it looks at any: a file's, whether the target's manifest lists
 * it; a folder's, its record (or -1). Both are look-ups in maps that no
 * one changes meanwhile, so a long folder's (posts/, with a folder for
 * each post) are made on two threads. */
typedef struct entry_asks {
    const output *o;
    const folder_index *x;
    const char *rel;
    const char *names;
    const size_t *at;
    const unsigned char *type;
    long *ans;
    size_t from, to;
} entry_asks;

static void *ask_entries(void *arg)
{
    entry_asks *q = arg;
    buf r = BUF_INIT;
    for (size_t i = q->from; i < q->to; i++) {
        buf_reset(&r);
        if (q->rel[0]) {
            buf_puts(&r, q->rel);
            buf_putc(&r, '/');
        }
        buf_puts(&r, q->names + q->at[i]);
        if (q->type[i] != DT_UNKNOWN && q->type[i] != DT_DIR)
            q->ans[i] = manifest_has(&q->o->manifest, r.data);
        else
            q->ans[i] = q->type[i] == DT_DIR && q->x ? strmap_get(q->x->at, r.data) : -1;
    }
    buf_release(&r);
    return NULL;
}

#define ASK_TWO_MIN 2048 /* entries: fewer are asked on one thread */

static long *ask_all(const output *o, const folder_index *x, const char *rel, const buf *names, const size_t *at,
                     const unsigned char *type, size_t n)
{
    long *ans = xmalloc((n + 1) * sizeof *ans);
    entry_asks half[2] = { { o, x, rel, names->data, at, type, ans, 0, n / 2 },
                           { o, x, rel, names->data, at, type, ans, n / 2, n } };
    in_halves(ask_entries, &half[0], &half[1], n >= ASK_TWO_MIN);
    return ans;
}

/* Carries over into the staging tree what is not sheaf's in the old
 * folder's rel ("" the top; self: its lstat, taken before it is listed):
 * anything not in the manifest (hard-linked), and folders that hold
 * nothing of sheaf's. Counts sheaf's old files that this build did not
 * produce as removed. Returns whether rel holds any of sheaf's files. */
static bool carry_over(carry_ctx *c, const char *rel, const struct stat *self, long rec)
{
    output *o = c->o;
    bool ours = false;
    folder_index *x = c->known;
    if (x && self && rec < 0)
        rec = strmap_get(x->at, rel);
    if (x && self && record_holds(x, rec, self))
        return walk_known(c, (size_t)rec, self);
    if (x)
        x->listed++;
    char *dir = rel[0] ? fs_join(o->target, rel) : xstrdup(o->target);
    DIR *dp = opendir(dir);
    if (!dp) {
        diag_error(c->d, dir, 0, 0, "cannot read the old output's folder: %s", strerror(errno));
        c->ok = false;
        free(dir);
        return true;
    }
    /* the names, one after the other in one buffer (at[i]: where the
     * i-th starts), and each entry's path made in one reused buffer: the
     * folder listed may be posts/, with an entry a post */
    buf names = BUF_INIT, r = BUF_INIT;
    size_t *at = NULL;
    unsigned char *type = NULL; /* the i-th name's d_type */
    size_t n = 0, cap = 0, tcap = 0;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            (rel[0] || strcmp(e->d_name, OUTPUT_MANIFEST))) {
            size_t was = n;
            *VEC_ADD(at, n, cap, 16) = names.len;
            VEC_PUSH(type, was, tcap, 16, e->d_type);
            buf_put(&names, e->d_name, strlen(e->d_name) + 1);
        }
    bool direct = false; /* files of sheaf's in rel itself */
    long *ans = ask_all(o, x, rel, &names, at, type, n);
    for (size_t i = 0; i < n && c->ok; i++) {
        const char *name = names.data + at[i];
        buf_reset(&r);
        if (rel[0]) {
            buf_puts(&r, rel);
            buf_putc(&r, '/');
        }
        buf_puts(&r, name);
        struct stat st;
        long k;
        if (type[i] != DT_UNKNOWN && type[i] != DT_DIR && ans[i]) {
            /* one of sheaf's files (most of the folder): nothing to stat,
             * the staging tree has this build's */
            ours = direct = true;
            if (strmap_get(o->produced, r.data) < 0)
                atomic_fetch_add(&o->removed, 1);
        } else if (type[i] == DT_DIR && x && (k = ans[i]) >= 0 &&
                   record_stat(x, k, dirfd(dp), name, &st) && takes_record(c, k, r.data, &st)) {
            /* a folder the last walk saw as it is (as in walk_known) */
            if (walk_known(c, (size_t)k, &st))
                ours = true;
            else
                user_entry(o, r.data, true);
        } else if (carry_entry(c, r.data, NULL, -1)) {
            ours = true;
            direct = direct || manifest_has(&o->manifest, r.data);
        }
    }
    closedir(dp);
    if (self)
        saw_folder(o, arena_strdup(o->seen_paths, rel), fresh_stamp(o, self), direct);
    buf_release(&names);
    buf_release(&r);
    free(at);
    free(type);
    free(ans);
    free(dir);
    return ours;
}

/* The target's files of sheaf's that this build does not make (o->gone):
 * none when every path it made that the target's manifest lists is one
 * of them (counted as they were made), else looked for. */
static void find_gone(output *o)
{
    if (!o->manifest.text || (o->nours == o->manifest.n && !o->ndup))
        return;
    o->gone = xmalloc((o->manifest.n + 1) * sizeof *o->gone);
    for (size_t i = 0; i < o->manifest.n; i++)
        if (strmap_get(o->produced, o->manifest.list[i]) < 0)
            o->gone[o->ngone++] = o->manifest.list[i];
}

/* The old folder's files of sheaf's that this build does not make, in the
 * folders the walk took from their records (it counted those of the
 * folders it listed). */
static void count_removed(carry_ctx *c)
{
    folder_index *x = c->known;
    if (!x || !x->known)
        return;
    output *o = c->o;
    for (size_t i = 0; i < o->ngone; i++) {
        long k = record_above(x, o->gone[i]);
        if (k >= 0 && x->taken[k])
            atomic_fetch_add(&o->removed, 1);
    }
}

/* ---- the records of a tree staged whole -------------------------------- *
 * A build without a spare to bring up to date (the second build of an
 * output folder, or one after a spare that could not be used) stages a
 * whole new tree, and the walk of the folder it replaced records that
 * folder's stamps, not the new tree's. The build after it would then list
 * every folder of its target (this new tree): at 10,000 posts a walk of
 * 150 ms instead of 8. So such a build also stats the folders of the tree
 * it staged, once the tree is whole (its files made, other people's
 * entries carried over; only its manifest, at the top, is still to be
 * written), and writes them in that tree's manifest as \own lines. A stamp
 * is kept only when the folder's times are older than the file system's
 * clock read before these stats, as the walk's are ("folder stamps"); the
 * rest are listed by the next walk. The folders are those above every
 * path the build made and every entry of someone else's it carried, and
 * those entries that are folders: all the folders of the tree, so a
 * record's folders are records too (walk_known walks a folder's folders
 * by its records). The next build uses them only when it walks this tree
 * as its target with a spare (walk_known's way: other people's entries
 * mirrored into the spare by sync_spare) and the tree was staged whole
 * (no \base). */

typedef struct own_part {
    manifest_folder *f;
    bool *dir;
    int fd;           /* the staged tree, open */
    struct timespec clock;
    size_t from, to;
} own_part;

static void *own_stat_run(void *arg)
{
    own_part *pp = arg;
    for (size_t i = pp->from; i < pp->to; i++) {
        struct stat st;
        manifest_folder *f = &pp->f[i];
        pp->dir[i] = fstatat(pp->fd, f->path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        bool old = earlier(&st.st_mtim, &pp->clock) && earlier(&st.st_ctim, &pp->clock);
        f->stamp = pp->dir[i] && old ? folder_stamp(&st) : 0;
    }
    return NULL;
}

/* rel's folders into the list (at: path → its index), rel's own with
 * `direct` (it holds a file of sheaf's), those above it without. */
static void own_above(output *o, strmap *at, const char *rel, bool direct, size_t *cap)
{
    char *p = arena_strdup(o->own_paths, rel);
    for (char *s = strrchr(p, '/'); s; s = strrchr(p, '/')) {
        *s = 0;
        long k = strmap_get(at, p);
        if (k >= 0) {
            o->own[k].direct = o->own[k].direct || direct;
            return; /* (and the folders above it are in) */
        }
        strmap_put(at, p, (long)o->nown);
        *VEC_ADD(o->own, o->nown, *cap, 256) = (manifest_folder){ p, 0, direct };
        direct = false;
        p = arena_strdup(o->own_paths, p); /* (the next one up: a string of its own) */
    }
}

/* The file system's clock (fs_clock) of the staging folder, read until it
 * has moved past its first reading:
 * every folder changed before is then older than it, so its stamp can be
 * kept (the last ones changed, the folders that received other people's
 * entries at the end of the walk, would otherwise fall in the clock's
 * tick and be listed again). At most about 50 ms (a coarse clock's tick
 * is a few). */
static bool tick_after(const char *dir, struct timespec *now)
{
    struct timespec first;
    if (!fs_clock(dir, &first))
        return false;
    *now = first;
    for (int i = 0; i < 50 && !earlier(&first, now); i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
        if (!fs_clock(dir, now))
            return false;
    }
    return true;
}

static int cmp_folder(const void *a, const void *b)
{
    return strcmp(((const manifest_folder *)a)->path, ((const manifest_folder *)b)->path);
}

/* The folders of the tree o staged whole, with their stamps (o->own). */
static void stat_own(output *o)
{
    struct timespec now;
    int fd = open(o->tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (!tick_after(o->tmp, &now)) {
        close(fd);
        return;
    }
    o->own_paths = arena_new();
    strmap *at = strmap_new(o->nkeys / 2 + 16);
    size_t cap = 0;
    for (size_t i = 0; i < o->nkeys; i++)
        own_above(o, at, o->keys[i], true, &cap);
    for (size_t i = 0; i < o->nuser; i++) {
        own_above(o, at, o->user[i], false, &cap);
        if (strmap_get(at, o->user[i]) < 0) { /* perhaps a folder: the stat says */
            char *p = arena_strdup(o->own_paths, o->user[i]);
            strmap_put(at, p, (long)o->nown);
            *VEC_ADD(o->own, o->nown, cap, 256) = (manifest_folder){ p, 0, false };
        }
    }
    strmap_free(at);
    bool *dir = xcalloc(o->nown + 1, sizeof *dir);
    own_part half[2] = { { o->own, dir, fd, now, 0, o->nown / 2 },
                         { o->own, dir, fd, now, o->nown / 2, o->nown } };
    in_halves(own_stat_run, &half[0], &half[1], o->nown >= 512);
    close(fd);
    size_t n = 0; /* (a user entry that is no folder is no record) */
    for (size_t i = 0; i < o->nown; i++)
        if (dir[i])
            o->own[n++] = o->own[i];
    o->nown = n;
    free(dir);
    vec_sort(o->own, o->nown, sizeof *o->own, cmp_folder);
}

/* Whether the old tree stays beside the new one as its spare: a one-shot
 * build's (a build session replaces files in place between its builds,
 * which the spare's bookkeeping does not follow), of a target sheaf made. */
static bool keeps_spare(const output *o)
{
    return !o->mem && o->exists && o->manifest.text && !o->spare_busy;
}

/* Writes the staging tree's manifest (util/manifest.h): every path this
 * build produced, and its generation: the hash of the target's manifest
 * (the tree that becomes the spare), the paths whose files differ between
 * the two (written by this build, or the target's that it did not make)
 * and what is someone else's in it. The old one is linked when its bytes
 * are the same. */
static bool write_manifest(output *o, diag_list *d)
{
    buf b = BUF_INIT;
    char **changed = xmalloc((o->nstaged + o->ngone + 1) * sizeof *changed);
    size_t nchanged = 0;
    for (size_t i = 0; i < o->nstaged; i++)
        changed[nchanged++] = o->staged[i];
    for (size_t i = 0; i < o->ngone; i++)
        changed[nchanged++] = o->gone[i];
    /* (a build that keeps no spare writes only the paths, as sheaf did
     * before spares: a session's, a first build's) */
    bool gen = keeps_spare(o);
    manifest_gen g = { .generation = gen ? o->manifest.generation + 1 : 0,
                       .spare = o->manifest.hash,
                       .changed = changed,
                       .nchanged = nchanged,
                       .user = o->user,
                       .nuser = o->nuser,
                       .base = o->use_spare ? o->spare_m.hash : 0,
                       .folders = o->seen,
                       .nfolders = o->nseen,
                       .own = o->own,
                       .nown = o->nown };
    /* the same paths as the target's (sorted there): not sorted again */
    bool same_paths = o->manifest.text && o->manifest.sorted && !o->ngone && !o->ndup &&
                      o->nkeys == o->manifest.n;
    g.sorted = same_paths;
    g.same = same_paths ? &o->manifest : NULL; /* its lines copied, when it can say they are plain */
    manifest_format_gen(same_paths ? o->manifest.list : o->keys, o->nkeys, &g, &b);
    free(changed);
    char *dst = fs_join(o->tmp, OUTPUT_MANIFEST);
    char *old = fs_join(o->target, OUTPUT_MANIFEST);
    bool ok = true;
    clear_dst(o, dst);
    /* (with generation lines, never the old bytes: the generation moved) */
    if (!(!gen && o->manifest.text && o->manifest.len == b.len && same_as(old, b.data, b.len) &&
          keep_old(o, OUTPUT_MANIFEST, old, dst, true)) &&
        !fs_write_file(dst, b.data, b.len)) {
        report_write(o, "write", OUTPUT_MANIFEST, dst, d);
        ok = false;
    }
    free(old);
    free(dst);
    buf_release(&b);
    return ok;
}

/* Swaps the staging folder and the target in one step. Where that cannot
 * be done (a kernel or file system without RENAME_EXCHANGE, or
 * SHEAF_RENAME_FALLBACK=1 for the tests), the target is renamed to o->old
 * and the staging folder to the target. Either way the old tree ends up at
 * *old_tree. */
static bool exchange(output *o, const char **old_tree, diag_list *d)
{
    *old_tree = o->tmp;
    const char *fb = getenv("SHEAF_RENAME_FALLBACK");
    bool fallback = fb && !strcmp(fb, "1");
#ifdef RENAME_EXCHANGE
    if (!fallback) {
        if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->target, RENAME_EXCHANGE) == 0)
            return true;
        if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
            diag_error(d, o->target, 0, 0, "cannot exchange the new output with the old one: %s",
                       strerror(errno));
            return false;
        }
    }
#endif
    if (rename(o->target, o->old) != 0) {
        diag_error(d, o->target, 0, 0, "cannot move the old output aside to %s: %s", o->old,
                   strerror(errno));
        return false;
    }
    if (rename(o->tmp, o->target) != 0) {
        int e = errno;
        rename(o->old, o->target);
        diag_error(d, o->target, 0, 0, "cannot move the new output into place: %s", strerror(e));
        return false;
    }
    *old_tree = o->old;
    return true;
}

bool output_end(output *o, bool ok, diag_list *d)
{
    if (!o->write)
        return ok;
    if (!ok) {
        if (o->tmp)
            fs_rmtree(o->tmp);
        return false;
    }
    if (o->partial) {
        /* a build session's rebuild of a few outputs: the rest stays */
        bool all = true;
        for (size_t i = 0; i < o->nstaged; i++) {
            if (!commit_one(o, o->staged[i])) {
                diag_error(d, NULL, 0, 0, "cannot move %s into %s: %s", o->staged[i], o->target,
                           strerror(errno));
                all = false;
            }
        }
        fs_rmtree(o->tmp);
        if (!all)
            memory_clear(o->mem);
        else if (o->known)
            remember(o, false);
        return all;
    }
    carry_ctx c = { o, 0, d, true, NULL };
    struct stat st;
    find_gone(o);
    if (o->exists) {
        if (lstat(o->target, &st) != 0 || !S_ISDIR(st.st_mode)) {
            diag_error(d, o->target, 0, 0, "the output folder changed during the build (%s): "
                       "not replacing it", strerror(errno));
            c.ok = false;
        } else {
            c.dev = st.st_dev;
            o->seen_paths = arena_new();
            /* the file system's clock, before any folder is stat-ed (see
             * "folder stamps"); the staging folder's times are its own */
            struct timespec now;
            if (fs_clock(o->tmp, &now))
                o->clock = now;
            /* the last walk's records of this tree: in the spare's
             * manifest, when this tree is that spare brought up to date */
            manifest own; /* (the target's manifest, its \own lines as the records) */
            if (o->use_spare && o->manifest.base && o->manifest.base == o->spare_m.spare) {
                c.known = o->spare_index ? o->spare_index : index_folders(&o->spare_m);
                o->spare_index = NULL;
            } else if (o->use_spare && !o->manifest.base && o->manifest.nown) {
                /* a tree staged whole, never walked since: the records
                 * its build took of it once it was whole */
                own = o->manifest;
                own.folders = own.own;
                own.nfolders = own.nown;
                c.known = index_folders(&own);
            }
            struct stat tf; /* (relative to the target held open, when it is still the one here) */
            double t0 = render_now_ms();
            if (c.known && o->target_fd >= 0 && fstat(o->target_fd, &tf) == 0 && tf.st_ino == st.st_ino &&
                tf.st_dev == st.st_dev)
                prestat_folders(c.known, o->target_fd, c.dev, o->produced);
            double t1 = render_now_ms();
            carry_over(&c, "", NULL, -1);
            count_removed(&c);
            o->ms_folders = t1 - t0;
            o->ms_walk = render_now_ms() - t1;
            if (c.known) {
                o->nlisted = c.known->listed;
                o->nknown = c.known->known;
            }
            free_folders(c.known);
        }
    }
    if (c.ok && o->use_spare)
        c.ok = sync_spare(o, d);
    if (c.ok && keeps_spare(o) && !o->use_spare)
        stat_own(o);
    double tm = render_now_ms();
    if (c.ok)
        c.ok = write_manifest(o, d);
    o->ms_manifest = render_now_ms() - tm;
    const char *old_tree = NULL;
    if (c.ok && !o->exists) {
        if (lstat(o->target, &st) == 0) {
            diag_error(d, o->target, 0, 0, "appeared during the build: not replacing it");
            c.ok = false;
        } else if (rename(o->tmp, o->target) != 0) {
            diag_error(d, o->target, 0, 0, "cannot move the new output into place: %s",
                       strerror(errno));
            c.ok = false;
        }
    } else if (c.ok) {
        c.ok = exchange(o, &old_tree, d);
    }
    if (!c.ok) {
        fs_rmtree(o->tmp);
        if (o->mem)
            memory_clear(o->mem); /* not sure what is there now: compare with the disk */
        return false;
    }
    /* the old tree is the next build's spare (already so named when this
     * build staged in the spare) */
    if (old_tree && strcmp(old_tree, o->spare) != 0 &&
        !(keeps_spare(o) && rename(old_tree, o->spare) == 0) && !fs_rmtree(old_tree))
        diag_warning(d, old_tree, 0, 0,
                     "cannot remove the previous output: %s; the next build removes it",
                     strerror(errno));
    if (o->mem)
        remember(o, true);
    return true;
}

void output_free(output *o)
{
    free(o->target);
    free(o->tmp);
    free(o->old);
    free(o->spare);
    o->target = o->tmp = o->old = o->spare = NULL;
    for (size_t i = 0; i < o->nuser; i++)
        free(o->user[i]);
    free(o->user);
    free(o->seen);
    arena_free(o->seen_paths);
    free(o->own);
    arena_free(o->own_paths);
    free(o->gone);
    for (size_t i = 0; i < o->npdir; i++)
        free(o->pdir_keys[i]);
    free(o->pdir_keys);
    strmap_free(o->pdirs);
    strmap_free(o->stale);
    manifest_free(&o->spare_m);
    free_folders(o->spare_index);
    o->spare_index = NULL;
    if (o->spare_fd >= 0)
        close(o->spare_fd); /* (and its lock with it) */
    o->spare_fd = -1;
    if (o->target_fd >= 0)
        close(o->target_fd);
    o->target_fd = -1;
    arena_free(o->key_text);
    o->key_text = NULL;
    free(o->keys);
    free(o->hashes);
    free(o->lens);
    free(o->staged);
    strmap_free(o->produced);
    manifest_free(&o->manifest);
    o->produced = NULL;
    pthread_mutex_destroy(&o->mu);
}
