/* md/footnotes.c: footnotes, `text[^label]` and `[^label]: note`.
 *
 * cmark-gfm parses them in its core (CMARK_OPT_FOOTNOTES): it numbers the
 * definitions in the order of their first reference, drops the ones never
 * referenced, moves the others to the end of the document, and counts for
 * each reference which one of its definition's references it is. Its
 * public API does not give a definition's label nor those counts, so this
 * file — and only this one — reads them from the node itself, through the
 * node.h cmark-gfm installs (the same version as the library: both come
 * from one package). The HTML is cmark-gfm's, byte for byte:
 *
 *   <sup class="footnote-ref"><a href="#fn-LABEL" id="fnref-LABEL[-K]" data-footnote-ref>N</a></sup>
 *   <section class="footnotes" data-footnotes>
 *   <ol>
 *   <li id="fn-LABEL">
 *   <p>… <a href="#fnref-LABEL" class="footnote-backref" …>↩</a></p>
 *   </li>
 *   </ol>
 *   </section>
 *
 * Every id written here is claimed for the page (the label as written, not
 * URL-escaped, is what a `#fn-…` link names after decoding). */
#include <stdio.h>
#include <string.h>

#include "md/cmark_private.h"
#include "md/internal.h"


const md_ext md_ext_footnotes = { .options = CMARK_OPT_FOOTNOTES };

/* Claims "PREFIX" LABEL ["-" K] as an id of the page. */
static void claim(md_walk *w, const char *prefix, const char *label, size_t n, int k, int line)
{
    buf id = BUF_INIT;
    buf_puts(&id, prefix);
    buf_put(&id, label, n);
    if (k > 1)
        buf_printf(&id, "-%d", k);
    md_claim_id(w, id.data, id.len, line, 1, false);
    buf_release(&id);
}

void md_footnote_ref(md_walk *w, buf *out, cmark_node *n)
{
    size_t len;
    const char *label = md_node_footnote_label(n, &len);
    size_t start = out->len;
    buf_puts(out, "<sup class=\"footnote-ref\"><a href=\"#fn-");
    md_put_href(out, label, len);
    buf_puts(out, "\" id=\"fnref-");
    md_put_href(out, label, len);
    int ix = md_node_footnote_ref_ix(n);
    if (ix > 1)
        buf_printf(out, "-%d", ix);
    buf_puts(out, "\" data-footnote-ref>");
    const char *written = cmark_node_get_literal(n); /* its note's number */
    md_put_href(out, written, written ? strlen(written) : 0);
    buf_puts(out, "</a></sup>");
    if (out == md_html(w))
        md_page_only(w, start);
    claim(w, "fnref-", label, len, ix, cmark_node_get_start_line(n));
}

void md_footnote_def(md_walk *w, md_footnotes *f, buf *out, cmark_node *n, bool entering)
{
    size_t len;
    const char *label = md_node_footnote_label(n, &len);
    if (entering) {
        if (f->entered == 0)
            buf_puts(out, "<section class=\"footnotes\" data-footnotes>\n<ol>\n");
        f->entered++;
        buf_puts(out, "<li id=\"fn-");
        md_put_href(out, label, len);
        buf_puts(out, "\">\n");
        claim(w, "fn-", label, len, 0, cmark_node_get_start_line(n));
    } else {
        if (md_footnote_backrefs(f, out, n))
            buf_putc(out, '\n');
        buf_puts(out, "</li>\n");
    }
}

bool md_footnote_backrefs(md_footnotes *f, buf *out, cmark_node *def)
{
    if (f->written >= f->entered)
        return false;
    f->written = f->entered;
    size_t len;
    const char *label = md_node_footnote_label(def, &len);
    static const char attrs[] = "\" class=\"footnote-backref\" data-footnote-backref "
                                "aria-label=\"Back to content\">↩";
    buf_puts(out, "<a href=\"#fnref-");
    md_put_href(out, label, len);
    buf_puts(out, attrs);
    buf_puts(out, "</a>");
    for (int i = 2, n = md_node_footnote_def_count(def); i <= n; i++) {
        buf_puts(out, " <a href=\"#fnref-");
        md_put_href(out, label, len);
        buf_printf(out, "-%d", i);
        buf_puts(out, attrs);
        buf_printf(out, "<sup class=\"footnote-ref\">%d</sup></a>", i);
    }
    return true;
}
