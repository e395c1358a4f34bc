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
 * keeps its source positions for links and messages): md.c asks here how
 * to write the paragraph, its breaks and the text after each ':'. */
#include <string.h>

#include "md/internal.h"

const md_ext md_ext_deflists = { 0 };

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

size_t md_deflist_marker(cmark_node *text)
{
    cmark_node *prev = cmark_node_previous(text);
    return prev && is_break(prev) ? marker(text) : 0;
}

bool md_deflist_para(cmark_node *p)
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

bool md_deflist_opens(cmark_node *p)
{
    return !md_deflist_para(cmark_node_previous(p));
}

bool md_deflist_closes(cmark_node *p)
{
    return !md_deflist_para(cmark_node_next(p));
}
