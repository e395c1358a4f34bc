/* md/deflists.c: definition lists, as Hugo (Goldmark), kramdown, PHP
 * Markdown Extra and Pandoc write them —
 *
 *     Term
 *     : its definition
 *     : another one
 *
 * A paragraph whose first line is no definition and one of whose later
 * lines starts with ':' and a blank is a list: the lines before the first
 * definition are terms (<dt>), each ':' line opens a definition (<dd>), and
 * the lines after it, up to the next, continue it. Paragraphs of this kind
 * one after another make one <dl>. The tree is not changed (the paragraph
 * keeps its source positions for links and messages): this extension
 * writes the paragraph's opening and end and its breaks, and has the walk
 * leave out each ':' (md_take_next_text). */
#include <string.h>

#include "md/internal.h"

/* The page's state: the definition-list paragraph being written. */
typedef struct deflist_state {
    cmark_node *para;
    bool in_dd; /* in it, a definition (else a term) is open */
} deflist_state;

static bool is_break(cmark_node *n)
{
    cmark_node_type t = cmark_node_get_type(n);
    return t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK;
}

/* The bytes of ": " (the colon and the blanks after it) that open a
 * definition in text node n, 0 when n opens none. */
static size_t marker(cmark_node *n)
{
    if (!n || cmark_node_get_type(n) != CMARK_NODE_TEXT)
        return 0;
    const char *s = cmark_node_get_literal(n);
    if (!s || s[0] != ':' || (s[1] != ' ' && s[1] != '\t'))
        return 0;
    return 1 + strspn(s + 1, " \t");
}

/* The bytes of the `: ` that open a definition at text node n (first on a
 * line of such a paragraph), else 0. */
static size_t line_marker(cmark_node *text)
{
    cmark_node *prev = text ? cmark_node_previous(text) : NULL;
    return prev && is_break(prev) ? marker(text) : 0;
}

/* Is paragraph p a definition list (a term, then `: definition` lines)? */
static bool is_deflist(cmark_node *p)
{
    if (!p || cmark_node_get_type(p) != CMARK_NODE_PARAGRAPH)
        return false;
    cmark_node *first = cmark_node_first_child(p);
    if (!first || marker(first))
        return false; /* a term comes first */
    for (cmark_node *c = first; c; c = cmark_node_next(c))
        if (is_break(c) && marker(cmark_node_next(c)))
            return true;
    return false;
}

static bool enter(md_walk *w, buf *out, cmark_node *n)
{
    deflist_state *st;
    if (cmark_node_get_type(n) == CMARK_NODE_PARAGRAPH) {
        if (!is_deflist(n))
            return false;
        st = md_ext_state(w, MD_EXT_DEFINITION_LISTS);
        st->para = n;
        st->in_dd = false;
        md_cr(out);
        /* one <dl> for such paragraphs one after another */
        buf_puts(out, is_deflist(cmark_node_previous(n)) ? "<dt>" : "<dl>\n<dt>");
        return true;
    }
    /* a break: a definition opens, or a term follows a term */
    st = md_ext_state(w, MD_EXT_DEFINITION_LISTS);
    if (!st->para || cmark_node_parent(n) != st->para)
        return false;
    size_t colon = line_marker(cmark_node_next(n));
    if (!colon && st->in_dd)
        return false; /* a definition goes on */
    buf_puts(out, st->in_dd ? "</dd>\n" : "</dt>\n");
    buf_puts(out, colon ? "<dd>" : "<dt>");
    st->in_dd = colon > 0;
    md_take_next_text(w, colon);
    return true;
}

/* A definition list paragraph ends in a definition. */
static bool exit_para(md_walk *w, buf *out, cmark_node *n)
{
    deflist_state *st = md_ext_state(w, MD_EXT_DEFINITION_LISTS);
    if (n != st->para)
        return false;
    buf_puts(out, is_deflist(cmark_node_next(n)) ? "</dd>\n" : "</dd>\n</dl>\n");
    return true;
}

const md_ext md_ext_deflists = {
    .reference_off = true,
    .state_size = sizeof(deflist_state),
    .nodes = MD_NODE(CMARK_NODE_PARAGRAPH) | MD_NODE(CMARK_NODE_SOFTBREAK) | MD_NODE(CMARK_NODE_LINEBREAK),
    .enter = enter,
    .exit = exit_para,
};
