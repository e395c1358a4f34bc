/* md/cmark_private.c: the one reader of cmark-gfm's private node layout
 * (see md/cmark_private.h for why, and the test that guards it). */
#include "md/cmark_private.h"

#include <cmark-gfm/chunk.h>
#include <cmark-gfm/node.h>
#include <cmark-gfm/syntax_extension.h>

cmark_mem *md_node_mem(cmark_node *n) { return cmark_node_mem(n); }

void md_node_set_pos(cmark_node *n, int start_line, int start_col, int end_line, int end_col)
{
    n->start_line = start_line;
    n->start_column = start_col;
    n->end_line = end_line;
    n->end_column = end_col;
}

cmark_node *md_node_footnote_def(cmark_node *ref)
{
    return ref->type == CMARK_NODE_FOOTNOTE_REFERENCE ? ref->parent_footnote_def : NULL;
}

const char *md_node_footnote_label(cmark_node *n, size_t *len)
{
    if (n->type == CMARK_NODE_FOOTNOTE_REFERENCE)
        n = n->parent_footnote_def;
    if (!n || n->type != CMARK_NODE_FOOTNOTE_DEFINITION || !n->as.literal.data) {
        *len = 0;
        return "";
    }
    *len = (size_t)n->as.literal.len;
    return (const char *)n->as.literal.data;
}

int md_node_footnote_ref_ix(cmark_node *ref) { return ref->footnote.ref_ix; }

int md_node_footnote_def_count(cmark_node *def) { return def->footnote.def_count; }

cmark_can_contain_func md_ext_can_contain(cmark_syntax_extension *ext) { return ext->can_contain_func; }

const char *md_inline_text(cmark_inline_parser *ip, size_t *len)
{
    cmark_chunk *chunk = cmark_inline_parser_get_chunk(ip);
    *len = chunk->len > 0 ? (size_t)chunk->len : 0;
    return (const char *)chunk->data;
}
