/* md/tables.c: GFM tables (cmark-gfm's "table" extension), with column
 * alignment.
 *
 * The markup is cmark-gfm's (`<table>`, `<thead>`/`<tbody>`, `<th>`/`<td>`
 * with `align="left|center|right"`), wrapped in
 * `<div class="table-scroll" tabindex="0">`: a wide table scrolls inside
 * that box instead of widening the page on a phone, and the box can be
 * focused, so the keyboard can scroll it too (the default theme styles it;
 * md_options.reference leaves the box out). Words are counted per cell. */
#include <cmark-gfm-core-extensions.h>
#include <pthread.h>
#include <string.h>

#include "md/cmark_private.h"
#include "md/internal.h"

/* cmark-gfm's table cells accept only the inline types it knows (text,
 * code, emphasis, links, strikethrough…): an inline node of any other
 * extension — a citation, inline math — made in a cell was refused by
 * cmark_node_append_child, dropped from the page without a word and never
 * freed. A cell takes every inline node; the rest of the table's rules
 * stay cmark-gfm's own. */
static cmark_can_contain_func table_can_contain;

static int cell_can_contain(cmark_syntax_extension *ext, cmark_node *node,
                            cmark_node_type child)
{
    if ((child & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_INLINE && !strcmp(cmark_node_get_type_string(node), "table_cell"))
        return 1;
    return table_can_contain(ext, node, child);
}

static cmark_syntax_extension *table;
static pthread_once_t widened = PTHREAD_ONCE_INIT;

static void widen_cells(void)
{
    table = cmark_find_syntax_extension("table");
    table_can_contain = md_ext_can_contain(table);
    cmark_syntax_extension_set_can_contain_func(table, cell_can_contain);
}

static void attach(cmark_parser *p)
{
    pthread_once(&widened, widen_cells);
    cmark_parser_attach_syntax_extension(p, table);
}

static bool owns(cmark_node *n)
{
    return cmark_node_get_syntax_extension(n)
           && !strncmp(cmark_node_get_type_string(n), "table", 5);
}

/* Rows are "table_header" or "table_row"; the header comes first. */
static bool is_header(cmark_node *row)
{
    return row && cmark_gfm_extensions_get_table_row_is_header(row);
}

/* The extension's `render` hook: <table> (in its scroll box), the header
 * and body rows, and the cells with their alignment. */
static void render(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    const char *type = cmark_node_get_type_string(n);
    if (!strcmp(type, "table")) {
        if (entering) {
            md_cr(out);
            if (!md_reference(w)) {
                const char *label = md_walk_options(w)->label_table;
                buf_puts(out, "<div class=\"table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"");
                md_put_escaped_cstr(out, label ? label : "Table");
                buf_puts(out, "\">\n");
                buf_puts(out, "<table");
                md_xref_table(w, out, n); /* its id and caption, when labelled */
            } else {
                buf_puts(out, "<table>");
            }
        } else {
            if (!is_header(cmark_node_last_child(n))) {
                md_cr(out);
                buf_puts(out, "</tbody>");
                md_cr(out);
            }
            md_cr(out);
            buf_puts(out, "</table>");
            md_cr(out);
            if (!md_reference(w))
                buf_puts(out, "</div>\n");
        }
    } else if (strcmp(type, "table_cell")) { /* a row */
        if (entering) {
            md_cr(out);
            if (is_header(n)) {
                buf_puts(out, "<thead>");
                md_cr(out);
            } else if (!cmark_node_previous(n) || is_header(cmark_node_previous(n))) {
                buf_puts(out, "<tbody>");
                md_cr(out);
            }
            buf_puts(out, "<tr>");
        } else {
            md_cr(out);
            buf_puts(out, "</tr>");
            if (is_header(n)) {
                md_cr(out);
                buf_puts(out, "</thead>");
            }
        }
    } else { /* a cell */
        cmark_node *row = cmark_node_parent(n);
        bool head = is_header(row);
        if (entering) {
            md_cr(out);
            buf_puts(out, head ? "<th" : "<td");
            size_t i = 0;
            for (cmark_node *c = cmark_node_first_child(row); c && c != n; c = cmark_node_next(c))
                i++;
            uint8_t *align = cmark_gfm_extensions_get_table_alignments(cmark_node_parent(row));
            uint16_t ncols = cmark_gfm_extensions_get_table_columns(cmark_node_parent(row));
            switch (align && i < ncols ? align[i] : 0) {
            case 'l': buf_puts(out, " align=\"left\""); break;
            case 'c': buf_puts(out, " align=\"center\""); break;
            case 'r': buf_puts(out, " align=\"right\""); break;
            default: break;
            }
            buf_putc(out, '>');
        } else {
            buf_puts(out, head ? "</th>" : "</td>");
        }
    }
}

const md_ext md_ext_tables = { .attach = attach, .owns = owns, .render = render };
