/* diagram: Graphviz's dot language → inline SVG, at build time, for the
 * ```dot and ```graphviz code blocks (md/code.c hands them to
 * site/diagram.c, which caches what this folder makes).
 *
 * Graphviz (libgvc + libcgraph) parses the source, lays the graph out with
 * the engine asked for (dot unless told otherwise) and writes SVG into
 * memory; diagram_svg_fix then turns that SVG into what a page can hold
 * inline: no XML prolog, DOCTYPE or comments, sized by its viewBox in CSS
 * pixels, role="img", and Graphviz's default black and white made
 * currentColor and the page's background so a diagram reads in light and
 * dark. Labels get a font family with CJK in it unless the source names
 * one.
 *
 * Graphviz keeps global state (its error stream, the parser, the context)
 * and is not thread-safe: every call into it here holds one mutex, so the
 * build's workers take turns. It cannot be interrupted either, so what it
 * is given is bounded before layout: the source's bytes, then the nodes and
 * edges of the parsed graph (DIAGRAM_DOT_MAX_*). */
#ifndef SHEAF_DIAGRAM_DOT_H
#define SHEAF_DIAGRAM_DOT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The largest source, checked before Graphviz reads it. */
#define DIAGRAM_DOT_MAX_BYTES 65536
/* The most nodes and edges of one graph (subgraphs' included), checked after
 * parsing and before layout: dot's layout time grows fast with both (a
 * random graph of 300 nodes and 1,200 edges takes minutes; of 200 and 400,
 * with the caps below, about 10 s — docs/diagrams.md). */
#define DIAGRAM_DOT_MAX_NODES 200
#define DIAGRAM_DOT_MAX_EDGES 400
/* dot's own iteration limits, set on every graph and capped there (its
 * network simplex runs without a limit by default): nslimit and nslimit1
 * (× the nodes), mclimit (crossing minimization, 1 is dot's default) and
 * searchsize (dot's default). */
#define DIAGRAM_DOT_NSLIMIT 10
#define DIAGRAM_DOT_MCLIMIT 1
#define DIAGRAM_DOT_SEARCHSIZE 30

/* The font family labels get when the graph names none (graph, node or
 * edge `fontname`). Graphviz sizes every box by the text as the build
 * machine's fonts measure it, and the reader's browser may draw it in
 * another font: the list starts with wide faces (DejaVu Sans, Verdana),
 * so what the browser picks is as wide or narrower and stays inside its
 * box; then CJK faces, so a Chinese or Japanese label renders (CJK glyphs
 * are one em wide in every such font). */
#define DIAGRAM_DOT_FONTS "'DejaVu Sans',Verdana,'Noto Sans CJK SC','PingFang SC','Microsoft YaHei',sans-serif"

/* The version of diagram_svg_fix's pass: part of the cache key, with
 * Graphviz's own version (diagram_dot_version). Raise it when the pass
 * changes what it writes. */
#define DIAGRAM_SVG_PASS 2

/* Whether name is a layout engine sheaf lets a diagram ask for
 * (`engine=` on the fence, `layout=` in the graph): dot, neato, fdp, sfdp,
 * circo, twopi, osage, patchwork. */
bool diagram_dot_engine_ok(const char *name, size_t n);

/* Renders src[0..len) (dot language) with engine (NULL: "dot"; the graph's
 * own `layout` attribute wins, as in Graphviz) and appends the fixed SVG to
 * svg. On failure returns false, appends the reason to err (Graphviz's
 * words where they come from it, without "Error:") and sets *err_line to
 * the line of src it names (1-based), or 0. Thread-safe (one Graphviz call
 * at a time). Nothing to free but the caller's bufs. */
bool diagram_dot_render(const char *src, size_t len, const char *engine, buf *svg, buf *err,
                        int *err_line);

/* "graphviz 2.43.0 svg-pass 1 fonts …": what the output depends on besides the
 * source and the engine (for the cache key). Static string. */
const char *diagram_dot_version(void);

/* How many graphs Graphviz has laid out in this process (tests check that a
 * cached diagram costs none). */
size_t diagram_dot_layouts(void);

/* Graphviz's SVG (svg[0..n)) → what a page holds inline; appends to out.
 * Returns false with err set when the SVG is not of the shape Graphviz
 * writes, or links to a URL that url_allowed refuses. */
bool diagram_svg_fix(buf *out, const char *svg, size_t n, buf *err);

/* Whether s[0..n) is an SVG as diagram_svg_fix writes it: one <svg> with
 * no script, foreign object, event handler or comment. What the build cache
 * gives is used only then. */
bool diagram_svg_ok(const char *s, size_t n);

#endif
