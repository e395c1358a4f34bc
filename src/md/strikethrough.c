/* md/strikethrough.c: `~~struck~~` (and `~struck~`, as GitHub allows) →
 * <del>, cmark-gfm's "strikethrough" extension. */
#include <string.h>

#include "md/internal.h"

static void attach(cmark_parser *p)
{
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("strikethrough"));
}

static bool owns(cmark_node *n)
{
    return cmark_node_get_syntax_extension(n)
           && !strcmp(cmark_node_get_type_string(n), "strikethrough");
}

static void render(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    (void)w;
    (void)n;
    buf_puts(out, entering ? "<del>" : "</del>");
}

const md_ext md_ext_strikethrough = { .attach = attach, .owns = owns, .render = render };
