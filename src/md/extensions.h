/* md/extensions.h: the one list of Markdown extensions.
 *
 * Each line is X(ID, switch, descriptor): ID names it in the code
 * (MD_EXT_ID), `switch` is its key under `markdown:` in site.yaml (all on
 * by default) and `descriptor` the md_ext it defines in its own file (see
 * md/internal.h for what a descriptor holds and md.c's opening comment for
 * how to write one). The order is the order of the switches in messages and
 * of the bits of md_options.off; append new ones at the end. */
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

#endif
