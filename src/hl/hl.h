/* hl: syntax highlighting of code blocks at build time.
 *
 * The language definitions are highlight.js's (9.18, Debian's
 * libjs-highlight.js), compiled into the binary at build time as data (see
 * hl/lang.h); this module runs highlight.js's highlighting algorithm over
 * them natively, with PCRE2's JIT for the regexes, and writes the same HTML
 * highlight.js writes — `<span class="hljs-keyword">def</span>` and so on —
 * byte for byte (tests/hl checks it against highlight.js itself).
 *
 * Thread-safe: the regexes of a language are compiled the first time one of
 * its modes is entered, under a lock, and shared after that. */
#ifndef SHEAF_HL_H
#define SHEAF_HL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Changes whenever the same input could highlight differently: part of the
 * build cache's key. */
#define HL_ENGINE_VERSION "hl2-hljs9.18.5"

/* The language a fence names — its name or an alias, any case ("py",
 * "Python", "sh") — or -1 when there is none or it was left out. */
int hl_language_find(const char *name, size_t len);
/* Its canonical name ("python"). */
const char *hl_language_name(int lang);
/* The languages fences may name, for documentation and tests: index i <
 * hl_language_total(); hl_language_name(i) is NULL for the ones only used
 * inside others (CSS inside HTML). */
size_t hl_language_total(void);

/* What became of a block. */
typedef enum hl_status {
    HL_HIGHLIGHTED, /* out has highlight.js's HTML */
    HL_GAVE_UP,     /* not UTF-8, or a regex over PCRE2's limits, or a
                       definition that loops: out has the code escaped */
    HL_OVER_BUDGET, /* the block's work budget ran out: the code escaped */
} hl_status;

/* The budget of a page's code blocks together, in units of work that
 * count what PCRE2 may do, never a clock, so that a block is highlighted
 * or left plain the same way on any machine however busy: each regex
 * search is charged the start positions it may try times the bytes it is
 * shown (hl.c, search). HL_BUDGET_BASE plus HL_BUDGET_PER_BYTE for each
 * byte of the page's code (real code uses a small part of that;
 * docs/internals.md, "Budgets"). A block that runs past what is left of
 * it is given up (HL_OVER_BUDGET), so highlighting a page, in any
 * language, however its code is split into blocks, does at most linear
 * work in the size of its code. HL_MATCH_LIMIT is PCRE2's match limit
 * for each search (it bounds backtracking, which the charge leaves out;
 * past it the block is given up, HL_GAVE_UP). */
#define HL_BUDGET_BASE 1000000ULL
#define HL_BUDGET_PER_BYTE 500ULL
#define HL_MATCH_LIMIT 1000000

/* What a page's blocks have used of their budget: zero it for a page. */
typedef struct hl_page {
    unsigned long long work; /* units of work (above) */
    size_t bytes;            /* of code */
} hl_page;

/* Appends to out the HTML of `code` (len bytes of UTF-8) highlighted as
 * `lang`: text escaped (&, <, >), tokens in <span class="hljs-…">, what
 * highlight.js's hljs.highlight(lang, code, true).value is. Else (see
 * hl_status) appends the code escaped and nothing else; the caller may then
 * warn. `page` (NULL: the block alone) carries the budget from one block
 * of a page to the next. */
hl_status hl_highlight(int lang, const char *code, size_t len, buf *out, hl_page *page);

/* Appends code with &, < and > escaped, as highlight.js escapes. */
void hl_escape(buf *out, const char *s, size_t n);

#endif
