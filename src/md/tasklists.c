/* md/tasklists.c: `- [ ] todo` and `- [x] done` → list items with a
 * disabled checkbox (cmark-gfm's "tasklist" extension). */
#include <cmark-gfm-core-extensions.h>
#include <string.h>

#include "md/internal.h"

static void attach(cmark_parser *p)
{
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("tasklist"));
}

static bool owns(cmark_node *n)
{
    return cmark_node_get_type(n) == CMARK_NODE_ITEM && cmark_node_get_syntax_extension(n)
           && !strcmp(cmark_node_get_type_string(n), "tasklist");
}

static void render(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    (void)w;
    if (entering) {
        md_cr(out);
        buf_puts(out, cmark_gfm_extensions_get_tasklist_item_checked(n)
                          ? "<li><input type=\"checkbox\" checked=\"\" disabled=\"\" /> "
                          : "<li><input type=\"checkbox\" disabled=\"\" /> ");
    } else {
        buf_puts(out, "</li>\n");
    }
}

const md_ext md_ext_tasklists = { .attach = attach, .owns = owns, .render = render };
