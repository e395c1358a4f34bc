/* bib/cslstyle: checks a CSL style (a `.csl` file, XML) before citeproc-js
 * is given it, and reads what choosing it needs to know: its default
 * locale and whether it numbers its citations.
 *
 * citeproc-js, given a broken style, fails with a JavaScript exception
 * that names no place in the file (or renders nothing). So the file is
 * first read here as XML 1.0 — well-formed: one root element, every tag
 * closed in order, attribute values quoted and given once, entities
 * (&amp; &lt; &gt; &quot; &apos; &#N; &#xN;) known, comments, processing
 * instructions, CDATA and a DOCTYPE without an internal subset, UTF-8 —
 * and then as CSL: the root is <style> in the CSL namespace
 * (http://purl.org/net/xbiblio/csl, as the default namespace or a prefix),
 * and it has a <citation> and a <bibliography> (a page's reference list
 * comes from the latter). A dependent style (one that only names its
 * parent with <link rel="independent-parent">) has neither: the error
 * says to use the parent, whose URL is in .parent.
 *
 * Each problem is an error at the file's line:col (columns count
 * characters): `apa.csl:12:5: error: …`. XML errors end the reading (one
 * per file); the CSL checks report each missing part. Linear in the file,
 * no recursion (the open elements are a stack), nothing global. */
#ifndef SHEAF_BIB_CSLSTYLE_H
#define SHEAF_BIB_CSLSTYLE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "util/arena.h"

typedef struct bib_csl_style {
    const char *default_locale;  /* <style default-locale="…">: "en-US",
                                    "zh-CN"; NULL when the style names none
                                    (the page's language decides) */
    const char *citation_format; /* <category citation-format="…"> in
                                    <info>: "numeric", "author-date",
                                    "author", "label", "note"; NULL if none */
    bool numeric;                /* citation_format is "numeric": citations
                                    are numbers, numbered per page */
    const char *klass;           /* <style class="…">: "in-text" or "note"
                                    (NULL when absent) */
    const char *title;           /* <info><title>, whitespace as written;
                                    NULL if none */
    const char *parent;          /* a dependent style's independent-parent
                                    URL, else NULL */
    bool has_citation, has_bibliography;
} bib_csl_style;

/* Checks the style text[0..len) read from `path` (its name in messages)
 * and fills *out (strings in a). Returns true when it is a CSL style
 * sheaf can render with; false after reporting each problem into d (*out
 * then holds what could be read). */
bool bib_csl_style_check(const char *text, size_t len, const char *path, arena *a, bib_csl_style *out,
                         diag_list *d);

#endif
