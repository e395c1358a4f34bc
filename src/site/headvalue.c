/* site/headvalue.c: what a shortcode sees while a page's Markdown is
 * written, before the site model exists — the page's front-matter fields
 * and the site's configuration. Built on the page's rendering thread, in
 * that thread's arena (never the site's, which is not thread-safe). */
#include <string.h>

#include "site/site.h"

static tpl_value str_v(const char *s) { return tpl_str(s ? s : ""); }

tpl_value site_page_head_value(const site *s, const page *p, arena *a)
{
    tpl_map *m = tpl_map_new(a, 14);
    tpl_map_set_str(a, m, "kind", tpl_str(p->is_post ? "post" : "page"));
    tpl_map_set_str(a, m, "title", str_v(p->title));
    tpl_map_set_str(a, m, "description", str_v(p->description));
    if (p->has_date)
        tpl_map_set_str(a, m, "date", site_date_value(&p->date));
    if (p->has_updated)
        tpl_map_set_str(a, m, "updated", site_date_value(&p->updated));
    const char *path = p->path ? p->path : "";
    tpl_map_set_str(a, m, "url", tpl_str(arena_printf(a, "%s%s", s->cfg.base_path, path)));
    tpl_map_set_str(a, m, "permalink", tpl_str(arena_printf(a, "%s%s", s->cfg.base_url, path)));
    size_t pl = strlen(path);
    const char *end = path + (pl && path[pl - 1] == '/' ? pl - 1 : pl);
    const char *st = end;
    while (st > path && st[-1] != '/')
        st--;
    tpl_map_set_str(a, m, "slug", tpl_str_copy(a, st, (size_t)(end - st)));
    tpl_list *tags = tpl_list_new(a, p->ntags);
    for (size_t i = 0; i < p->ntags; i++)
        tags->items[i] = str_v(p->tags[i]);
    tpl_map_set_str(a, m, "tags", tpl_list_value(tags));
    tpl_map_set_str(a, m, "params", p->fm.kind == TPL_MAP ? p->fm : tpl_map_value(tpl_map_new(a, 0)));
    tpl_map_set_str(a, m, "source", str_v(p->src));
    tpl_map_set_str(a, m, "draft", tpl_bool(p->draft));
    tpl_map_seal(a, m);
    return tpl_map_value(m);
}

tpl_map *site_config_value(const site *s, arena *a)
{
    const site_config *c = &s->cfg;
    tpl_map *m = tpl_map_new(a, 10);
    tpl_map_set_str(a, m, "title", str_v(c->title));
    tpl_map_set_str(a, m, "description", str_v(c->description));
    tpl_map_set_str(a, m, "base_url", str_v(c->base_url));
    tpl_map_set_str(a, m, "base_path", str_v(c->base_path));
    tpl_map_set_str(a, m, "author", str_v(c->author));
    tpl_map_set_str(a, m, "language", str_v(c->language));
    tpl_map_set_str(a, m, "params", c->params);
    return m;
}
