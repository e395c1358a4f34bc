/* js: TeX → MathML at build time, with KaTeX (Debian's libjs-katex)
 * running in Duktape (Debian's duktape-dev), an embeddable JavaScript
 * engine. katex.min.js is compiled into the binary (no file is read at run
 * time).
 *
 * An engine is one Duktape heap with KaTeX loaded: loading takes a while
 * (see docs/math.md for figures), a formula well under a millisecond. An
 * engine is used by one thread at a time; a js_pool hands engines to
 * threads and starts one only when every other is busy, so a site without
 * formulas never starts any, and a build never starts more than it has
 * threads rendering formulas at once. */
#ifndef SHEAF_JS_KATEX_H
#define SHEAF_JS_KATEX_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

typedef struct js_katex js_katex;

/* The budget of a formula (docs/internals.md, "Budgets"): its size; the
 * macro expansions KaTeX may make (its maxExpand) and the size in em of a
 * \rule or \kern (its maxSize: larger ones are cut to it); the memory the
 * engine's heap may grow by and the CPU time it may take. Past the size, the
 * memory or the time, js_katex_render fails with a message saying which. */
#define JS_KATEX_MAX_BYTES 32768
#define JS_KATEX_MAX_EXPAND 1000
#define JS_KATEX_MAX_SIZE_EM 100
#define JS_KATEX_HEAP_MB 128
#define JS_KATEX_CPU_MS 5000

/* What the output depends on besides the TeX: the KaTeX bytes (a hash),
 * the Duktape version and the options of the budget, e.g.
 * "katex-0.16.4-5f3a…/duktape-20700/x1000-s100". For
 * cache keys; known without starting an engine. Static. */
const char *js_katex_version(void);

/* Starts an engine. NULL with the reason appended to error when KaTeX
 * cannot be loaded. Free with js_katex_free. */
js_katex *js_katex_new(buf *error);
/* js_katex_free(NULL) does nothing. */
void js_katex_free(js_katex *k);
/* Another budget for k's formulas (tests): heap bytes, CPU milliseconds. */
void js_katex_set_budget(js_katex *k, size_t heap_bytes, long cpu_ms);
/* Whether k ran out of a budget, after which it is not to be used again
 * (js_pool_give frees such an engine; js_katex_render refuses to run). */
bool js_katex_spent(const js_katex *k);

/* Renders tex[0..len) (display or inline math) to MathML: on success
 * appends `<math …>…</math>` (the TeX kept in
 * `<annotation encoding="application/x-tex">`) to out and returns true;
 * else appends KaTeX's message to out (without its quote of the input),
 * sets *error_at to the byte offset in tex of the problem (-1 when it has
 * none) and returns false. A formula over its budget (above) fails so too,
 * at offset -1. */
bool js_katex_render(js_katex *k, const char *tex, size_t len, bool display, buf *out,
                     long *error_at);

/* ---- engines shared by threads ---- */

typedef struct js_pool js_pool;

js_pool *js_pool_new(void);
/* Frees the pool and its engines (none may be taken). NULL: nothing. */
void js_pool_free(js_pool *p);
/* An idle engine, or a new one (NULL with the reason in error when it
 * cannot start). Give it back with js_pool_give. Thread-safe. */
js_katex *js_pool_take(js_pool *p, buf *error);
void js_pool_give(js_pool *p, js_katex *k);
/* Collects the garbage of every idle engine (a full mark-and-sweep of its
 * heap, KaTeX's objects included: a millisecond or more). */
void js_pool_collect(js_pool *p);
/* Engines started so far, and the milliseconds spent starting them. */
size_t js_pool_started(js_pool *p, double *ms);

#endif
