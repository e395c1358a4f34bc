/* sections: which folders under content/ are sections, the rule for a
 * section's name, and its output folder. */
#include <stdlib.h>
#include <string.h>

#include "site/load.h"
#include "site/load_private.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "util/xalloc.h"

static int cmp_sections(const void *x, const void *y)
{
    return strcmp(((const section_info *)x)->name, ((const section_info *)y)->name);
}

/* The sections (after front matter): posts/, and every other folder
 * directly under content/ that holds a dated page. Every page in a section
 * is one of its posts and needs a date; an _index.md directly in a section
 * (or in content/) gives it (the home page) its title, intro and front
 * matter. An _index.md anywhere else is not used: a warning. */
void load_find_sections(site *s, diag_list *d)
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
        sec->title = load_title_from_stem(s->a, name);
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

const char *site_section_folder(const char *name, arena *a)
{
    buf b = BUF_INIT;
    load_slug_component(&b, name, strlen(name));
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
