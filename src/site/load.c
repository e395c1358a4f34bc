/* load: content/ → pages and files; front matter; output paths.
 *
 * Every file is read once. Markdown files under content/ (`*.md` and the
 * other SITE_MARKDOWN_EXTS) are pages (those under content/posts/ are
 * dated posts); a folder holding index.md is a page
 * bundle whose other files are copied beside the page. Other files keep
 * their place. Theme and site static files go to the output root (the
 * site's win). Front matter is parsed on `jobs` threads. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "embed/embed.h"
#include "site/keys.h"
#include "site/pagecache.h"
#include "site/site.h"
#include "util/fs.h"
#include "util/outpath.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/xalloc.h"

struct site_index {
    strmap *pages; /* content rel → page index */
    strmap *files; /* content rel → file index */
    strmap *notebooks; /* src of a notebook read into a page text → page index */
};

typedef struct growing {
    page *pages;
    size_t npages, cappages;
    site_file *files;
    size_t nfiles, capfiles;
} growing;

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

static site_file *add_file(growing *g)
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
    buf src = BUF_INIT;
    buf_printf(&src, "%s/%s", c->prefix, rel);
    if (c->content && site_page_ext(rel)) {
        page *p = add_page(s, c->g);
        p->src = arena_strdup(s->a, src.data);
        p->rel = arena_strdup(s->a, rel);
        const char *slash = strrchr(rel, '/');
        p->dir = slash ? arena_strndup(s->a, rel, (size_t)(slash - rel)) : "";
        p->is_index = site_is_section_index(base);
        /* posts/ is always a section; other folders become one when they
         * hold a dated page (find_sections) */
        p->is_post = !p->is_index && !strncmp(rel, "posts/", 6);
        if (site_is_index_page(base) && slash)
            p->bundle_dir = p->dir;
    } else {
        site_file *f = add_file(c->g);
        f->src = arena_strdup(s->a, src.data);
        f->path = arena_strdup(s->a, rel);
        if (c->content)
            f->content_rel = f->path;
    }
    buf_release(&src);
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
 * walk_dir): a site repository can hold links, and a link to
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

static void walk_dir(site *s, growing *g, const char *prefix, bool content, diag_list *d)
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

/* ---- front matter ------------------------------------------------------- */

#define AT(field) offsetof(page, field)

/* The front-matter keys sheaf reads (docs/variables.md describes each);
 * every other key is only a param. A row's field is reset before a page is
 * parsed again, copied when a build session reuses a parse, and compared
 * by a fast rebuild: a change of a key not marked KEY_IN_PLACE may move the
 * page (another path, date order, tag pages, …), so it needs a full
 * rebuild. */
#define DATE_WANT "a date like 2024-03-18 or 2024-03-18T10:20:00+08:00"
#define HUGO_NONE(n, what) { .name = n, .type = KEY_NO_EQUIVALENT, .want = what }
static const key_def page_keys[] = {
    { .name = "title", .type = KEY_TEXT, .at = AT(title), .want = "a string", .flags = KEY_IN_PLACE },
    { .name = "date", .type = KEY_DATE, .at = AT(date), .set = AT(has_date), .want = DATE_WANT },
    { .name = "updated", .type = KEY_DATE, .at = AT(updated), .set = AT(has_updated), .want = DATE_WANT },
    { .name = "lastmod", .type = KEY_DATE, .at = AT(updated), .set = AT(has_updated), .want = DATE_WANT },
    { .name = "last_modified_at", .type = KEY_DATE, .at = AT(updated), .set = AT(has_updated),
      .want = DATE_WANT },
    /* a page whose expiry has passed is left out, like a draft */
    { .name = "expiry", .type = KEY_DATE, .at = AT(expiry), .set = AT(has_expiry), .want = DATE_WANT },
    { .name = "expirydate", .type = KEY_DATE, .at = AT(expiry), .set = AT(has_expiry), .want = DATE_WANT },
    { .name = "expires", .type = KEY_DATE, .at = AT(expiry), .set = AT(has_expiry), .want = DATE_WANT },
    { .name = "slug", .type = KEY_STRING, .at = AT(slug), .want = "a string" },
    { .name = "url", .type = KEY_STRING, .at = AT(url_path), .want = "a path on the site, like /2014/01/hello/" },
    { .name = "permalink", .type = KEY_STRING, .at = AT(url_path),
      .want = "a path on the site, like /2014/01/hello/" },
    { .name = "template", .type = KEY_STRING, .at = AT(template_name), .want = "a string" },
    { .name = "layout", .type = KEY_STRING, .at = AT(layout), .want = "a string" },
    { .name = "summary", .type = KEY_STRING, .at = AT(summary_text), .want = "a string" },
    { .name = "excerpt", .type = KEY_STRING, .at = AT(summary_text), .want = "a string" },
    /* also the summary when there is no `summary:` (parse_page) */
    { .name = "description", .type = KEY_STRING, .at = AT(description), .want = "a string" },
    { .name = "draft", .type = KEY_BOOL, .at = AT(draft), .want = "true or false" },
    { .name = "numbered_sections", .type = KEY_BOOL, .at = AT(numbered_sections),
      .set = AT(has_numbered_sections), .want = "true or false" },
    { .name = "published", .type = KEY_BOOL, .at = AT(draft), .want = "true or false", .flags = KEY_NEGATE },
    { .name = "tags", .type = KEY_NAMES, .at = AT(tags), .set = AT(ntags), .want = "a list of tag names",
      .flags = KEY_UNIQUE },
    /* a taxonomy of its own by default; added to the tags (others_keys) when
     * `taxonomies:` does not list categories */
    { .name = "categories", .type = KEY_NAMES, .at = AT(categories), .set = AT(ncategories),
      .want = "a list of category names", .flags = KEY_UNIQUE },
    { .name = "category", .type = KEY_NAMES, .at = AT(categories), .set = AT(ncategories),
      .want = "a category name", .flags = KEY_UNIQUE },
    { .name = "aliases", .type = KEY_NAMES, .at = AT(aliases), .set = AT(naliases),
      .want = "a list of paths" },
    { .name = "bibliography", .type = KEY_NAMES, .at = AT(bibs), .set = AT(nbibs),
      .want = "a .bib file or a list of them (relative to the site folder)", .flags = KEY_UNIQUE },
    { .name = "redirect_from", .type = KEY_NAMES, .at = AT(aliases), .set = AT(naliases),
      .want = "a list of paths" },
    HUGO_NONE("weight", "Hugo orders pages by it; sheaf lists posts by date and pages by path"),
    HUGO_NONE("publishdate", "Hugo holds a page back until then; sheaf holds back a page whose "
                             "'date:' is after the build's clock (--future builds it)"),
    HUGO_NONE("linktitle", "Hugo's short title for menus; sheaf has no menus (use page.params.linktitle "
                           "in a template)"),
    HUGO_NONE("menu", "Hugo's menus; sheaf has none (link pages from a template)"),
    HUGO_NONE("menus", "Hugo's menus; sheaf has none (link pages from a template)"),
    HUGO_NONE("type", "Hugo picks layouts by it; use 'template:' to pick a template"),
    HUGO_NONE("outputs", "Hugo's output formats; sheaf writes one HTML page per page"),
    HUGO_NONE("cascade", "Hugo passes these keys down to pages below; write them on each page"),
    HUGO_NONE("build", "Hugo's render and list switches; use 'draft: true' to leave a page out"),
    HUGO_NONE("headless", "Hugo's pages without a page of their own; sheaf renders every page"),
    HUGO_NONE("markup", "Hugo's choice of markup; sheaf reads Markdown"),
    HUGO_NONE("resources", "Hugo's page resources; put the files beside an index.md (a page bundle)"),
    HUGO_NONE("translationkey", "Hugo's translations; sheaf builds one language"),
    HUGO_NONE("iscjklanguage", "Hugo's word count switch; sheaf counts CJK characters as words always"),
    HUGO_NONE("sitemap", "Hugo's per-page sitemap settings; sheaf's sitemap lists every page"),
    HUGO_NONE("excerpt_separator", "Jekyll's excerpt marker; sheaf's summary ends at <!--more-->"),
    HUGO_NONE("render_with_liquid", "Jekyll's Liquid switch; sheaf does not run templates in pages"),
};
#undef HUGO_NONE
static const key_table page_table = { "", page_keys, sizeof page_keys / sizeof *page_keys, false, NULL,
                                      true, true };

const char *site_key_no_equivalent(const char *key)
{
    for (size_t i = 0; i < sizeof page_keys / sizeof *page_keys; i++)
        if (page_keys[i].type == KEY_NO_EQUIVALENT && !strcasecmp(page_keys[i].name, key))
            return page_keys[i].want;
    return NULL;
}

bool site_page_key_known(const char *name)
{
    for (size_t i = 0; i < page_table.n; i++)
        if (!strcasecmp(page_table.keys[i].name, name))
            return true;
    return false;
}

void site_page_copy_head(page *dst, const page *src, bool in_place_only)
{
    site_keys_copy(&page_table, dst, src, in_place_only ? KEY_IN_PLACE : 0);
    if (!in_place_only) {
        memcpy(dst->terms, src->terms, sizeof dst->terms);
        memcpy(dst->nterms, src->nterms, sizeof dst->nterms);
    }
    dst->fm = src->fm;
    dst->fm_pos = src->fm_pos;
    dst->fm_npos = src->fm_npos;
}

bool site_page_same_place(const page *a, const page *b)
{
    if (b->failed || a->excluded != b->excluded || !site_keys_same(&page_table, a, b, KEY_IN_PLACE))
        return false;
    /* the terms of every taxonomy: a term page lists the page */
    for (size_t t = 0; t < SITE_MAX_TAXONOMIES; t++) {
        if (a->nterms[t] != b->nterms[t])
            return false;
        for (size_t i = 0; i < a->nterms[t]; i++)
            if (strcmp(a->terms[t][i], b->terms[t][i]))
                return false;
    }
    return true;
}

void site_page_key_place(const page *p, const char *key, int *line, int *col)
{
    /* any case, as the keys are read; of synonyms (`url`, `permalink`),
     * the one written last, which is the one read */
    static const char *const same[][2] = { { "url", "permalink" }, { "slug", "slug" },
                                           { "layout", "layout" }, { "template", "template" } };
    const char *other = key;
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        if (!strcmp(same[i][0], key))
            other = same[i][1];
    const fm_key_pos *kp = NULL;
    for (size_t i = 0; p->fm.kind == TPL_MAP && i < p->fm_npos; i++)
        if (p->fm_pos[i].map == p->fm.u.map &&
            (!strcasecmp(p->fm_pos[i].key, key) || !strcasecmp(p->fm_pos[i].key, other)) &&
            (!kp || p->fm_pos[i].line > kp->line))
            kp = &p->fm_pos[i];
    *line = kp ? kp->vline : 1;
    *col = kp ? kp->vcol : 1;
}

/* "2024-03-18-hello-world" → "Hello world" */
static const char *title_from_stem(arena *a, const char *stem)
{
    buf b = BUF_INIT;
    for (const char *p = stem; *p; p++)
        buf_putc(&b, *p == '-' || *p == '_' ? ' ' : *p);
    if (b.len && b.data[0] >= 'a' && b.data[0] <= 'z')
        b.data[0] = (char)(b.data[0] - 'a' + 'A');
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* Whether s can be a path component as written (`slugs: keep`). */
bool site_url_part_safe(const char *s, size_t n)
{
    if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c == 0x7f || strchr("/\\?#%\"<>|", c))
            return false;
    }
    return true;
}

/* The terms of each taxonomy: tags and categories from their rows of the
 * key table, any other from the key of its name (one name, or a list, as
 * for tags). */
static void read_terms(site *s, page *p, const tpl_map *m, key_reader *r)
{
    for (size_t t = 0; t < s->cfg.ntaxonomies; t++) {
        const char *name = s->cfg.taxonomies[t];
        if (!strcmp(name, "tags")) {
            p->terms[t] = p->tags;
            p->nterms[t] = p->ntags;
        } else if (!strcmp(name, "categories")) {
            p->terms[t] = p->categories;
            p->nterms[t] = p->ncategories;
        } else {
            const key_def row = { .name = name, .type = KEY_NAMES,
                                  .at = offsetof(page, terms) + t * sizeof p->terms[0],
                                  .set = offsetof(page, nterms) + t * sizeof p->nterms[0],
                                  .want = "a name or a list of names", .flags = KEY_UNIQUE };
            const key_table one = { "", &row, 1, false, NULL, true, true };
            site_keys_read(&one, m, r);
        }
    }
}

/* The URL policy (url_allowed, util/url.h) for the front-matter keys that
 * themes write into href or src: `image`, `images` (a list, Hugo's),
 * `link` (a link post's target) and `thumbnail`. An error at the key. */
static bool url_keys(page *p, const tpl_map *m, diag_list *d)
{
    static const char *const keys[] = { "image", "images", "link", "thumbnail" };
    bool ok = true;
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        tpl_value v = tpl_map_get_cstr(m, keys[k]);
        size_t n = v.kind == TPL_LIST ? v.u.list->len : 1;
        for (size_t i = 0; i < n; i++) {
            tpl_value u = v.kind == TPL_LIST ? v.u.list->items[i] : v;
            char scheme[32];
            if (u.kind != TPL_STRING || url_allowed(u.u.s, u.len, scheme))
                continue;
            int line, col;
            site_page_key_place(p, keys[k], &line, &col);
            diag_error(d, p->src, line, col,
                       "%s: '%.60s' has the scheme '%s:': only http, https, mailto, relative and "
                       "#fragment URLs are written",
                       keys[k], u.u.s, scheme);
            ok = false;
        }
    }
    return ok;
}

/* What the keys Jekyll and Hugo write mean once every key is read: a
 * description is the summary too, categories are tags when categories is
 * not a taxonomy, a `url:` is checked. Returns false after an error. */
static bool others_keys(site *s, page *p, arena *a, diag_list *d)
{
    int line, col;
    if (!p->summary_text && p->description)
        p->summary_text = p->description;
    bool categories_taxonomy = false;
    for (size_t t = 0; t < s->cfg.ntaxonomies; t++)
        categories_taxonomy |= !strcmp(s->cfg.taxonomies[t], "categories");
    if (p->ncategories && !categories_taxonomy) {
        const char **all = arena_alloc(a, (p->ntags + p->ncategories) * sizeof *all);
        size_t n = 0;
        for (size_t i = 0; i < p->ntags + p->ncategories; i++) {
            const char *t = i < p->ntags ? p->tags[i] : p->categories[i - p->ntags];
            bool dup = false;
            for (size_t j = 0; j < n && !dup; j++)
                dup = !strcmp(all[j], t);
            if (!dup)
                all[n++] = t;
        }
        p->tags = all;
        p->ntags = n;
    }
    if (p->slug && s->cfg.slugs_keep && !site_url_part_safe(p->slug, strlen(p->slug))) {
        site_page_key_place(p, "slug", &line, &col);
        diag_warning(d, p->src, line, col, "'slug' '%s' cannot be a URL as written ('slugs: keep'): "
                     "made a slug of", p->slug);
    }
    if (!p->url_path)
        return true;
    /* each part of the path as written, as a URL path may hold */
    const char *u = p->url_path;
    while (*u == '/')
        u++;
    for (const char *q = u; *q;) {
        size_t n = strcspn(q, "/");
        if (!site_url_part_safe(q, n)) {
            site_page_key_place(p, "url", &line, &col);
            diag_error(d, p->src, line, col,
                       "'url' must be a path on the site, like /2014/01/hello/ ('%s' has an empty, '.' or "
                       "'..' part, or a space, '?', '#', '%%' or other character a path cannot hold as written)",
                       p->url_path);
            return false;
        }
        q += n;
        while (*q == '/')
            q++;
    }
    return true;
}


/* A notebook's text becomes the page source nb_convert makes of it (the
 * page owns it, as it owned the file's bytes); its line map and images
 * stay in the parse's arena. */
static bool notebook_text(site *s, page *p, arena *a, diag_list *d)
{
    const char *base = strrchr(p->rel, '/');
    nb_options o = { .unsafe = s->cfg.markdown.unsafe, .files = base ? base + 1 : p->rel };
    nb_doc *doc = arena_alloc(a, sizeof *doc);
    size_t before = diag_error_count(d);
    if (!nb_convert(str_make(p->text, p->text_len), p->src, &o, a, doc, d))
        return false;
    free(p->text);
    p->text = doc->text;
    p->text_len = doc->len;
    doc->text = NULL; /* the page's now */
    p->nb = doc;
    return diag_error_count(d) == before;
}

/* Reads a page (through the session's source cache), checks it is UTF-8,
 * splits and parses its front matter and fills the fields of the key
 * table; the date may come from a YYYY-MM-DD- file name. A problem marks
 * the page failed and is reported at its line:col. Runs on a worker
 * thread (values in that worker's arena a). */
static void parse_page(site *s, page *p, arena *a, diag_list *d)
{
    if (!p->text && !site_source_read(s->sources, s->dir, p->src, &p->text, &p->text_len)) {
        diag_error(d, p->src, 0, 0, "cannot read: %s", fs_strerror(errno));
        p->failed = true;
        return;
    }
    size_t bad = text_utf8_check(p->text, p->text_len);
    if (bad != (size_t)-1) {
        int line = 1, col = 1;
        for (size_t i = 0; i < bad; i++) {
            if (p->text[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        diag_error(d, p->src, line, col, "not valid UTF-8: byte 0x%02x at offset %zu (save the file as UTF-8)",
                   (unsigned char)p->text[bad], bad);
        p->failed = true;
        return;
    }
    if (site_page_ext(p->rel) == strlen(NB_EXT) && !site_markdown_ext(p->rel) && !notebook_text(s, p, a, d)) {
        p->failed = true;
        return;
    }
    fm_split sp;
    if (!fm_split_source(str_make(p->text, p->text_len), p->src, &sp, d)) {
        p->failed = true;
        return;
    }
    p->body = sp.body;
    p->body_line = sp.body_line;
    fm_key_pos *pos = NULL;
    size_t npos = 0;
    tpl_value fm = tpl_undefined(); /* fm_parse_head always sets it */
    if (!fm_parse_head(&sp, p->src, a, &fm, &pos, &npos, d)) {
        p->failed = true;
        return;
    }
    if (fm.kind != TPL_MAP) {
        diag_error(d, p->src, sp.head_line, 1, "front matter must be a mapping (title: …, date: …)");
        p->failed = true;
        return;
    }
    p->fm = fm;
    const tpl_map *m = fm.u.map;
    const char *base = strrchr(p->rel, '/');
    base = base ? base + 1 : p->rel;
    const char *stem_src = p->bundle_dir ? (strrchr(p->bundle_dir, '/') ? strrchr(p->bundle_dir, '/') + 1 : p->bundle_dir) : base;
    char *stem = arena_strdup(a, stem_src);
    size_t sl = strlen(stem);
    if (!p->bundle_dir)
        stem[sl - site_page_ext(stem)] = 0;
    sheaf_date fdate;
    size_t plen = date_parse_prefix(stem, strlen(stem), &fdate);
    const char *slug_src = stem + plen;
    /* an _index.md without a title leaves its section's (or the site's) */
    p->title = p->is_index ? NULL : title_from_stem(a, slug_src);
    p->fm_pos = pos;
    p->fm_npos = npos;
    key_reader r = { .path = p->src, .a = a, .d = d, .pos = pos, .npos = npos, .out = p, .ok = true };
    site_keys_read(&page_table, m, &r);
    memset(p->terms, 0, sizeof p->terms);
    memset(p->nterms, 0, sizeof p->nterms);
    bool bad_fm = !r.ok;
    if (!p->has_date && plen) {
        p->date = fdate;
        p->has_date = true;
    }
    if (p->is_post && !p->has_date && !bad_fm) {
        diag_error(d, p->src, 1, 1,
                   "a post needs a date: add 'date: YYYY-MM-DD' to its front matter or name the "
                   "file YYYY-MM-DD-%s", base);
        bad_fm = true;
    }
    bad_fm |= !others_keys(s, p, a, d);
    bad_fm |= !url_keys(p, m, d);
    r.ok = true;
    read_terms(s, p, m, &r); /* after others_keys: tags with categories, when merged */
    bad_fm |= !r.ok;
    for (size_t t = 0; t < s->cfg.ntaxonomies; t++) {
        if (p->nterms[t] <= SITE_MAX_TERMS_PER_PAGE)
            continue;
        int line, col;
        const char *key = s->cfg.taxonomies[t];
        site_page_key_place(p, key, &line, &col);
        diag_error(d, p->src, line, col,
                   "%zu %s on one page: at most %d (each term's page and feed lists the page "
                   "with all of them)",
                   p->nterms[t], key, SITE_MAX_TERMS_PER_PAGE);
        p->nterms[t] = SITE_MAX_TERMS_PER_PAGE; /* the model stays bounded in `sheaf check` */
        bad_fm = true;
    }
    p->failed = bad_fm;
    p->held = (unsigned char)site_page_held(s, p);
    p->excluded = p->held != SITE_SHOWN;
}

site_held site_page_held(const site *s, const page *p)
{
    if (p->draft && !s->drafts)
        return SITE_DRAFT;
    if (p->is_index)
        return SITE_SHOWN; /* a section's title and intro: no date of its own */
    if (p->has_date && p->date.t > s->now && !s->future)
        return SITE_SCHEDULED;
    if (p->has_expiry && p->expiry.t <= s->now)
        return SITE_EXPIRED;
    return SITE_SHOWN;
}

/* Which pages are left out, by the build's clock (a kept parse may be from
 * an earlier run): counted for the summary, and the next time one comes
 * due or expires, for `sheaf serve`. */
static void hold_pages(site *s)
{
    s->nscheduled = s->nexpired = 0;
    s->next_change = 0;
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed)
            continue;
        p->held = (unsigned char)site_page_held(s, p);
        p->excluded = p->held != SITE_SHOWN;
        int64_t when = 0;
        if (p->held == SITE_SCHEDULED) {
            s->nscheduled++;
            when = p->date.t;
        } else if (p->held == SITE_EXPIRED) {
            s->nexpired++;
        } else if (p->held == SITE_SHOWN && p->has_expiry) {
            when = p->expiry.t;
        }
        if (when > s->now && (!s->next_change || when < s->next_change))
            s->next_change = when;
    }
}

bool site_reparse_page(site *s, page *p, const char *text, size_t len, arena *a, diag_list *d)
{
    /* back to what the walk knew of the file: where it is, not what it says */
    p->text = (char *)text;
    p->text_len = len;
    site_keys_default(&page_table, p, a);
    p->fm = tpl_undefined();
    p->fm_pos = NULL;
    p->fm_npos = 0;
    p->failed = p->excluded = false;
    size_t before = diag_count(d);
    parse_page(s, p, a, d);
    p->text = NULL; /* not ours */
    p->text_len = 0;
    return !p->failed && diag_count(d) == before;
}

typedef struct par_ctx {
    site *s;
    diag_list *d;
} par_ctx;

static void parse_job(void *vctx, size_t i, int worker)
{
    par_ctx *c = vctx;
    site *s = c->s;
    page *p = &s->pages[i];
    page_cache_entry *e = p->cache;
    if (!e && !s->sources) {
        /* a one-shot build: the text is read again for its Markdown
         * (site_source_reread), so that the files are not all held at
         * once (at 10,000 posts they were two thirds of the peak) */
        bool stamped = site_source_stamp_of(s->dir, p->src, &p->stamp);
        parse_page(s, p, s->wa[worker], c->d);
        /* (not a notebook: its text is what nb_convert made of the file) */
        if (stamped && p->text && !p->nb && p->stamp.size == (long long)p->text_len) {
            p->body_off = p->body.len ? (size_t)(p->body.ptr - p->text) : 0;
            free(p->text);
            p->text = NULL;
            p->body.ptr = NULL; /* p->body.len stays */
            p->text_dropped = true;
        }
        return;
    }
    if (!e) {
        parse_page(s, p, s->wa[worker], c->d);
        return;
    }
    /* a build session: reuse the last parse when the bytes are the same */
    if (!site_source_read(s->sources, s->dir, p->src, &p->text, &p->text_len)) {
        diag_error(c->d, p->src, 0, 0, "cannot read: %s", fs_strerror(errno));
        p->failed = true;
        return;
    }
    if (page_cache_take_parse(e, p))
        return;
    diag_list *mine = diag_list_new();
    parse_page(s, p, page_cache_fresh_arena(e), mine);
    if (diag_count(mine) == 0 && !p->failed)
        page_cache_keep_parse(e, p);
    diag_move(c->d, mine);
    diag_list_free(mine);
}

/* ---- sections --------------------------------------------------------- */

static int cmp_sections(const void *x, const void *y)
{
    return strcmp(((const section_info *)x)->name, ((const section_info *)y)->name);
}

/* The sections (after front matter): posts/, and every other folder
 * directly under content/ that holds a dated page. Every page in a section
 * is one of its posts and needs a date; an _index.md directly in a section
 * (or in content/) gives it (the home page) its title, intro and front
 * matter. An _index.md anywhere else is not used: a warning. */
static void find_sections(site *s, diag_list *d)
{
    strmap *names = strmap_new(16);
    section_info *v = NULL;
    size_t n = 0, cap = 0;
    const char **why = NULL; /* the dated page that made each one a section */
    size_t nwhy = 0, capwhy = 0;
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        size_t tl = strcspn(p->rel, "/");
        if (!p->rel[tl] || (strncmp(p->rel, "posts/", 6) && (p->is_index || !p->has_date)))
            continue;
        const char *name = arena_strndup(s->a, p->rel, tl);
        if (strmap_get(names, name) >= 0)
            continue;
        strmap_put(names, name, (long)n);
        section_info *sec = VEC_ADD(v, n, cap, 8);
        memset(sec, 0, sizeof *sec);
        sec->name = name;
        sec->path = arena_printf(s->a, "%s/", site_section_folder(name, s->a));
        sec->title = title_from_stem(s->a, name);
        sec->index_page = -1;
        VEC_PUSH(why, nwhy, capwhy, 8, strncmp(p->rel, "posts/", 6) ? p->src : NULL);
    }
    /* by name; the reasons follow their sections */
    for (size_t i = 0; i < n; i++)
        v[i].index_page = (int)i;
    if (n)
        vec_sort(v, n, sizeof *v, cmp_sections);
    const char **why_sorted = xcalloc(n + 1, sizeof *why_sorted);
    strmap_free(names);
    names = strmap_new(n + 1);
    for (size_t i = 0; i < n; i++) {
        why_sorted[i] = why[v[i].index_page];
        v[i].index_page = -1;
        strmap_put(names, v[i].name, (long)i);
    }
    free(why);
    s->sections = v;
    s->nsections = n;
    s->home_index = -1;
    buf top = BUF_INIT;
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        size_t tl = strcspn(p->rel, "/");
        buf_reset(&top);
        buf_put(&top, p->rel, tl);
        long k = p->rel[tl] ? strmap_get(names, top.data) : -1;
        if (p->is_index) {
            int *slot = !p->dir[0] ? &s->home_index : k >= 0 && !strcmp(p->dir, v[k].name) ? &v[k].index_page : NULL;
            if (!slot) {
                diag_warning(d, p->src, 0, 0,
                             "not used: an _index file gives the home page (content/_index.md) or a "
                             "section (a folder of dated posts directly under content/) its title and "
                             "intro, and %s/ is neither",
                             p->dir);
                p->excluded = true;
            } else if (*slot >= 0) {
                diag_error(d, p->src, 0, 0, "two _index files in one folder: this one and %s",
                           s->pages[*slot].src);
                p->failed = true;
            } else {
                *slot = (int)i;
                p->section = (int)k; /* -1 for the home page's */
                if (k >= 0 && p->title)
                    v[k].title = p->title;
                else if (!p->title)
                    p->title = k >= 0 ? v[k].title : s->cfg.title;
            }
            continue;
        }
        if (k < 0)
            continue;
        p->section = (int)k;
        if (p->is_post)
            continue; /* posts/: checked for a date when parsed */
        p->is_post = true;
        if (!p->has_date && !p->failed) {
            const char *base = strrchr(p->rel, '/') + 1;
            diag_error(d, p->src, 1, 1,
                       "a post needs a date: add 'date: YYYY-MM-DD' to its front matter or name the "
                       "file YYYY-MM-DD-%s", base);
            diag_note(d, why_sorted[k], 0, 0,
                      "%s/ is a section (every page in it is a dated post) because this page has a date",
                      v[k].name);
            p->failed = true;
        }
    }
    buf_release(&top);
    free(why_sorted);
    strmap_free(names);
}

/* A notebook's images and attachments are files of the content: the
 * page's text names them "<notebook file>/<name>" (a link the resolver
 * finds like any other file's); site_assign_paths puts them beside the
 * page. */
static void add_notebook_files(site *s)
{
    size_t more = 0;
    for (size_t i = 0; i < s->npages; i++)
        if (s->pages[i].nb && !s->pages[i].failed && !s->pages[i].excluded)
            more += s->pages[i].nb->nfiles;
    if (!more)
        return;
    s->files = xrealloc(s->files, (s->nfiles + more) * sizeof *s->files);
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        if (!p->nb || p->failed || p->excluded)
            continue;
        for (size_t k = 0; k < p->nb->nfiles; k++) {
            const nb_file *nf = &p->nb->files[k];
            site_file *f = &s->files[s->nfiles++];
            memset(f, 0, sizeof *f);
            f->src = p->src;
            f->nbf = nf;
            f->len = nf->len;
            f->content_rel = arena_printf(s->a, "%s/%s", p->rel, nf->name);
            f->path = f->content_rel; /* until site_assign_paths */
            f->nb_page = (int)i + 1;
            f->nb_name = nf->name;
        }
    }
}

static bool notebook_place(void *ctx, const diag *e, buf *out)
{
    const site *s = ctx;
    long i = strmap_get(s->index->notebooks, e->path);
    if (i < 0)
        return false;
    nb_place_text(s->pages[i].nb, e->line, e->col, out);
    return true;
}

void site_notebook_places(const site *s, diag_list *d, size_t from)
{
    if (s->index && s->index->notebooks && strmap_count(s->index->notebooks))
        diag_relocate(d, from, notebook_place, (void *)s);
}

bool site_load(site *s, int jobs, diag_list *d)
{
    growing g = { 0 };
    size_t before = diag_error_count(d);
    char *content = fs_join(s->dir, "content");
    if (!fs_is_dir(content))
        diag_error(d, NULL, 0, 0,
                   "%s: no such folder: nothing to build here (pages go in content/; "
                   "`sheaf new site DIR` starts a site, -s DIR builds one elsewhere)",
                   strcmp(s->dir, ".") ? content : "content");
    free(content);
    /* static files: theme first, then the site's own (which win) */
    buf theme = BUF_INIT;
    buf_printf(&theme, "themes/%s", s->cfg.theme);
    char *theme_dir = fs_join(s->dir, theme.data);
    int tl, tc;
    site_config_key_place(&s->cfg, "theme", &tl, &tc);
    if (!site_folder_inside(s, theme.data, "site.yaml", tl, tc, d)) {
        /* said: theme '../../x' leads outside the site folder */
    } else if (fs_is_dir(theme_dir)) {
        buf st = BUF_INIT;
        buf_printf(&st, "%s/static", theme.data);
        walk_dir(s, &g, arena_strdup(s->a, st.data), false, d);
        buf_release(&st);
    } else if (!strcmp(s->cfg.theme, "default")) {
        for (size_t i = 0; i < embed_count; i++) {
            if (strncmp(embed_files[i].path, "static/", 7))
                continue;
            site_file *f = add_file(&g);
            f->src = arena_printf(s->a, "(built-in)/%s", embed_files[i].path);
            f->path = embed_files[i].path + 7;
            f->data = embed_files[i].data;
            f->len = embed_files[i].len;
        }
    } else {
        diag_error(d, "site.yaml", 0, 0, "theme '%s' not found: there is no %s folder", s->cfg.theme,
                   theme.data);
    }
    free(theme_dir);
    buf_release(&theme);
    size_t ntheme = g.nfiles;
    walk_dir(s, &g, "static", false, d);
    /* the site's static files replace the theme's */
    if (ntheme && g.nfiles > ntheme) {
        strmap *site_paths = strmap_new(g.nfiles - ntheme);
        for (size_t i = ntheme; i < g.nfiles; i++)
            strmap_put(site_paths, g.files[i].path, (long)i);
        size_t k = 0;
        for (size_t i = 0; i < g.nfiles; i++)
            if (i >= ntheme || strmap_get(site_paths, g.files[i].path) < 0)
                g.files[k++] = g.files[i];
        g.nfiles = k;
        strmap_free(site_paths);
    }
    walk_dir(s, &g, "content", true, d);
    /* the array grew by doubling: give back the room it will not use (a
     * page is ≈ 800 bytes; at 100,000 pages up to 25 MB) */
    if (g.npages && g.npages < g.cappages)
        g.pages = xrealloc(g.pages, g.npages * sizeof *g.pages);
    s->pages = g.pages;
    s->npages = g.npages;
    s->files = g.files;
    s->nfiles = g.nfiles;
    if (s->page_cache) {
        page_cache_begin(s->page_cache);
        for (size_t i = 0; i < s->npages; i++)
            s->pages[i].cache = page_cache_slot(s->page_cache, s->pages[i].src);
        page_cache_prune(s->page_cache);
    }
    par_ctx c = { s, d };
    site_parallel(s->npages, jobs, parse_job, &c);
    add_notebook_files(s);
    hold_pages(s);
    find_sections(s, d);
    /* indexes for link resolution */
    s->index = xcalloc(1, sizeof *s->index);
    s->index->pages = strmap_new(s->npages);
    s->index->files = strmap_new(s->nfiles);
    s->index->notebooks = strmap_new(4);
    for (size_t i = 0; i < s->npages; i++) {
        strmap_put(s->index->pages, s->pages[i].rel, (long)i);
        if (s->pages[i].nb)
            strmap_put(s->index->notebooks, s->pages[i].src, (long)i);
    }
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->files[i].content_rel)
            strmap_put(s->index->files, s->files[i].content_rel, (long)i);
    return diag_error_count(d) == before;
}

int site_lookup(const site *s, const char *rel, int *file)
{
    *file = (int)strmap_get(s->index->files, rel);
    return (int)strmap_get(s->index->pages, rel);
}

/* ---- output paths --------------------------------------------------------- */

static void slug_component(buf *out, const char *s, size_t n)
{
    size_t before = out->len;
    text_slugify(out, s, n);
    if (out->len == before)
        buf_puts(out, "page");
}

const char *site_section_folder(const char *name, arena *a)
{
    buf b = BUF_INIT;
    slug_component(&b, name, strlen(name));
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

const char *site_section_name_problem(const char *name)
{
    if (!*name)
        return "it is empty";
    if (strchr(name, '/'))
        return "a section is one folder directly under content/: its name holds no '/'";
    if (name[0] == '.')
        return "a folder whose name starts with '.' is hidden, and the build skips it";
    return NULL;
}

/* The date placeholders: Jekyll's names, so that its patterns carry over
 * as written, then Hugo's for what Jekyll has no name for. `lower`: Hugo's
 * names of months and days, which its URLs show lower-cased. */
static const struct permalink_date {
    const char *name, *fmt;
    bool lower;
} permalink_dates[] = {
    { "year", "%Y", false },        { "month", "%m", false },      { "i_month", "%-m", false },
    { "day", "%d", false },         { "i_day", "%-d", false },     { "short_year", "%y", false },
    { "hour", "%H", false },        { "minute", "%M", false },     { "second", "%S", false },
    { "y_day", "%j", false },       { "week", "%V", false },       { "w_year", "%G", false },
    { "w_day", "%u", false },       { "short_month", "%b", false }, { "long_month", "%B", false },
    { "short_day", "%a", false },   { "long_day", "%A", false },   { "monthname", "%B", true },
    { "weekday", "%w", false },     { "weekdayname", "%A", true }, { "yearday", "%-j", false },
};

static const struct permalink_date *permalink_date(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof permalink_dates / sizeof *permalink_dates; i++)
        if (strlen(permalink_dates[i].name) == n && !strncmp(name, permalink_dates[i].name, n))
            return &permalink_dates[i];
    return NULL;
}

const char *site_permalink_date(const char *name, size_t n)
{
    const struct permalink_date *d = permalink_date(name, n);
    return d ? d->fmt : NULL;
}

/* Writes the date placeholder name (n bytes) of date d to o; false when
 * it is not one. */
static bool permalink_date_put(buf *o, const sheaf_date *d, const char *name, size_t n)
{
    const struct permalink_date *pd = permalink_date(name, n);
    if (!pd)
        return false;
    size_t from = o->len;
    date_format(o, d, pd->fmt);
    if (pd->lower)
        for (size_t i = from; i < o->len; i++)
            o->data[i] = (char)tolower((unsigned char)o->data[i]);
    return true;
}

/* posts/2024-03-18-foo.md → posts/foo/ ; a/b/index.md → a/b/ (any
 * Markdown ending) */
static const char *page_path(site *s, page *p)
{
    buf b = BUF_INIT;
    const char *rel = p->bundle_dir ? p->bundle_dir : p->rel;
    size_t n = strlen(rel);
    if (!p->bundle_dir)
        n -= site_page_ext(rel);
    const char *last = NULL;
    size_t lastn = 0;
    /* folders */
    const char *start = rel;
    for (const char *q = rel; q < rel + n; q++) {
        if (*q == '/') {
            slug_component(&b, start, (size_t)(q - start));
            buf_putc(&b, '/');
            start = q + 1;
        }
    }
    last = start;
    lastn = (size_t)(rel + n - start);
    sheaf_date dd;
    size_t plen = date_parse_prefix(last, lastn, &dd);
    last += plen;
    lastn -= plen;
    const char *section = p->dir[0] ? p->dir : "";
    size_t seclen = strcspn(section, "/");
    const char *pattern = NULL;
    for (size_t i = 0; i < s->cfg.npermalinks; i++)
        if (strlen(s->cfg.permalinks[i].section) == seclen &&
            !strncmp(s->cfg.permalinks[i].section, section, seclen))
            pattern = s->cfg.permalinks[i].pattern;
    buf slug = BUF_INIT;
    if (p->slug && s->cfg.slugs_keep && site_url_part_safe(p->slug, strlen(p->slug)))
        buf_puts(&slug, p->slug);
    else if (p->slug)
        slug_component(&slug, p->slug, strlen(p->slug));
    else
        slug_component(&slug, last, lastn);
    const char *r;
    if (p->url_path) {
        /* `url:`/`permalink:` as written: "/2014/01/hello/", "about" (a
         * folder), "/old.html", "/data.json" (a file: outpath_names_file) */
        const char *u = p->url_path;
        while (*u == '/')
            u++;
        size_t un = strlen(u);
        buf o = BUF_INIT;
        buf_put(&o, u, un);
        if (o.len && o.data[o.len - 1] != '/' && !outpath_names_file(o.data, o.len))
            buf_putc(&o, '/');
        r = arena_strndup(s->a, o.data, o.len);
        buf_release(&o);
    } else if (!p->slug && (site_is_index_page(rel) || (!p->bundle_dir && n == 5 && !strncmp(rel, "index", 5)))) {
        r = "";
    } else if (pattern) {
        buf o = BUF_INIT;
        for (const char *q = pattern + 1; *q;) {
            if (*q == ':') {
                const char *e = q + 1;
                while (*e && (isalnum((unsigned char)*e) || *e == '_'))
                    e++;
                size_t kl = (size_t)(e - q - 1);
                if (permalink_date_put(&o, &p->date, q + 1, kl))
                    ;
                else if (kl == 4 && !strncmp(q + 1, "slug", 4))
                    buf_put(&o, slug.data, slug.len);
                else if (kl == 7 && !strncmp(q + 1, "section", 7))
                    buf_put(&o, section, seclen);
                else
                    buf_put(&o, q, (size_t)(e - q));
                q = e;
            } else {
                buf_putc(&o, *q++);
            }
        }
        if (o.len && o.data[o.len - 1] != '/' && !outpath_names_file(o.data, o.len))
            buf_putc(&o, '/');
        r = arena_strndup(s->a, o.data, o.len);
        buf_release(&o);
    } else {
        buf_put(&b, slug.data, slug.len);
        buf_putc(&b, '/');
        r = arena_strndup(s->a, b.data, b.len);
    }
    buf_release(&slug);
    buf_release(&b);
    return r;
}

typedef struct outputs {
    strmap *m;
    const char **who;
    size_t n, cap;
} outputs;

/* The one check every output path passes (util/outpath.h), reported at
 * who:line:col as "<what> '<value>' …". */
static bool path_ok(const char *path, const char *what, const char *value, const char *who, int line,
                    int col, diag_list *d)
{
    const char *why = outpath_problem(path, strlen(path));
    if (!why)
        return true;
    buf v = BUF_INIT, w = BUF_INIT;
    outpath_quote(&v, value, strlen(value));
    outpath_quote(&w, who, strlen(who));
    if (strcmp(value, path)) {
        buf q = BUF_INIT;
        outpath_quote(&q, path, strlen(path));
        diag_error(d, w.data, line, col, "%s '%s' is not a valid output path: '%s' %s", what, v.data, q.data,
                   why);
        buf_release(&q);
    } else {
        diag_error(d, w.data, line, col, "%s '%s' is not a valid output path: it %s", what, v.data, why);
    }
    buf_release(&v);
    buf_release(&w);
    return false;
}

static bool claim(site *s, outputs *o, const char *path, const char *who, diag_list *d)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 256;
        o->who = xrealloc(o->who, o->cap * sizeof *o->who);
    }
    long k = strmap_put(o->m, path, (long)o->n);
    if (k != (long)o->n) {
        const char *first = o->who[k];
        size_t pl = strlen(path);
        const char *shown = pl >= 10 && !strcmp(path + pl - 10, "index.html")
                                ? arena_strndup(s->a, path, pl - 10) : path;
        if (first[0] == '(')
            diag_error(d, who, 1, 1, "this makes /%s, which sheaf generates itself (rename the file or set 'slug:')",
                       shown);
        else
            diag_error(d, who, 1, 1, "this makes /%s, like %s (two sources, one output path)", shown, first);
        return false;
    }
    o->who[o->n++] = who;
    return true;
}

const char *site_url(const site *s, const char *path) { return site_url_in(s, s->a, path); }

const char *site_url_in(const site *s, arena *a, const char *path)
{
    return arena_printf(a, "%s%s", s->cfg.base_path, path);
}

const char *site_permalink(const site *s, const char *path) { return site_permalink_in(s, s->a, path); }

const char *site_permalink_in(const site *s, arena *a, const char *path)
{
    return arena_printf(a, "%s%s", s->cfg.base_url, path);
}

bool site_assign_paths(site *s, diag_list *d)
{
    size_t before = diag_error_count(d);
    outputs o = { strmap_new(s->npages * 2 + s->nfiles + 64), NULL, 0, 0 };
    for (size_t i = 0; i < SITE_NGENERATED; i++)
        if ((i != SITE_GEN_PAPERS || s->bib) && site_generated_on(s, i))
            claim(s, &o, site_generated_outputs[i].output, "(generated)", d);
    /* site.yaml's outputs, before anything that could take their place */
    for (size_t i = 0; i < s->cfg.noutputs; i++) {
        const site_output *so = &s->cfg.outputs[i];
        if (strmap_get(o.m, so->output) >= 0)
            diag_error(d, "site.yaml", so->line, so->col,
                       "'outputs': sheaf makes /%s itself (choose another path)", so->path);
        else
            claim(s, &o, so->output, "site.yaml", d);
    }
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed)
            continue;
        if (p->is_index) {
            /* the home page's or its section's list: claimed as such */
            p->path = p->excluded ? NULL : p->section >= 0 ? s->sections[p->section].path : "";
            continue;
        }
        p->path = page_path(s, p);
    }
    /* a notebook's files go beside its page */
    for (size_t i = 0; i < s->nfiles; i++) {
        site_file *f = &s->files[i];
        if (f->nb_page && s->pages[f->nb_page - 1].path)
            f->path = arena_printf(s->a, "%s%s", s->pages[f->nb_page - 1].path, f->nb_name);
    }
    /* bundles' files go beside their page */
    strmap *bundles = strmap_new(16);
    for (size_t i = 0; i < s->npages; i++)
        if (s->pages[i].bundle_dir && s->pages[i].path)
            strmap_put(bundles, s->pages[i].bundle_dir, (long)i);
    for (size_t i = 0; i < s->nfiles; i++) {
        site_file *f = &s->files[i];
        if (!f->content_rel || f->nb_page || !strmap_count(bundles))
            continue;
        /* the nearest enclosing bundle folder */
        char *dir = xstrdup(f->content_rel);
        for (char *sl = strrchr(dir, '/'); sl; sl = strrchr(dir, '/')) {
            *sl = 0;
            long b = strmap_get(bundles, dir);
            if (b >= 0) {
                f->path = arena_printf(s->a, "%s%s", s->pages[b].path, f->content_rel + strlen(dir) + 1);
                break;
            }
        }
        free(dir);
    }
    strmap_free(bundles);
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        /* an _index page's own path is its list's, claimed as such; its
         * aliases are its own */
        if (p->failed || p->excluded || !p->path)
            continue;
        const char *out = site_output_file(s->a, p->path);
        int line = 1, col = 1;
        if (p->slug)
            site_page_key_place(p, "slug", &line, &col);
        if (p->url_path) { /* url: or permalink: decides (finding 16: the key, not 1:1) */
            int l = 0, c = 0;
            site_page_key_place(p, "url", &l, &c);
            if (!l)
                site_page_key_place(p, "permalink", &l, &c);
            if (l)
                line = l, col = c;
        }
        if (!p->is_index && path_ok(out, "this page's path", out, p->src, line, col, d))
            claim(s, &o, out, p->src, d);
        site_page_key_place(p, "aliases", &line, &col);
        for (size_t k = 0; k < p->naliases; k++) {
            out = site_alias_output(s->a, p->aliases[k]);
            if (path_ok(out, "alias", p->aliases[k], p->src, line, col, d))
                claim(s, &o, out, p->src, d);
        }
    }
    for (size_t i = 0; i < s->nfiles; i++) {
        site_file *f = &s->files[i];
        if (path_ok(f->path, "file", f->path, f->src, 0, 0, d))
            claim(s, &o, f->path, f->src, d);
    }
    free(o.who);
    strmap_free(o.m);
    return diag_error_count(d) == before;
}

/* Where an alias (`aliases:` in front matter) is written: "/old/" →
 * "old/index.html", "old.html" as is, "old" → "old/index.html". */
const char *site_alias_output(arena *a, const char *al)
{
    while (*al == '/')
        al++;
    return site_output_file(a, al);
}

const char *site_output_file(arena *a, const char *path)
{
    buf b = BUF_INIT;
    outpath_file(&b, path, strlen(path));
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* One output and who makes it, for the folder/file check. */
typedef struct claimant {
    const char *path, *who; /* who: a source, or NULL for sheaf itself */
    int line, col;
} claimant;

static void add_claimant(claimant **v, size_t *n, size_t *cap, const char *path, const char *who, int line,
                         int col)
{
    if (outpath_problem(path, strlen(path)))
        return; /* reported where it was claimed */
    claimant *c = VEC_ADD(*v, *n, *cap, 256);
    *c = (claimant){ path, who, line, col };
}

/* A path one output writes as a file while another needs it as a folder
 * (content/passwd.md → passwd/index.html, static/passwd → passwd) cannot
 * be built: each such pair is an error naming both, at the file's source
 * (or the folder's, when sheaf itself makes the file). */
static bool check_folders(const claimant *v, size_t n, diag_list *d)
{
    strmap *m = strmap_new(n);
    for (size_t i = 0; i < n; i++)
        strmap_put(m, v[i].path, (long)i);
    bool ok = true;
    buf pre = BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const char *p = v[i].path;
        for (const char *sl = strchr(p, '/'); sl; sl = strchr(sl + 1, '/')) {
            buf_reset(&pre);
            buf_put(&pre, p, (size_t)(sl - p));
            long j = strmap_get(m, pre.data);
            if (j < 0)
                continue;
            const claimant *file = &v[j], *folder = &v[i];
            if (file->who)
                diag_error(d, file->who, file->line, file->col,
                           "this makes the file /%s, but %s needs a folder there (for /%s)", pre.data,
                           folder->who ? folder->who : "sheaf", folder->path);
            else
                diag_error(d, folder->who, folder->line, folder->col,
                           "this makes /%s, which needs a folder /%s where sheaf makes a file", folder->path,
                           pre.data);
            ok = false;
            break;
        }
    }
    buf_release(&pre);
    strmap_free(m);
    return ok;
}

/* A list of n posts at path (a section's, a term's): its pages and its
 * feed's files, claimed by sheaf. */
static void claim_list(site *s, strmap *gen, claimant **all, size_t *nall, size_t *capall,
                       const char *path, size_t n)
{
    size_t np = site_list_pages(s, n);
    for (size_t k = 1; k <= np; k++) {
        const char *out = arena_printf(s->a, "%sindex.html", site_list_path(s, s->a, path, k));
        strmap_put(gen, out, 0);
        add_claimant(all, nall, capall, out, NULL, 0, 0);
    }
    const char *feeds[2 + SITE_MAX_FEED_COPIES];
    size_t nfeeds = site_feed_files(s, s->a, path, feeds);
    const char *first = site_first_page_alias(s, s->a, path);
    if (first) /* with the feed's files: one more output of the list */
        feeds[nfeeds++] = first;
    for (size_t f = 0; f < nfeeds; f++) {
        strmap_put(gen, feeds[f], 0);
        add_claimant(all, nall, capall, feeds[f], NULL, 0, 0);
    }
}

/* Tag pages and /page/N/ are known only once the model is built, so their
 * clash with a page, an alias or a file is checked here (site_assign_paths
 * checked everything else), and so is every path that one output makes a
 * file and another a folder. */
bool site_check_generated_paths(site *s, size_t index_pages, diag_list *d)
{
    strmap *gen = strmap_new(s->ntags + index_pages + 8);
    claimant *all = NULL;
    size_t nall = 0, capall = 0;
    for (size_t i = 0; i < SITE_NGENERATED; i++)
        if ((i != SITE_GEN_PAPERS || s->npapers) && site_generated_on(s, i))
            add_claimant(&all, &nall, &capall, site_generated_outputs[i].output, NULL, 0, 0);
    const char *feeds[1 + SITE_MAX_FEED_COPIES];
    size_t nfeeds = site_feed_files(s, s->a, "", feeds);
    for (size_t i = 1; i < nfeeds; i++) { /* the site feed's copies (atom.xml is above) */
        strmap_put(gen, feeds[i], 0);
        add_claimant(&all, &nall, &capall, feeds[i], NULL, 0, 0);
    }
    for (size_t k = 1; k <= index_pages; k++) {
        /* page 1 is in site_generated_outputs; page/1/ only as an alias */
        const char *out = k > 1 ? arena_printf(s->a, "%sindex.html", site_index_path(s, s->a, k))
                                : site_first_page_alias(s, s->a, "");
        if (!out)
            continue;
        strmap_put(gen, out, 0);
        add_claimant(&all, &nall, &capall, out, NULL, 0, 0);
    }
    for (size_t i = 0; i < s->npapers; i++) {
        const char *out = arena_printf(s->a, "%sindex.html", s->papers[i].path);
        strmap_put(gen, out, 0);
        add_claimant(&all, &nall, &capall, out, NULL, 0, 0);
    }
    for (size_t i = 0; i < s->nsections; i++) {
        const section_info *sec = &s->sections[i];
        claim_list(s, gen, &all, &nall, &capall, sec->path, sec->nposts);
    }
    bool ok = true;
    /* a section's folder may not be one sheaf fills itself or a taxonomy's */
    for (size_t i = 0; i < s->nsections; i++) {
        const char *name = site_section_folder(s->sections[i].name, s->a);
        const char *clash = site_generated_in_folder(name);
        for (size_t t = 0; t < s->ntaxonomies && !clash; t++)
            if (!strcmp(s->taxonomies[t].name, name))
                clash = arena_printf(s->a, "the index of the taxonomy '%s' (taxonomies: in site.yaml)", name);
        if (clash) {
            diag_error(d, arena_printf(s->a, "content/%s", s->sections[i].name), 0, 0,
                       "this folder of dated posts is a section, whose list would be /%s/, like %s: rename "
                       "the folder", name, clash);
            ok = false;
        }
    }
    /* a taxonomy's folder may not be one sheaf fills itself */
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        const char *name = s->taxonomies[t].name, *clash = site_generated_in_folder(name);
        const char *folder = site_paginate_folder(&s->cfg, s->a);
        if (!clash && folder && !strcmp(name, folder))
            clash = arena_printf(s->a, "the home page's later pages (/%s, …)",
                                 site_index_path(s, s->a, 2));
        if (clash) {
            int line, col;
            site_config_key_place(&s->cfg, "taxonomies", &line, &col);
            diag_error(d, "site.yaml", line, col, "taxonomy '%s' would make /%s/, like %s: choose another name",
                       name, name, clash);
            ok = false;
        }
    }
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        /* tags/ is in site_generated_outputs; another's index, once it has
         * terms; the feed of its terms (tags' too), once it has terms */
        if (strcmp(s->taxonomies[t].name, "tags") && s->taxonomies[t].n) {
            const char *out = arena_printf(s->a, "%sindex.html", s->taxonomies[t].path);
            strmap_put(gen, out, 0);
            add_claimant(&all, &nall, &capall, out, NULL, 0, 0);
        }
        nfeeds = s->taxonomies[t].n ? site_feed_files(s, s->a, s->taxonomies[t].path, feeds) : 0;
        for (size_t f = 0; f < nfeeds; f++) {
            strmap_put(gen, feeds[f], 0);
            add_claimant(&all, &nall, &capall, feeds[f], NULL, 0, 0);
        }
    }
    for (size_t i = 0; i < s->nterms; i++) {
        const tag_info *tg = &s->terms[i];
        const char *out = arena_printf(s->a, "%sindex.html", tg->path);
        const char *tax = s->taxonomies[tg->tax].name;
        if (tg->nposts) {
            /* made from a term's name: placed at the first post's key */
            const page *p = &s->pages[tg->posts[0]];
            int line, col;
            site_page_key_place(p, tax, &line, &col);
            const char *what = !strcmp(tax, "tags") ? "the page of tag" : arena_printf(s->a, "the page of %s term", tax);
            if (!path_ok(out, what, tg->name, p->src, line, col, d)) {
                ok = false;
                continue;
            }
        }
        claim_list(s, gen, &all, &nall, &capall, tg->path, tg->nposts);
    }
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed || p->excluded || !p->path)
            continue;
        for (size_t k = p->is_index ? 1 : 0; k <= p->naliases; k++) {
            const char *out = k == 0 ? site_output_file(s->a, p->path)
                                     : site_alias_output(s->a, p->aliases[k - 1]);
            add_claimant(&all, &nall, &capall, out, p->src, 1, 1);
            if (strmap_get(gen, out) >= 0) {
                size_t n = strlen(out);
                diag_error(d, p->src, 1, 1,
                           "this makes /%.*s, which sheaf generates itself (rename the file or set 'slug:')",
                           (int)(n >= 10 && !strcmp(out + n - 10, "index.html") ? n - 10 : n), out);
                ok = false;
            }
        }
    }
    for (size_t i = 0; i < s->nfiles; i++) {
        add_claimant(&all, &nall, &capall, s->files[i].path, s->files[i].src, 0, 0);
        if (strmap_get(gen, s->files[i].path) >= 0) {
            diag_error(d, s->files[i].src, 0, 0, "this makes /%s, which sheaf generates itself",
                       s->files[i].path);
            ok = false;
        }
    }
    ok &= check_folders(all, nall, d);
    free(all);
    strmap_free(gen);
    return ok;
}

void site_free(site *s)
{
    site_csl_free(s);
    for (size_t i = 0; i < s->npapers; i++) {
        free(s->papers[i].pages);
        free(s->papers[i].contexts);
    }
    free(s->papers);
    strmap_free(s->paper_index);
    strmap_free(s->bib_seen);
    if (s->bib)
        bib_free(s->bib);
    for (size_t i = 0; i < s->npages; i++)
        free(s->pages[i].text);
    free(s->pages);
    free(s->files);
    strmap_free(s->outputs);
    site_images_free(s);
    free(s->posts);
    free(s->plain);
    for (size_t i = 0; i < s->nsections; i++)
        free(s->sections[i].posts);
    free(s->sections);
    for (size_t i = 0; i < s->nterms; i++)
        free(s->terms[i].posts);
    free(s->terms);
    if (s->index) {
        strmap_free(s->index->pages);
        strmap_free(s->index->files);
        strmap_free(s->index->notebooks);
        free(s->index);
    }
    site_spill_free(s);
    for (int i = 0; i < s->nwa; i++)
        arena_free(s->wa[i]);
    free(s->wa);
    arena_free(s->a);
    memset(s, 0, sizeof *s);
}
