/* site/headvalue.c: what a shortcode sees while a page's Markdown is
 * written, before the site model exists — the page's front-matter fields
 * and the site's configuration. Built on the page's rendering thread, in
 * that thread's arena (never the site's, which is not thread-safe). */
#include "site/model.h"

static tpl_value str_v(const char *s) { return tpl_str(s ? s : ""); }

tpl_value site_page_head_value(const site *s, const page *p, arena *a)
{
    tpl_map *m = tpl_map_new(a, 14);
    tpl_map_set_str(a, m, "kind", tpl_str(p->is_post ? "post" : "page"));
    site_page_head_fields(s, p, a, m);
    tpl_list *tags = tpl_list_new(a, p->ntags);
    for (size_t i = 0; i < p->ntags; i++)
        tags->items[i] = str_v(p->tags[i]);
    tpl_map_set_str(a, m, "tags", tpl_list_value(tags));
    site_page_tail_fields(p, a, m);
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
