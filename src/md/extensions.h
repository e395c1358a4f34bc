/* md/extensions.h: the one list of Markdown extensions.
 *
 * Each line of MD_EXTENSIONS is X(ID, switch, descriptor): ID names it in
 * the code (MD_EXT_ID), `switch` is its key under `markdown:` in site.yaml
 * (all on by default) and `descriptor` the md_ext it defines in its own
 * file (see md/internal.h for what a descriptor holds and docs/internals.md
 * for how to write one). The order is the order of the switches in
 * messages and of the bits of md_options.off, and the order in which the
 * walk asks the extensions; append new ones at the end.
 *
 * MD_EXTENSIONS_ALWAYS lists those with no switch, X(ID, descriptor): they
 * are on whenever md_options gives what they need (diagrams: a diagram
 * hook), and asked after the others. */
#ifndef SHEAF_MD_EXTENSIONS_H
#define SHEAF_MD_EXTENSIONS_H

#define MD_EXTENSIONS(X)                                   \
    X(TABLES, tables, md_ext_tables)                       \
    X(STRIKETHROUGH, strikethrough, md_ext_strikethrough)  \
    X(AUTOLINKS, autolinks, md_ext_autolinks)              \
    X(TASKLISTS, tasklists, md_ext_tasklists)              \
    X(FOOTNOTES, footnotes, md_ext_footnotes)              \
    X(HEADING_IDS, heading_ids, md_ext_heading_ids)        \
    X(HEADING_ANCHORS, heading_anchors, md_ext_heading_anchors)  \
    X(HIGHLIGHT, highlight, md_ext_highlight)                    \
    X(CITATIONS, citations, md_ext_citations)                    \
    X(MATH, math, md_ext_math)                                   \
    X(SHORTCODES, shortcodes, md_ext_shortcodes)                 \
    X(DEFINITION_LISTS, definition_lists, md_ext_deflists)

#define MD_EXTENSIONS_ALWAYS(X) \
    X(DIAGRAMS, md_ext_diagrams)

/* The code-block chain: a code block is offered to the code_block hooks
 * of these extensions (those on), in this order, and the first that
 * writes it wins — math takes ```math and display blocks, diagrams take
 * ```dot, highlighting takes every other block; with none of them, a
 * block is written as cmark-gfm writes it. An extension with a code_block
 * hook must have its place here (the md unit test checks it). */
#define MD_CODE_BLOCK_CHAIN MD_EXT_MATH, MD_EXT_DIAGRAMS, MD_EXT_HIGHLIGHT

#endif
