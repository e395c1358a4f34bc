/* md/autolinks.c: bare `https://…`, `www.…` and e-mail addresses become
 * links (cmark-gfm's "autolink" extension). It makes ordinary link nodes,
 * which md.c writes and hands to the resolver like any other. */
#include "md/internal.h"

static void attach(cmark_parser *p)
{
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("autolink"));
}

const md_ext md_ext_autolinks = { .attach = attach };
