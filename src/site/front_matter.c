/* front_matter: a page's front matter → its fields, by the table of page keys.
 *
 * page_keys is the one list of the keys sheaf reads from front matter
 * (site/keys.c does the reading); load_parse_page fills a page from its
 * text, and site_reparse_page does it again in a build session. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "site/keys.h"
#include "site/load.h"
#include "site/load_private.h"
#include "site/paths.h"
#include "site/sources.h"
#include "site/srcrec.h"
#include "util/fs.h"
#include "util/fsmap.h"
#include "util/text.h"
#include "util/url.h"

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
    /* also the summary when there is no `summary:` (load_parse_page) */
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
const char *load_title_from_stem(arena *a, const char *stem)
{
    size_t n = strlen(stem);
    char *r = arena_alloc(a, n + 1);
    for (size_t i = 0; i <= n; i++)
        r[i] = stem[i] == '-' || stem[i] == '_' ? ' ' : stem[i];
    if (r[0] >= 'a' && r[0] <= 'z')
        r[0] = (char)(r[0] - 'a' + 'A');
    return r;
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
        if (!site_url_part_ok(q, n)) {
            site_page_key_place(p, "url", &line, &col);
            diag_error(d, p->src, line, col,
                       "'url' must be a path on the site, like /2014/01/hello/ ('%s' has an empty, '.' or "
                       "'..' part, a space at a part's end or two in a row, or a '?', '#', '%%', control or "
                       "other character a path cannot hold as written)",
                       p->url_path);
            return false;
        }
        q += n;
        while (*q == '/')
            q++;
    }
    return true;
}

/* Whether text is UTF-8; if not, an error at the first bad byte's line:col.
 * Checked a piece at a time, each given back after it when m is the map
 * holding text (a notebook's). */
static bool utf8_checked(const char *text, size_t len, const char *src, const fs_map *m, diag_list *d)
{
    size_t bad = (size_t)-1;
    for (size_t at = 0; at < len && bad == (size_t)-1;) {
        size_t n = len - at > NB_DROP_EVERY ? NB_DROP_EVERY : len - at;
        while (at + n < len && ((unsigned char)text[at + n] & 0xC0) == 0x80)
            n++; /* a piece ends before a character, not inside one */
        bad = text_utf8_check(text + at, n);
        if (bad != (size_t)-1)
            bad += at;
        if (m)
            fs_map_drop(m, at, n);
        at += n;
    }
    if (bad == (size_t)-1)
        return true;
    int line = 1, col = 1;
    for (size_t i = 0; i < bad; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    diag_error(d, src, line, col, "not valid UTF-8: byte 0x%02x at offset %zu (save the file as UTF-8)",
               (unsigned char)text[bad], bad);
    return false;
}

static void nb_drop(void *ctx, size_t off, size_t n)
{
    fs_map_drop(ctx, off, n);
}

/* A notebook becomes the page source nb_convert makes of it (the page owns
 * it, as it owns a Markdown file's bytes); its line map and images stay in
 * the parse's arena. The file is mapped, not read: up to NB_MAX, with
 * what the reader has gone past given back (issue 30: a notebook of 200 MB
 * of images costs a few MiB), and never kept by the source cache. */
static bool notebook_text(site *s, page *p, arena *a, diag_list *d)
{
    fs_map m;
    memset(&m, 0, sizeof m);
    str json = str_make(p->text, p->text_len); /* given (site_reparse_page): not ours */
    if (!p->text) {
        char *full = fs_join(s->dir, p->src);
        char *root = fs_resolve(s->dir); /* the containment rule, as for every source */
        bool mapped = fs_map_within(root, full, NB_MAX, &m);
        int e = errno;
        free(root);
        free(full);
        if (!mapped) {
            if (e == FS_ETOOBIG)
                diag_error(d, p->src, 0, 0,
                           "cannot read: larger than " NB_MAX_TEXT ", the most sheaf reads of one notebook");
            else
                diag_error(d, p->src, 0, 0, "cannot read: %s", fs_strerror(e));
            return false;
        }
        fs_map_guard(&m);
        json = str_make(m.data, m.len);
    }
    bool ok = utf8_checked(json.ptr, json.len, p->src, m.maplen ? &m : NULL, d);
    const char *base = strrchr(p->rel, '/');
    nb_options o = { .unsafe = s->cfg.markdown.unsafe, .files = base ? base + 1 : p->rel,
                     .drop = m.maplen ? nb_drop : NULL, .drop_ctx = &m };
    nb_doc *doc = arena_alloc(a, sizeof *doc);
    diag_list *mine = diag_list_new();
    ok = ok && nb_convert(json, p->src, &o, a, doc, mine);
    fs_map_unguard();
    bool cut = m.cut;
    fs_map_free(&m);
    if (cut) {
        /* what the reader saw was the file being written: its words would
         * be about bytes that are not there */
        diag_error(d, p->src, 0, 0, "changed while it was read: it was cut shorter (build again)");
        if (ok)
            free(doc->text);
        diag_list_free(mine);
        return false;
    }
    bool clean = diag_error_count(mine) == 0;
    diag_move(d, mine);
    diag_list_free(mine);
    if (!ok)
        return false;
    /* (kept even when a cell had an error: its messages are placed by
     * the page's line map) */
    p->text = doc->text; /* the page's now (what it held was not ours) */
    p->text_len = doc->len;
    doc->text = NULL;
    p->nb = doc;
    return clean;
}

bool load_is_notebook(const page *p)
{
    return site_page_ext(p->rel) == strlen(NB_EXT) && !site_markdown_ext(p->rel);
}

bool load_read_head(site *s, page *p, arena *a, site_src_head *h, diag_list *d)
{
    if (load_is_notebook(p)) {
        if (!notebook_text(s, p, a, d)) {
            p->failed = true;
            return false;
        }
    } else if (!p->text &&
               !site_source_read(s->sources, s->dir, &s->root, p->src, &p->text, &p->text_len)) {
        diag_error(d, p->src, 0, 0, "cannot read: %s", fs_strerror(errno));
        p->failed = true;
        return false;
    } else if (!utf8_checked(p->text, p->text_len, p->src, NULL, d)) {
        p->failed = true;
        return false;
    }
    fm_split sp;
    if (!fm_split_source(str_make(p->text, p->text_len), p->src, &sp, d)) {
        p->failed = true;
        return false;
    }
    p->body = sp.body;
    p->body_line = sp.body_line;
    memset(h, 0, sizeof *h);
    h->text_len = p->text_len;
    h->body_off = sp.body.len ? (size_t)(sp.body.ptr - p->text) : 0;
    h->body_len = sp.body.len;
    h->body_line = sp.body_line;
    h->head_line = sp.head_line;
    h->fm = tpl_undefined(); /* fm_parse_head always sets it */
    if (!fm_parse_head(&sp, p->src, a, &h->fm, &h->pos, &h->npos, d)) {
        p->failed = true;
        return false;
    }
    return true;
}

void load_apply_head(site *s, page *p, arena *a, const site_src_head *h, diag_list *d)
{
    tpl_value fm = h->fm;
    fm_key_pos *pos = h->pos;
    size_t npos = h->npos;
    if (fm.kind != TPL_MAP) {
        diag_error(d, p->src, h->head_line, 1, "front matter must be a mapping (title: …, date: …)");
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
    p->title = p->is_index ? NULL : load_title_from_stem(a, slug_src);
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

/* Reads a page (through the session's source cache), checks it is UTF-8,
 * splits and parses its front matter and fills the fields of the key
 * table; the date may come from a YYYY-MM-DD- file name. A problem marks
 * the page failed and is reported at its line:col. Runs on a worker
 * thread (values in that worker's arena a). */
void load_parse_page(site *s, page *p, arena *a, diag_list *d)
{
    site_src_head h;
    if (load_read_head(s, p, a, &h, d))
        load_apply_head(s, p, a, &h, d);
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
    load_parse_page(s, p, a, d);
    if (p->text != text) /* a notebook's text, made of the given one */
        free(p->text);
    p->text = NULL; /* not ours */
    p->text_len = 0;
    return !p->failed && diag_count(d) == before;
}
