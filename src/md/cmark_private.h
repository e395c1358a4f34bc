/* md/cmark_private.h: what sheaf needs of cmark-gfm that its public API
 * (cmark-gfm.h, cmark-gfm-extension_api.h) does not give.
 *
 * Only md/cmark_private.c includes <cmark-gfm/node.h>, the library's
 * private node layout: a Debian update of cmark-gfm that moves a field
 * breaks this one file, and unit/test_cmark_private checks every accessor
 * here against the public getters reading the same node, so the change
 * shows as a failed test rather than as wrong pages. */
#ifndef SHEAF_MD_CMARK_PRIVATE_H
#define SHEAF_MD_CMARK_PRIVATE_H

#include <stddef.h>

#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

/* The allocator n was made with (to make its neighbours with it). */
cmark_mem *md_node_mem(cmark_node *n);

/* Sets n's source position; the public API only reads it. */
void md_node_set_pos(cmark_node *n, int start_line, int start_col, int end_line, int end_col);

/* A footnote reference's definition (NULL when it has none), and a
 * definition's label as written in it; for a reference, its definition's
 * label (so `[^A]` and `[^a]` both name the definition's id). */
cmark_node *md_node_footnote_def(cmark_node *ref);
const char *md_node_footnote_label(cmark_node *n, size_t *len);
/* Which reference to its definition this one is (1, 2, …), and how many
 * references a definition has. */
int md_node_footnote_ref_ix(cmark_node *ref);
int md_node_footnote_def_count(cmark_node *def);

/* The text the inline parser is reading (a paragraph's or a heading's,
 * *len bytes); cmark_inline_parser_get_offset is a position in it. */
const char *md_inline_text(cmark_inline_parser *ip, size_t *len);

/* The can-contain rule an extension was made with (to wrap it). */
cmark_can_contain_func md_ext_can_contain(cmark_syntax_extension *ext);

#endif
