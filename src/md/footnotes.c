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


/* The page's state. */
typedef struct notes {
    int entered;  /* definitions entered so far */
    int written;  /* the last definition whose back-references are written */
} notes;

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

/* A reference: `<sup class="footnote-ref"><a href="#fn-…" id="fnref-…">N</a></sup>`. */
static void write_ref(md_walk *w, buf *out, cmark_node *n)
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

/* A definition's opening; on entering the first, the footnotes section
 * opens. */
static void open_def(md_walk *w, notes *f, buf *out, cmark_node *n)
{
    size_t len;
    const char *label = md_node_footnote_label(n, &len);
    if (f->entered == 0)
        buf_puts(out, "<section class=\"footnotes\" data-footnotes>\n<ol>\n");
    f->entered++;
    buf_puts(out, "<li id=\"fn-");
    md_put_href(out, label, len);
    buf_puts(out, "\">\n");
    claim(w, "fn-", label, len, 0, cmark_node_get_start_line(n));
}

/* The back-references of definition `def` at the end of its last
 * paragraph (written once); false when already written. */
static bool backrefs(notes *f, buf *out, cmark_node *def)
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

static bool enter(md_walk *w, buf *out, cmark_node *n)
{
    if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_REFERENCE)
        write_ref(w, out, n);
    else if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_DEFINITION)
        open_def(w, md_ext_state(w, MD_EXT_FOOTNOTES), out, n);
    else
        return false;
    return true;
}

/* The back-references go at the end of a definition's last paragraph, or
 * after its last block when that is no paragraph. */
static void leave(md_walk *w, buf *out, cmark_node *n)
{
    if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_DEFINITION) {
        if (backrefs(md_ext_state(w, MD_EXT_FOOTNOTES), out, n))
            buf_putc(out, '\n');
        return;
    }
    cmark_node *parent = cmark_node_parent(n);
    if (!cmark_node_next(n) && cmark_node_get_type(parent) == CMARK_NODE_FOOTNOTE_DEFINITION
        && !md_in_tight_list(n)) {
        buf_putc(out, ' ');
        backrefs(md_ext_state(w, MD_EXT_FOOTNOTES), out, parent);
    }
}

static bool exit_def(md_walk *w, buf *out, cmark_node *n)
{
    (void)w;
    if (cmark_node_get_type(n) != CMARK_NODE_FOOTNOTE_DEFINITION)
        return false;
    buf_puts(out, "</li>\n");
    return true;
}

static void finish(md_walk *w, buf *out)
{
    if (((notes *)md_ext_state(w, MD_EXT_FOOTNOTES))->entered)
        buf_puts(out, "</ol>\n</section>\n");
}

const md_ext md_ext_footnotes = {
    .options = CMARK_OPT_FOOTNOTES,
    .state_size = sizeof(notes),
    .nodes = MD_NODE(CMARK_NODE_FOOTNOTE_REFERENCE) | MD_NODE(CMARK_NODE_FOOTNOTE_DEFINITION)
             | MD_NODE(CMARK_NODE_PARAGRAPH),
    .enter = enter,
    .leave = leave,
    .exit = exit_def,
    .finish = finish,
};
