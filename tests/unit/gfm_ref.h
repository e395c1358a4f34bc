/* gfm_ref: cmark-gfm's own HTML renderer, the reference sheaf's Markdown
 * stage is compared with (test_md.c, test_md_spec.c). */
#ifndef SHEAF_GFM_REF_H
#define SHEAF_GFM_REF_H

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <stdbool.h>
#include <string.h>

#include "md/md.h"

/* What cmark-gfm renders for s under sheaf's options o: the same cmark
 * options, the same extensions attached (tagfilter never: sheaf leaves it
 * off). Caller frees. */
static inline char *gfm_reference_html(const char *s, size_t n, const md_options *o)
{
    cmark_gfm_core_extensions_ensure_registered();
    int opts = (o->unsafe ? CMARK_OPT_UNSAFE : 0) | (o->smart ? CMARK_OPT_SMART : 0)
               | (o->hard_breaks ? CMARK_OPT_HARDBREAKS : 0);
    static const char *const names[] = { "tables", "strikethrough", "autolinks", "tasklists" };
    static const char *const exts[] = { "table", "strikethrough", "autolink", "tasklist" };
    if (!(o->off & md_extension_bit("footnotes")))
        opts |= CMARK_OPT_FOOTNOTES;
    cmark_parser *p = cmark_parser_new(opts);
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++)
        if (!(o->off & md_extension_bit(names[i])))
            cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension(exts[i]));
    cmark_parser_feed(p, s, n);
    cmark_node *doc = cmark_parser_finish(p);
    char *html = cmark_render_html(doc, opts, cmark_parser_get_syntax_extensions(p));
    cmark_node_free(doc);
    cmark_parser_free(p);
    return html;
}

#endif
