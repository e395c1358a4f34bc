/* watch: inotify over a site's sources for `sheaf serve`.
 *
 * The site folder itself is watched without recursion, for site.yaml, the
 * .bib and .json bibliographies beside it, and for the four source folders appearing or going away; each source folder
 * is watched recursively. inotify gives one watch per folder, so every new
 * folder gets its own as it is created or moved in, and the files already
 * in it by then count as changed (a `cp -r` or `mv` lands before the watch
 * does). What cannot be known file by file — a queue overflow, a folder
 * moved out, a source folder created or removed — asks for a full build. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "serve/watch.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/xalloc.h"

static const char *const source_dirs[] = { "content", "templates", "themes", "static", "i18n", "data" };

#define FILE_EVENTS                                                                     \
    (IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM |    \
     IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

/* How long to wait for more once every changed file has been closed after
 * writing or moved into place: an editor's save is one burst of events
 * microseconds apart, so this only has to outlast the burst. */
#define SETTLED_MS 3

typedef struct wdir {
    int wd;
    char *rel; /* "content/posts"; "" for the site folder */
} wdir;

struct watch {
    int fd;
    char *site;
    wdir *dirs;
    size_t ndirs, cap;
};

bool watch_ignored(const char *name) { return fs_left_out(name); }

static wdir *find_wd(watch *w, int wd)
{
    for (size_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd == wd)
            return &w->dirs[i];
    return NULL;
}

/* Sets wd's path; returns false when wd was already known under a path
 * (the same folder reached twice, through a symlink: do not recurse). */
static bool remember(watch *w, int wd, const char *rel)
{
    wdir *d = find_wd(w, wd);
    if (d) {
        free(d->rel);
        d->rel = xstrdup(rel);
        return false;
    }
    wdir *nd = VEC_ADD(w->dirs, w->ndirs, w->cap, 16);
    nd->wd = wd;
    nd->rel = xstrdup(rel);
    return true;
}

static void forget_wd(watch *w, int wd)
{
    for (size_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd == wd) {
            free(w->dirs[i].rel);
            w->dirs[i] = w->dirs[--w->ndirs];
            return;
        }
}

/* Drops the watches of rel and everything under it (moved away). */
static void forget_tree(watch *w, const char *rel)
{
    size_t n = strlen(rel);
    for (size_t i = 0; i < w->ndirs;) {
        const char *r = w->dirs[i].rel;
        if (!strncmp(r, rel, n) && (r[n] == '\0' || r[n] == '/')) {
            inotify_rm_watch(w->fd, w->dirs[i].wd);
            free(w->dirs[i].rel);
            w->dirs[i] = w->dirs[--w->ndirs];
        } else {
            i++;
        }
    }
}

/* The changed paths of one burst, each with what its last event says: the
 * file is whole (closed after writing, moved into place, touched), still
 * open for writing, or gone for now (deleted, moved away, just created) —
 * an editor's rename-then-write may bring it back in a moment. */
typedef enum path_state { PATH_WHOLE, PATH_WRITING, PATH_GONE } path_state;

typedef struct pathset {
    char **p;
    unsigned char *state; /* path_state */
    size_t n, cap;
    size_t count[3];      /* paths in each state */
} pathset;

static void pathset_add(pathset *s, const char *rel, path_state st)
{
    size_t i = 0;
    while (i < s->n && strcmp(s->p[i], rel))
        i++;
    if (i == s->n) {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 16;
            s->p = xrealloc(s->p, s->cap * sizeof *s->p);
            s->state = xrealloc(s->state, s->cap * sizeof *s->state);
        }
        s->p[s->n] = xstrdup(rel);
        s->state[s->n++] = PATH_WHOLE;
        s->count[PATH_WHOLE]++;
    }
    s->count[s->state[i]]--;
    s->state[i] = (unsigned char)st;
    s->count[st]++;
}

static void pathset_free(pathset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->p[i]);
    free(s->p);
    free(s->state);
}

static char *join(const char *a, const char *b)
{
    buf p = BUF_INIT;
    if (*a)
        buf_printf(&p, "%s/", a);
    buf_puts(&p, b);
    return buf_detach(&p, NULL);
}

/* Watches the folder rel (relative to the site) and every folder under it;
 * with found, adds the files met on the way (they may predate the watch).
 * A symbolic link to a folder is not followed (a link to /usr would add
 * thousands of watches, and the build does not publish what lies outside
 * the site); only a source folder itself (content/ as a link) is. */
static void add_tree(watch *w, const char *rel, pathset *found)
{
    char *abs = join(w->site, rel);
    bool top = !strchr(rel, '/');
    int wd = inotify_add_watch(w->fd, abs, FILE_EVENTS | IN_ONLYDIR | (top ? 0 : IN_DONT_FOLLOW));
    if (wd < 0 || !remember(w, wd, rel)) {
        free(abs);
        return;
    }
    DIR *dir = opendir(abs);
    free(abs);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (watch_ignored(e->d_name))
            continue;
        char *child = join(rel, e->d_name);
        char *cabs = join(w->site, child);
        struct stat st;
        if (lstat(cabs, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                add_tree(w, child, found);
            else if (found)
                pathset_add(found, child, PATH_WHOLE);
        }
        free(cabs);
        free(child);
    }
    closedir(dir);
}

watch *watch_new(const char *site_dir, diag_list *d)
{
    watch *w = xcalloc(1, sizeof *w);
    w->site = xstrdup(site_dir && *site_dir ? site_dir : ".");
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0) {
        diag_error(d, w->site, 0, 0, "cannot watch for changes (inotify): %s", strerror(errno));
        watch_free(w);
        return NULL;
    }
    int wd = inotify_add_watch(w->fd, w->site,
                               IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE |
                                   IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR);
    if (wd < 0) {
        diag_error(d, w->site, 0, 0, "cannot watch for changes: %s%s", strerror(errno),
                   errno == ENOSPC ? " (raise fs.inotify.max_user_watches)" : "");
        watch_free(w);
        return NULL;
    }
    remember(w, wd, "");
    for (size_t i = 0; i < sizeof source_dirs / sizeof source_dirs[0]; i++)
        add_tree(w, source_dirs[i], NULL);
    return w;
}

void watch_free(watch *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    for (size_t i = 0; i < w->ndirs; i++)
        free(w->dirs[i].rel);
    free(w->dirs);
    free(w->site);
    free(w);
}

void watch_changes_free(watch_changes *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->paths[i]);
    free(c->paths);
    c->paths = NULL;
    c->n = 0;
    c->full = false;
}

static bool is_source_dir(const char *name)
{
    for (size_t i = 0; i < sizeof source_dirs / sizeof source_dirs[0]; i++)
        if (!strcmp(name, source_dirs[i]))
            return true;
    return false;
}

/* Is any component of rel hidden or a dropping? (an editor's temporary
 * folder, .git inside content/) */
static bool ignored_path(const char *rel)
{
    const char *p = rel;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char part[NAME_MAX + 1];
        if (n > NAME_MAX)
            n = NAME_MAX;
        memcpy(part, p, n);
        part[n] = '\0';
        if (watch_ignored(part))
            return true;
        p = slash ? slash + 1 : p + n;
    }
    return false;
}

/* Takes one event into the set; *full when a full build is needed. */
static void take(watch *w, const struct inotify_event *ev, pathset *set, bool *full)
{
    if (ev->mask & IN_Q_OVERFLOW) {
        *full = true;
        return;
    }
    if (ev->mask & IN_IGNORED) {
        forget_wd(w, ev->wd);
        return;
    }
    wdir *d = find_wd(w, ev->wd);
    if (!d)
        return;
    if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF))
        return; /* the parent reports it */
    if (!ev->len || watch_ignored(ev->name))
        return;
    bool top = d->rel[0] == '\0';
    path_state st = ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB) ? PATH_WHOLE
                  : ev->mask & IN_MODIFY ? PATH_WRITING
                  : PATH_GONE;
    char *rel = join(d->rel, ev->name);
    if (top) {
        size_t nl = strlen(ev->name);
        if (!(ev->mask & IN_ISDIR) && (!strcmp(ev->name, "site.yaml") ||
                                       (nl > 4 && !strcmp(ev->name + nl - 4, ".bib")) ||
                                       (nl > 5 && !strcmp(ev->name + nl - 5, ".json")))) {
            /* site.yaml, or a bibliography beside it (BibTeX or CSL-JSON) */
            pathset_add(set, rel, st);
        } else if (is_source_dir(ev->name) && (ev->mask & IN_ISDIR)) {
            if (ev->mask & (IN_CREATE | IN_MOVED_TO))
                add_tree(w, rel, NULL);
            else if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
                forget_tree(w, rel);
            if (ev->mask & (IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM))
                *full = true;
        }
        free(rel);
        return;
    }
    if (ignored_path(rel)) {
        free(rel);
        return;
    }
    if (ev->mask & IN_ISDIR) {
        if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
            add_tree(w, rel, set);
        } else if (ev->mask & IN_MOVED_FROM) {
            forget_tree(w, rel);
            *full = true; /* its files are gone, and nobody listed them */
        }
        /* IN_DELETE of a folder: its files were reported one by one. */
        free(rel);
        return;
    }
    pathset_add(set, rel, st);
    free(rel);
}

static long render_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

watch_result watch_wait(watch *w, int stop_fd, int quiet_ms, watch_changes *out, diag_list *d)
{
    watch_changes_free(out);
    pathset set = { 0 };
    bool full = false, any = false;
    long first = 0;
    char evbuf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        struct pollfd p[2] = { { w->fd, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
        int timeout = -1;
        if (any) {
            /* until a file open for writing is closed (never a half-written
             * file), quiet_ms after a file went away, a moment when all are
             * whole; two seconds at most */
            long left = first + 2000 - render_now_ms();
            long quiet = set.count[PATH_WRITING] ? left
                       : set.count[PATH_GONE] || full || quiet_ms < SETTLED_MS ? quiet_ms
                       : SETTLED_MS;
            timeout = left < quiet ? (int)(left > 0 ? left : 0) : (int)quiet;
        }
        int r = poll(p, stop_fd >= 0 ? 2 : 1, timeout);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            diag_error(d, w->site, 0, 0, "watching for changes failed: %s", strerror(errno));
            pathset_free(&set);
            return WATCH_ERROR;
        }
        if (stop_fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            pathset_free(&set);
            return WATCH_STOP;
        }
        if (r == 0) {
            if (set.n || full)
                break;
            any = false; /* only ignored names moved: keep waiting */
            continue;
        }
        for (;;) {
            ssize_t n = read(w->fd, evbuf, sizeof evbuf);
            if (n <= 0)
                break;
            for (char *q = evbuf; q < evbuf + n;) {
                const struct inotify_event *ev = (const struct inotify_event *)q;
                take(w, ev, &set, &full);
                q += sizeof *ev + ev->len;
            }
        }
        if (!any) {
            any = true;
            first = render_now_ms();
        }
    }
    if (set.n)
        vec_sort(set.p, set.n, sizeof *set.p, vec_cmp_str);
    out->paths = set.p;
    out->n = set.n;
    out->full = full;
    free(set.state);
    return WATCH_CHANGED;
}
