/* walk: which files of content/, static/ and the theme are read, and as what.
 *
 * Every file is read once. Markdown files under content/ (`*.md` and the
 * other SITE_MARKDOWN_EXTS) are pages (those under content/posts/ are
 * dated posts); a folder holding index.md is a page bundle whose other
 * files are copied beside the page. Other files keep their place. Theme
 * and site static files go to the output root (the site's win). Linked
 * folders are followed while they stay inside the site folder. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "site/load.h"
#include "site/load_private.h"
#include "util/fs.h"
#include "util/outpath.h"
#include "util/vec.h"
#include "util/xalloc.h"

static page *add_page(site *s, growing *g)
{
    page *p = VEC_ADD(g->pages, g->npages, g->cappages, 64);
    memset(p, 0, sizeof *p);
    p->index = (int)g->npages - 1;
    p->prev = p->next = -1;
    p->section = -1;
    (void)s;
    return p;
}

site_file *load_add_file(growing *g)
{
    site_file *f = VEC_ADD(g->files, g->nfiles, g->capfiles, 64);
    memset(f, 0, sizeof *f);
    return f;
}

static bool is_dropping(const char *name)
{
    size_t n = strlen(name);
    return (n && name[n - 1] == '~') || !strcmp(name, "4913") || (n > 4 && !strcmp(name + n - 4, ".swp")) ||
           (n > 4 && !strcmp(name + n - 4, ".swx")) || (name[0] == '#' && n > 1 && name[n - 1] == '#');
}

size_t site_markdown_ext(const char *path)
{
    static const char *const exts[] = { SITE_MARKDOWN_EXTS };
    size_t n = strlen(path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        size_t e = strlen(exts[i]);
        /* a name that is only the ending (".md") is a hidden file, not a page */
        if (n - (size_t)(base - path) > e && !strcmp(path + n - e, exts[i]))
            return e;
    }
    return 0;
}

size_t site_page_ext(const char *path)
{
    size_t e = site_markdown_ext(path), n = strlen(path), x = strlen(NB_EXT);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!e && strlen(base) > x && !strcmp(path + n - x, NB_EXT))
        e = x;
    return e;
}

bool site_is_index_page(const char *base)
{
    size_t e = site_page_ext(base);
    return e && strlen(base) == 5 + e && !strncmp(base, "index", 5);
}

bool site_is_section_index(const char *base)
{
    size_t e = site_markdown_ext(base);
    return e && strlen(base) == 6 + e && !strncmp(base, "_index", 6);
}

typedef struct walk_ctx {
    site *s;
    growing *g;
    const char *prefix; /* "content", "static" or "themes/x/static" */
    bool content;
    diag_list *d;
    const char *dir;      /* the folder this walk reads: <site>/<prefix>[/<base>] */
    const char *base;     /* "" or, in a linked folder, its rel + "/" */
    const char *site_real, *root_real; /* realpath of the site folder, of <site>/<prefix> */
    const char **chain;   /* realpaths of the linked folders being walked */
    size_t nchain;
} walk_ctx;

static void add_source(walk_ctx *c, const char *rel)
{
    site *s = c->s;
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (is_dropping(base))
        return;
    /* "<prefix>/<rel>" once in the arena: the path below the prefix is
     * its tail (one copy of each name, no formatting per file) */
    size_t pn = strlen(c->prefix), rn = strlen(rel);
    char *src = arena_alloc(s->a, pn + 1 + rn + 1);
    memcpy(src, c->prefix, pn);
    src[pn] = '/';
    memcpy(src + pn + 1, rel, rn + 1);
    const char *own = src + pn + 1;
    if (c->content && site_page_ext(rel)) {
        page *p = add_page(s, c->g);
        p->src = src;
        p->rel = own;
        const char *slash = strrchr(own, '/');
        p->dir = slash ? arena_strndup(s->a, own, (size_t)(slash - own)) : "";
        p->is_index = base[0] == '_' && site_is_section_index(base);
        /* posts/ is always a section; other folders become one when they
         * hold a dated page (load_find_sections) */
        p->is_post = !p->is_index && !strncmp(own, "posts/", 6);
        if (slash && base[0] == 'i' && site_is_index_page(base))
            p->bundle_dir = p->dir;
    } else {
        site_file *f = load_add_file(c->g);
        f->src = src;
        f->path = own;
        if (c->content)
            f->content_rel = f->path;
    }
}

/* Is the resolved path p the folder dir or inside it? */
static bool inside(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    return dir[0] && !strncmp(p, dir, n) && (p[n] == '/' || p[n] == 0 || (n == 1 && dir[0] == '/'));
}

static void on_entry(void *vctx, const char *vrel, fs_kind kind, int err);

/* A symbolic link met by the walk. Its target must stay inside the site
 * folder (the containment rule; the folder being walked is inside it, see
 * load_walk_dir): a site repository can hold links, and a link to
 * /proc/self/environ or ~/.ssh must not be published. Such a link is an
 * error, or (follow_symlinks: true) skipped with a warning. A link to a
 * file inside is read like a file; a linked folder is walked only with
 * follow_symlinks: true (a folder that holds the link, a loop, is skipped
 * with a warning). A link to nowhere is passed on: its reader reports it. */
static void on_link(walk_ctx *c, const char *rel, const char *full)
{
    buf src = BUF_INIT, q = BUF_INIT;
    buf_printf(&src, "%s/%s", c->prefix, rel);
    char target[4096];
    ssize_t tn = readlink(full, target, sizeof target - 1);
    target[tn > 0 ? tn : 0] = 0;
    outpath_quote(&q, target, strlen(target));
    char *real = realpath(full, NULL);
    struct stat st;
    if (!real || stat(real, &st) != 0) {
        add_source(c, rel); /* to nowhere, or a loop of links: "cannot read" */
    } else if (!inside(real, c->site_real)) {
        buf w = BUF_INIT;
        outpath_quote(&w, src.data, src.len);
        if (c->s->cfg.follow_symlinks)
            diag_warning(c->d, w.data, 0, 0,
                         "skipped: symbolic link to '%s' leads outside the site folder", q.data);
        else
            diag_error(c->d, w.data, 0, 0,
                       "symbolic link to '%s' leads outside the site folder: sheaf does not publish "
                       "files from outside the site (remove the link, or set follow_symlinks: true in "
                       "site.yaml to skip such links with a warning)",
                       q.data);
        buf_release(&w);
    } else if (S_ISREG(st.st_mode)) {
        add_source(c, rel);
    } else if (S_ISDIR(st.st_mode) && c->s->cfg.follow_symlinks) {
        /* a loop: the target holds the link, the walk's root or a linked
         * folder being walked */
        char *parent = xstrdup(full);
        *strrchr(parent, '/') = 0;
        char *parent_real = realpath(parent, NULL);
        bool loop = inside(c->root_real, real) || (parent_real && inside(parent_real, real));
        for (size_t i = 0; i < c->nchain && !loop; i++)
            loop = inside(c->chain[i], real);
        free(parent_real);
        free(parent);
        if (loop) {
            diag_warning(c->d, src.data, 0, 0,
                         "skipped: symbolic link to '%s' leads to a folder that holds it (a loop)", q.data);
        } else {
            walk_ctx sub = *c;
            const char **chain = xmalloc((c->nchain + 1) * sizeof *chain);
            if (c->nchain)
                memcpy(chain, c->chain, c->nchain * sizeof *chain);
            chain[c->nchain] = real;
            sub.chain = chain;
            sub.nchain = c->nchain + 1;
            sub.dir = full;
            sub.base = arena_printf(c->s->a, "%s/", rel);
            fs_visit(full, true, on_entry, &sub); /* unreadable folders are reported by name */
            free(chain);
        }
    }
    free(real);
    buf_release(&src);
    buf_release(&q);
}

static void on_entry(void *vctx, const char *vrel, fs_kind kind, int err)
{
    walk_ctx *c = vctx;
    char *rel = c->base[0] ? arena_printf(c->s->a, "%s%s", c->base, vrel) : (char *)vrel;
    if (kind == FS_FILE) {
        add_source(c, rel);
    } else if (kind == FS_UNREADABLE) {
        buf src = BUF_INIT;
        buf_printf(&src, "%s/%s", c->prefix, rel);
        diag_error(c->d, src.data, 0, 0, "cannot read this folder: %s", strerror(err));
        buf_release(&src);
    } else {
        char *full = fs_join(c->dir, vrel);
        on_link(c, rel, full);
        free(full);
    }
}

/* What the path p (a folder the build reads, or the file a link names)
 * leads to, for a message: the link's own text when p is a link, else
 * where it resolves. Appended quoted to out. */
static void quote_target(buf *out, const char *p)
{
    char target[4096];
    ssize_t tn = readlink(p, target, sizeof target - 1);
    if (tn > 0) {
        target[tn] = 0;
        outpath_quote(out, target, (size_t)tn);
    } else {
        char *r = fs_resolve(p);
        outpath_quote(out, r, strlen(r));
        free(r);
    }
}

bool site_folder_inside(site *s, const char *prefix, const char *where, int line, int col, diag_list *d)
{
    char *root = fs_join(s->dir, prefix), *site_real = fs_resolve(s->dir);
    bool in = fs_within(site_real, root); /* a missing folder resolves inside, '..' lexically */
    if (!in) {
        buf q = BUF_INIT;
        quote_target(&q, root);
        if (where)
            diag_error(d, where, line, col,
                       "%s/ leads outside the site folder: sheaf reads nothing from outside the site "
                       "(move the folder into it)",
                       prefix);
        else
            diag_error(d, prefix, 0, 0,
                       "leads outside the site folder (to '%s'): sheaf reads nothing from outside the "
                       "site (move the folder into it)",
                       q.data);
        buf_release(&q);
    }
    free(site_real);
    free(root);
    return in;
}

void load_walk_dir(site *s, growing *g, const char *prefix, bool content, diag_list *d)
{
    char *root = fs_join(s->dir, prefix);
    /* the folder itself first: content/ or static/ may be a link, and
     * themes/<theme>/ a name with '..' */
    if (fs_is_dir(root) && site_folder_inside(s, prefix, NULL, 0, 0, d)) {
        char *site_real = realpath(s->dir, NULL), *root_real = realpath(root, NULL);
        walk_ctx c = { .s = s, .g = g, .prefix = prefix, .content = content, .d = d, .dir = root,
                       .base = "", .site_real = site_real ? site_real : "",
                       .root_real = root_real ? root_real : "" };
        /* the folder itself: fs_visit reports only those below it */
        DIR *probe = opendir(root);
        if (probe) {
            closedir(probe);
            fs_visit(root, true, on_entry, &c);
        } else {
            diag_error(d, prefix, 0, 0, "cannot read this folder: %s", strerror(errno));
        }
        free(site_real);
        free(root_real);
    }
    free(root);
}
