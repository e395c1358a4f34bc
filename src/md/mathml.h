/* md/mathml.h: KaTeX's MathML made to render as TeX would in browsers that
 * implement MathML Core (Chromium) as well as in Firefox. See mathml.c. */
#ifndef SHEAF_MD_MATHML_H
#define SHEAF_MD_MATHML_H

#include <stddef.h>

#include "util/buf.h"

/* Bumped whenever md_mathml_fix writes different bytes for the same input,
 * so that a formula cache keyed with it never serves an older rewrite. */
#define MD_MATHML_VERSION "mathml-3"

/* Appends to out the MathML of one formula (a <math> element as KaTeX
 * writes it with output "mathml"), rewritten:
 *  - letters and digits with mathvariant (double-struck, script, fraktur,
 *    bold, italic, bold-italic, the sans-serif ones, monospace) become the
 *    Unicode Mathematical Alphanumeric Symbols, with the Letterlike
 *    exceptions (ℝ, ℬ, ℭ, …), and lose the attribute; text (mtext) in
 *    bold, italic, sans-serif or monospace gets the matching style;
 *  - an operator in a script, a limit or an inline fraction (TeX's script
 *    style) gets no space around it (lspace, rspace 0), large operators
 *    excepted;
 *  - U+2061 after an operator name (\log, \operatorname) gets the class
 *    fn-apply, for the theme to give it TeX's thin space, unless an opening
 *    delimiter follows or it ends its row; a bar
 *    KaTeX marks stretchy="false" (\lVert, \rvert) is a delimiter, with no
 *    space around it, not a relation;
 *  - table cells get the alignment and spacing of their columnalign,
 *    columnspacing and rowspacing as styles (Chromium reads none of those
 *    attributes); the widths KaTeX gives \tag rows, as styles too;
 *  - an <mi> around other elements (KaTeX's \boldsymbol of several
 *    symbols) is dropped, keeping what it holds.
 * Anything it does not recognise is copied as it is; it never fails. */
void md_mathml_fix(buf *out, const char *mathml, size_t len);

#endif
