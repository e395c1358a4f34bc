/* md/tasklists.c: `- [ ] todo` and `- [x] done` → list items with a
 * disabled checkbox (cmark-gfm's "tasklist" extension). A form control
 * needs a name for screen readers: the checkbox is labelled with the text of
 * its item's first block (aria-label; md_options.reference leaves it out).
 * Wrapping the item in a <label> would not do: an item may hold paragraphs
 * and lists, which a label may not. */
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
    if (entering) {
        md_cr(out);
        buf_puts(out, cmark_gfm_extensions_get_tasklist_item_checked(n)
                          ? "<li><input type=\"checkbox\" checked=\"\" disabled=\"\""
                          : "<li><input type=\"checkbox\" disabled=\"\"");
        cmark_node *first = cmark_node_first_child(n);
        if (!md_reference(w) && first) {
            buf label = BUF_INIT;
            md_plain_text(first, &label);
            buf_puts(out, " aria-label=\"");
            md_put_escaped(out, label.data, label.len);
            buf_putc(out, '"');
            buf_release(&label);
        }
        buf_puts(out, " /> ");
    } else {
        buf_puts(out, "</li>\n");
    }
}

const md_ext md_ext_tasklists = { .attach = attach, .owns = owns, .render = render };
