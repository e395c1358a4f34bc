/* js: citations in any Citation Style Language (CSL) style, with
 * citeproc-js (npm `citeproc`, vendored in third_party/citeproc/) running
 * in Duktape like KaTeX. citeproc.js is compiled into the binary with its
 * Duktape bytecode (js/gen); no file is read at run time.
 *
 * An engine is one Duktape heap with citeproc-js loaded. It keeps one
 * citeproc processor per (style key, locale, item languages) it was asked
 * for, since building one from a style's XML costs far more than a page's
 * citations (docs/citations.md has the figures). An engine is used by one
 * thread at a time.
 *
 * One call (js_csl_render) formats one document — a page: its citation
 * clusters in order (numbering, "ibid."-free positions and disambiguation
 * across the page) and its bibliography. The exchange is JSON so the C
 * side neither builds nor walks citeproc's objects:
 *
 *   request  {"style": "<style …>…</style>", "key": "apa",
 *             "lang": "en-US",            the page's locale
 *             "items": [CSL-JSON items],  every item the clusters cite
 *             "clusters": [[{"id": "k", "locator": "4", "label": "page",
 *                            "prefix": "see", "suffix": "",
 *                            "suppress-author": true,
 *                            "author-only": true}, …], …],
 *             "item_layouts": true}       see js_csl_render
 *   reply    {"clusters": ["(Lian et al., 2017, p. 4)", …],
 *             "bibliography": [["key", "<div class=\"csl-entry\">…</div>"], …],
 *             "numeric": true}            the style numbers its citations
 */
#ifndef SHEAF_JS_CSL_H
#define SHEAF_JS_CSL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

typedef struct js_csl js_csl;

/* ---- the styles and locales compiled in ----
 *
 * From Debian's citation-style-language-styles and -locales, embedded at
 * build time (cmake/embed_csl.cmake): the styles of SHEAF_CSL_STYLES in
 * CMakeLists.txt by their file's name ("apa", "ieee"), every locale by its
 * language ("en-US", "zh-CN"). */
typedef struct js_csl_file {
    const char *name;
    const char *text; /* NUL-terminated */
    size_t len;
} js_csl_file;

extern const js_csl_file js_csl_styles[];
extern const size_t js_csl_nstyles;
extern const js_csl_file js_csl_locales[];
extern const size_t js_csl_nlocales;

/* The bundled style or locale of that name; NULL when there is none. */
const js_csl_file *js_csl_bundled_style(const char *name);
const js_csl_file *js_csl_bundled_locale(const char *lang);

/* The budget of one document (docs/internals.md, "Budgets"): the bytes of
 * its request, the memory the engine's heap may grow by and the CPU time
 * it may take (building a processor for a new style included). Past them
 * js_csl_render fails with a message saying which, and the engine is
 * spent. */
#define JS_CSL_MAX_BYTES (16u << 20)
#define JS_CSL_HEAP_MB 256
#define JS_CSL_CPU_MS 30000

/* The version of what formats: citeproc-js's version and a hash of the
 * vendored file, and Duktape's, e.g. "citeproc-2.4.63-5f3a…/duktape-20700".
 * For cache keys; known without starting an engine. Static. */
const char *js_csl_version(void);

/* Where an engine finds a locale ("en-US", "zh-CN"): the XML of
 * locales-<lang>.xml, its length in *len; NULL when there is none. The
 * bytes must live as long as the engine. */
typedef const char *(*js_csl_locale_fn)(void *ud, const char *lang, size_t *len);
/* The bundled locales as a js_csl_locale_fn (ud unused). */
const char *js_csl_bundled_locale_fn(void *ud, const char *lang, size_t *len);

/* Starts an engine that reads locales through locale(ud, …). NULL with
 * the reason appended to error when citeproc-js cannot be loaded. Free
 * with js_csl_free. */
js_csl *js_csl_new(js_csl_locale_fn locale, void *ud, buf *error);
/* js_csl_free(NULL) does nothing. */
void js_csl_free(js_csl *k);
/* Another budget for k's documents (tests): heap bytes, CPU milliseconds. */
void js_csl_set_budget(js_csl *k, size_t heap_bytes, long cpu_ms);
/* Whether k ran out of a budget; it is then not to be used again. */
bool js_csl_spent(const js_csl *k);

/* Formats the document of request[0..len) (the JSON above): on success
 * appends the reply to out and returns true; else appends why to error
 * (citeproc-js's message, a missing locale named: "no locale 'xx-YY'…")
 * and returns false.
 *
 * With "item_layouts": true each item is formatted with the terms of its
 * own language ("language" of the item, its primary subtag) when that
 * differs from the document's: a GB/T 7714 bibliography gives "等" for a
 * Chinese entry and "et al." for an English one. It is done with CSL-M's
 * `<layout locale="…">`, which citeproc-js reads: a copy of each of the
 * style's layouts is added for each such language (docs/citations.md). */
bool js_csl_render(js_csl *k, const char *request, size_t len, buf *out, buf *error);

#endif
