/* deploy_sync: syncing a fresh build to a local folder.
 *
 * The plan walks both trees in name order and compares files by size, then
 * by bytes (the build folder is fresh, so mtimes and inodes say nothing).
 * Applying writes every new or changed file to a temporary name in its own
 * folder and renames it into place, and only then removes what is stale, so
 * at every moment each file in the target is an old or a new complete one.
 * A temporary file left by a killed deploy is stale to the next plan and is
 * removed then. Nothing outside the target is ever written or removed:
 * symbolic links in the target are replaced or unlinked, never followed. */
#include "deploy/deploy.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/manifest.h"
#include "util/vec.h"
#include "util/xalloc.h"

void deploy_plan_free(deploy_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->len; i++)
        free(p->items[i].path);
    free(p->items);
    for (size_t i = 0; i < p->nproduced; i++)
        free(p->produced[i]);
    free(p->produced);
    for (size_t i = 0; i < p->nlisted; i++)
        free(p->listed[i]);
    free(p->listed);
    *p = (deploy_plan)DEPLOY_PLAN_INIT;
}

static void plan_add(deploy_plan *p, deploy_action a, bool dir, const char *path, const char *why)
{
    *VEC_ADD(p->items, p->len, p->cap, 32) = (deploy_item){ a, dir, xstrdup(path), why };
}

bool deploy_is_remote(const char *target)
{
    if (!strncmp(target, "rsync://", 8))
        return true;
    const char *colon = strchr(target, ':');
    const char *slash = strchr(target, '/');
    return colon && colon != target && (!slash || colon < slash);
}

/* The site's source folder (content, static, templates, themes, data)
 * that the resolved target t lies in, or NULL. Each folder is resolved
 * itself: a content/ that is a link leads where it leads. */
static const char *source_folder(const char *site, const char *t)
{
    static const char *const names[] = { "content", "static", "templates", "themes", "data" };
    const char *hit = NULL;
    for (size_t i = 0; !hit && i < sizeof names / sizeof names[0]; i++) {
        char *named = fs_join(site, names[i]), *r = fs_resolve(named);
        if (fs_inside(t, r))
            hit = names[i];
        free(r);
        free(named);
    }
    return hit;
}

bool deploy_check_target(const char *site_dir, const char *build_dir, const char *target,
                         diag_list *d)
{
    char *t = fs_resolve(target);
    char *s = fs_resolve(site_dir ? site_dir : ".");
    char *b = build_dir ? fs_resolve(build_dir) : NULL;
    char *git_named = fs_join(s, ".git"), *git = fs_resolve(git_named);
    free(git_named);
    bool ok = true;
    if (fs_inside(s, t)) {
        diag_error(d, NULL, 0, 0,
                   "deploy target '%s' is the site folder or a folder above it: syncing there "
                   "would delete the site's own files; choose a folder of its own",
                   target);
        ok = false;
    } else if (fs_inside(t, git)) {
        diag_error(d, NULL, 0, 0,
                   "deploy target '%s' is inside the site's .git/ folder, its history; choose a "
                   "folder of its own",
                   target);
        ok = false;
    } else if (source_folder(s, t)) {
        diag_error(d, NULL, 0, 0,
                   "deploy target '%s' is inside the site's %s/ folder: the next build would "
                   "read the deployed files as sources; choose a folder outside content/, "
                   "static/, templates/, themes/ and data/",
                   target, source_folder(s, t));
        ok = false;
    } else if (b && (fs_inside(t, b) || fs_inside(b, t))) {
        diag_error(d, NULL, 0, 0,
                   "deploy target '%s' overlaps the build folder '%s'; choose another folder",
                   target, build_dir);
        ok = false;
    }
    free(t);
    free(s);
    free(b);
    free(git);
    return ok;
}

/* ---- planning ---- */

/* The sorted names in folder `dir` (without . and ..), or NULL with
 * errno set. *n gets the count. Caller frees with free_names. */
static char **list_dir(const char *dir, size_t *n)
{
    DIR *dp = opendir(dir);
    *n = 0;
    if (!dp)
        return NULL;
    size_t cap = 16;
    char **names = xmalloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (*n == cap)
            names = xrealloc(names, (cap *= 2) * sizeof *names);
        names[(*n)++] = xstrdup(e->d_name);
    }
    closedir(dp);
    vec_sort(names, *n, sizeof *names, vec_cmp_str);
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static bool has_name(char **names, size_t n, const char *name)
{
    return names && bsearch(&name, names, n, sizeof *names, vec_cmp_str) != NULL;
}

/* Whether two regular files hold the same bytes (sizes already equal). */
static bool same_bytes(const char *a, const char *b)
{
    int fa = open(a, O_RDONLY | O_CLOEXEC);
    int fb = fa < 0 ? -1 : open(b, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    bool same = fa >= 0 && fb >= 0;
    static const size_t chunk = 1 << 16;
    char *ba = same ? xmalloc(2 * chunk) : NULL;
    char *bb = ba ? ba + chunk : NULL;
    while (same) {
        ssize_t na = read(fa, ba, chunk);
        if (na <= 0) {
            same = na == 0 && read(fb, bb, 1) == 0;
            break;
        }
        size_t got = 0;
        while (got < (size_t)na) {
            ssize_t nb = read(fb, bb + got, (size_t)na - got);
            if (nb <= 0)
                break;
            got += (size_t)nb;
        }
        same = got == (size_t)na && !memcmp(ba, bb, got);
    }
    free(ba);
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    return same;
}

/* The planner's state: the target's manifest and the two lists. */
typedef struct planner {
    deploy_plan *p;  /* writes, then (appended at the end) removals */
    deploy_plan *rm; /* removals */
    manifest m;
    bool listed;     /* the target has a manifest */
    bool force;
    const char *target;
    diag_list *d;
} planner;

static void join(buf *b, size_t keep, const char *name)
{
    buf_truncate(b, keep);
    if (b->len && b->data[b->len - 1] != '/')
        buf_putc(b, '/');
    buf_puts(b, name);
}

/* Whether name is a temporary file of sheaf's deploy (".NAME.sheaf-XXXXXX",
 * see copy_file), left by an interrupted one. */
static bool is_temp_name(const char *name)
{
    size_t n = strlen(name);
    if (name[0] != '.' || n < 15 || strncmp(name + n - 13, ".sheaf-", 7) != 0)
        return false;
    for (size_t i = n - 6; i < n; i++)
        if (!isalnum((unsigned char)name[i]))
            return false;
    return true;
}

static void clash(planner *pl, const char *rel, bool dir)
{
    buf b = BUF_INIT;
    buf_printf(&b, "%s/%s", pl->target, rel);
    diag_error(pl->d, b.data, 0, 0,
               "this %s is in the way of the deploy and sheaf did not write it (it is not in the "
               "target's " MANIFEST_NAME "): move it away, or deploy with --force to replace it",
               dir ? "folder" : "file");
    buf_release(&b);
}

/* Plans the target entry tdir (relative path rel) that the build does not
 * produce: sheaf's files go (a folder too once nothing else is in it),
 * anything else stays. Returns whether all of it goes. */
static bool plan_stale(planner *pl, buf *tdir, buf *rel, bool top)
{
    struct stat st;
    if (lstat(tdir->data, &st) != 0)
        return true;
    const char *name = strrchr(rel->data, '/') ? strrchr(rel->data, '/') + 1 : rel->data;
    if (!S_ISDIR(st.st_mode)) {
        if (manifest_has(&pl->m, rel->data)) {
            plan_add(pl->rm, DEPLOY_REMOVE, false, rel->data, "deployed by sheaf, no longer built");
        } else if (is_temp_name(name)) {
            plan_add(pl->rm, DEPLOY_REMOVE, false, rel->data,
                     "a temporary file of an interrupted deploy");
        } else {
            if (top)
                plan_add(pl->rm, DEPLOY_KEEP, false, rel->data, "not written by sheaf: kept");
            return false;
        }
        pl->rm->removed++;
        return true;
    }
    size_t n;
    char **names = list_dir(tdir->data, &n);
    if (!names) {
        diag_error(pl->d, tdir->data, 0, 0, "cannot read folder: %s", strerror(errno));
        return false;
    }
    /* plan the contents on the side: a folder that keeps something is
     * listed once, as kept, not file by file */
    deploy_plan *outer = pl->rm, inner = DEPLOY_PLAN_INIT;
    pl->rm = &inner;
    size_t tl = tdir->len, rl = rel->len;
    bool all = true;
    for (size_t i = 0; i < n; i++) {
        join(tdir, tl, names[i]);
        join(rel, rl, names[i]);
        all = plan_stale(pl, tdir, rel, false) && all;
    }
    buf_truncate(tdir, tl);
    buf_truncate(rel, rl);
    free_names(names, n);
    pl->rm = outer;
    bool ours_inside = false;
    for (size_t i = 0; i < inner.len; i++)
        ours_inside |= inner.items[i].action == DEPLOY_REMOVE;
    if (all && ours_inside) {
        for (size_t i = 0; i < inner.len; i++)
            plan_add(outer, inner.items[i].action, inner.items[i].dir, inner.items[i].path,
                     inner.items[i].why);
        plan_add(outer, DEPLOY_REMOVE, true, rel->data, "a folder left empty");
        outer->removed += inner.removed + 1;
    } else {
        /* something of someone else's is inside (or it was empty and not
         * ours): sheaf's files in it go, the folder stays */
        for (size_t i = 0; i < inner.len; i++)
            if (inner.items[i].action == DEPLOY_REMOVE)
                plan_add(outer, DEPLOY_REMOVE, inner.items[i].dir, inner.items[i].path,
                         inner.items[i].why);
        outer->removed += inner.removed;
        if (top || !ours_inside)
            plan_add(outer, DEPLOY_KEEP, true, rel->data,
                     ours_inside ? "holds files not written by sheaf: kept"
                                 : "not written by sheaf: kept");
        all = false;
    }
    deploy_plan_free(&inner);
    return all;
}

/* Whether everything below the target folder tdir (rel) is sheaf's. */
static bool only_ours(planner *pl, buf *tdir, buf *rel)
{
    size_t n;
    char **names = list_dir(tdir->data, &n);
    bool ok = names != NULL || n == 0;
    size_t tl = tdir->len, rl = rel->len;
    for (size_t i = 0; ok && i < n; i++) {
        join(tdir, tl, names[i]);
        join(rel, rl, names[i]);
        struct stat st;
        if (lstat(tdir->data, &st) != 0)
            continue;
        ok = S_ISDIR(st.st_mode) ? only_ours(pl, tdir, rel)
                                 : manifest_has(&pl->m, rel->data) || is_temp_name(names[i]);
    }
    buf_truncate(tdir, tl);
    buf_truncate(rel, rl);
    free_names(names, n);
    return ok;
}

/* Plans the folder `rel` of both trees. `tdir_ok`: the target has a real
 * folder there. */
static void plan_dir(planner *pl, buf *sdir, buf *tdir, buf *rel, bool tdir_ok)
{
    deploy_plan *p = pl->p;
    size_t ns, nt = 0;
    char **snames = list_dir(sdir->data, &ns);
    if (!snames) {
        diag_error(pl->d, sdir->data, 0, 0, "cannot read folder: %s", strerror(errno));
        return;
    }
    char **tnames = tdir_ok ? list_dir(tdir->data, &nt) : NULL;
    if (tdir_ok && !tnames)
        diag_error(pl->d, tdir->data, 0, 0, "cannot read folder: %s", strerror(errno));
    size_t sl = sdir->len, tl = tdir->len, rl = rel->len;
    for (size_t i = 0; i < ns; i++) {
        if (rl == 0 && !strcmp(snames[i], MANIFEST_NAME))
            continue; /* the build's own: the target gets its own */
        join(sdir, sl, snames[i]);
        join(tdir, tl, snames[i]);
        join(rel, rl, snames[i]);
        struct stat ss, ts;
        bool t_exists = has_name(tnames, nt, snames[i]) && lstat(tdir->data, &ts) == 0;
        bool ours = !t_exists || manifest_has(&pl->m, rel->data) || pl->force;
        if (stat(sdir->data, &ss) != 0) {
            diag_error(pl->d, sdir->data, 0, 0, "cannot read: %s", strerror(errno));
        } else if (S_ISDIR(ss.st_mode)) {
            bool t_dir = t_exists && S_ISDIR(ts.st_mode);
            if (t_exists && !t_dir && !ours)
                clash(pl, rel->data, false);
            else if (t_exists && !t_dir)
                plan_add(pl->rm, DEPLOY_REMOVE, false, rel->data,
                         pl->force && !manifest_has(&pl->m, rel->data)
                             ? "in the way of a folder the deploy writes (--force)"
                             : "deployed by sheaf, now a folder"),
                    pl->rm->removed++;
            plan_dir(pl, sdir, tdir, rel, t_dir);
        } else if (S_ISREG(ss.st_mode)) {
            *VEC_ADD(p->produced, p->nproduced, p->capproduced, 64) = xstrdup(rel->data);
            bool t_dir = t_exists && S_ISDIR(ts.st_mode);
            bool dir_ours = t_dir && only_ours(pl, tdir, rel);
            if (t_dir && !pl->force && !dir_ours) {
                clash(pl, rel->data, true);
            } else if (t_exists && !t_dir && !ours) {
                clash(pl, rel->data, false);
            } else if (!t_exists) {
                plan_add(p, DEPLOY_ADD, false, rel->data, "new");
                p->added++;
            } else if (!S_ISREG(ts.st_mode) || ts.st_size != ss.st_size ||
                       !same_bytes(sdir->data, tdir->data)) {
                plan_add(p, DEPLOY_CHANGE, false, rel->data,
                         dir_ours ? "changed: was a folder of sheaf's"
                         : t_dir  ? "replaces a folder sheaf did not write (--force)"
                         : manifest_has(&pl->m, rel->data)
                             ? "changed"
                             : "replaces a file sheaf did not write (--force)");
                p->changed++;
            } else {
                p->unchanged++;
            }
        }
        /* Sockets, fifos and devices are not site output: skipped. */
    }
    buf_truncate(sdir, sl);
    buf_truncate(tdir, tl);
    buf_truncate(rel, rl);
    for (size_t i = 0; i < nt; i++) {
        if (rl == 0 && !strcmp(tnames[i], MANIFEST_NAME))
            continue;
        if (!has_name(snames, ns, tnames[i])) {
            join(tdir, tl, tnames[i]);
            join(rel, rl, tnames[i]);
            plan_stale(pl, tdir, rel, true);
            buf_truncate(tdir, tl);
            buf_truncate(rel, rl);
        }
    }
    free_names(snames, ns);
    free_names(tnames, nt);
}

/* Whether the target folder holds nothing but a top-level .git. */
static bool empty_but_git(const char *target)
{
    size_t n;
    char **names = list_dir(target, &n);
    bool empty = names != NULL;
    for (size_t i = 0; empty && i < n; i++)
        empty = !strcmp(names[i], ".git");
    free_names(names, n);
    return empty;
}

bool deploy_plan_make(const char *src, const char *target, bool force, deploy_plan *p,
                      diag_list *d)
{
    size_t before = diag_error_count(d);
    buf sdir = BUF_INIT, tdir = BUF_INIT, rel = BUF_INIT;
    buf_puts(&sdir, src);
    buf_puts(&tdir, target);
    struct stat st;
    bool t_dir = lstat(target, &st) == 0 && S_ISDIR(st.st_mode);
    deploy_plan rm = DEPLOY_PLAN_INIT;
    planner pl = { p, &rm, { 0 }, false, force, target, d };
    pl.listed = manifest_read(target, &pl.m);
    if (lstat(target, &st) == 0 && !S_ISDIR(st.st_mode)) {
        diag_error(d, NULL, 0, 0, "deploy target '%s' is not a folder", target);
    } else if (t_dir && !pl.listed && !force && !empty_but_git(target)) {
        diag_error(d, NULL, 0, 0,
                   "deploy target '%s' is not empty and has no " MANIFEST_NAME
                   ", so sheaf did not deploy there, and sheaf removes only files it wrote: "
                   "choose a new or empty folder (a .git in it is fine), or deploy with --force "
                   "to write into it (its other files are then left as they are)",
                   target);
    } else {
        plan_dir(&pl, &sdir, &tdir, &rel, t_dir);
        for (size_t i = 0; i < rm.len; i++)
            plan_add(p, rm.items[i].action, rm.items[i].dir, rm.items[i].path, rm.items[i].why);
        p->removed += rm.removed;
        /* what the target's manifest lists until the deploy is complete */
        for (size_t i = 0; i < pl.m.n; i++)
            *VEC_ADD(p->listed, p->nlisted, p->caplisted, 64) = xstrdup(pl.m.list[i]);
    }
    manifest_free(&pl.m);
    deploy_plan_free(&rm);
    buf_release(&sdir);
    buf_release(&tdir);
    buf_release(&rel);
    return diag_error_count(d) == before;
}

/* ---- applying ---- */

/* Makes every folder on the way to target/rel's parent, replacing a file
 * or link that is in the way (the plan removes it anyway). */
static bool make_parents(const char *target, const char *rel, diag_list *d)
{
    buf b = BUF_INIT;
    buf_puts(&b, target);
    const char *s = rel;
    bool ok = true;
    for (const char *slash; ok && (slash = strchr(s, '/')); s = slash + 1) {
        buf_putc(&b, '/');
        buf_put(&b, s, (size_t)(slash - s));
        struct stat st;
        if (lstat(b.data, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                continue;
            unlink(b.data);
        }
        if (mkdir(b.data, 0755) != 0) {
            diag_error(d, b.data, 0, 0, "cannot create folder: %s", strerror(errno));
            ok = false;
        }
    }
    buf_release(&b);
    return ok;
}

/* Copies src to dest through a temporary file beside dest and a rename. */
static bool copy_file(const char *src, const char *dest, diag_list *d)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        diag_error(d, src, 0, 0, "cannot read: %s", strerror(errno));
        return false;
    }
    buf tmp = BUF_INIT;
    const char *slash = strrchr(dest, '/');
    size_t dl = slash ? (size_t)(slash - dest + 1) : 0;
    buf_put(&tmp, dest, dl);
    buf_printf(&tmp, ".%s.sheaf-XXXXXX", dest + dl);
    int out = mkostemp(tmp.data, O_CLOEXEC);
    bool ok = out >= 0;
    if (!ok)
        diag_error(d, dest, 0, 0, "cannot write: %s", strerror(errno));
    bool write_failed = false;
    if (ok && !fs_copy_fd(in, out, &write_failed)) {
        if (write_failed)
            diag_error(d, dest, 0, 0, "cannot write: %s", strerror(errno));
        else
            diag_error(d, src, 0, 0, "cannot read: %s", strerror(errno));
        ok = false;
    }
    close(in);
    if (out >= 0) {
        if (ok && fchmod(out, 0644) != 0)
            ok = false;
        if (close(out) != 0 && ok) {
            diag_error(d, dest, 0, 0, "cannot write: %s", strerror(errno));
            ok = false;
        }
    }
    if (ok && rename(tmp.data, dest) != 0) {
        /* A folder (or a non-empty one) stands where the file goes. */
        struct stat st;
        if (lstat(dest, &st) == 0 && S_ISDIR(st.st_mode) && fs_rmtree(dest) &&
            rename(tmp.data, dest) == 0) {
        } else {
            diag_error(d, dest, 0, 0, "cannot write: %s", strerror(errno));
            ok = false;
        }
    }
    if (!ok && out >= 0)
        unlink(tmp.data);
    buf_release(&tmp);
    return ok;
}

static bool remove_item(const char *path, bool dir, diag_list *d)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return true; /* already gone, or a folder on its way was replaced */
    if (dir != (bool)S_ISDIR(st.st_mode))
        return true; /* a write put the other kind of thing there */
    if (dir ? rmdir(path) == 0 || errno == ENOTEMPTY || errno == EEXIST : unlink(path) == 0)
        return true; /* a folder that something new went into stays */
    diag_error(d, path, 0, 0, "cannot remove: %s", strerror(errno));
    return false;
}

static bool write_manifest(const char *target, char *const *paths, size_t n, diag_list *d)
{
    if (manifest_write(target, paths, n))
        return true;
    diag_error(d, NULL, 0, 0, "cannot write %s/" MANIFEST_NAME ": %s", target, strerror(errno));
    return false;
}

bool deploy_apply(const char *src, const char *target, const deploy_plan *p, size_t max_ops,
                  diag_list *d)
{
    struct stat st;
    if (lstat(target, &st) != 0) {
        if (mkdir(target, 0755) != 0) {
            diag_error(d, NULL, 0, 0, "cannot create deploy target '%s': %s", target,
                       strerror(errno));
            return false;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        diag_error(d, NULL, 0, 0, "deploy target '%s' is not a folder", target);
        return false;
    }
    buf s = BUF_INIT, t = BUF_INIT;
    bool ok = true;
    if (p->added || p->changed || p->nlisted == 0) {
        /* first the manifest lists what is coming too: a deploy killed
         * halfway leaves no file of sheaf's unlisted */
        char **all = xmalloc((p->nlisted + p->nproduced + 1) * sizeof *all);
        if (p->nlisted)
            memcpy(all, p->listed, p->nlisted * sizeof *all);
        size_t n = p->nlisted;
        for (size_t i = 0; i < p->len; i++)
            if (p->items[i].action == DEPLOY_ADD || p->items[i].action == DEPLOY_CHANGE)
                all[n++] = p->items[i].path;
        ok = write_manifest(target, all, n, d);
        free(all);
    }
    size_t i = 0;
    for (; ok && i < p->len && (max_ops == 0 || i < max_ops); i++) {
        const deploy_item *it = &p->items[i];
        buf_reset(&t);
        buf_printf(&t, "%s/%s", target, it->path);
        if (it->action == DEPLOY_KEEP) {
        } else if (it->action == DEPLOY_REMOVE) {
            ok = remove_item(t.data, it->dir, d);
        } else {
            buf_reset(&s);
            buf_printf(&s, "%s/%s", src, it->path);
            ok = make_parents(target, it->path, d) && copy_file(s.data, t.data, d);
        }
    }
    if (ok && i == p->len)
        ok = write_manifest(target, p->produced, p->nproduced, d);
    buf_release(&s);
    buf_release(&t);
    return ok;
}

void deploy_plan_list(const deploy_plan *p, buf *out)
{
    for (size_t i = 0; i < p->len; i++) {
        const deploy_item *it = &p->items[i];
        static const char sign[] = { [DEPLOY_ADD] = '+', [DEPLOY_CHANGE] = '~',
                                     [DEPLOY_REMOVE] = '-', [DEPLOY_KEEP] = '=' };
        buf_printf(out, "%c %s%s (%s)\n", sign[it->action], it->path, it->dir ? "/" : "", it->why);
    }
}

void deploy_plan_summary(const deploy_plan *p, const char *target, bool dry_run, buf *out)
{
    buf_printf(out, "%s to %s: %zu added, %zu changed, %zu removed",
               dry_run ? "would deploy" : "deployed", target, p->added, p->changed, p->removed);
}
