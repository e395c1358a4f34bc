/* md/mathscan.h: where a formula starts and ends in Markdown text — the
 * delimiter rules of the math extension (md/math.c), kept apart from
 * cmark-gfm so they can be tested and fuzzed on their own.
 *
 * Inline, in the text of a paragraph, heading or table cell (Pandoc's
 * rules, so prices stay prices):
 *  - `$…$`: the opening `$` is followed by a non-space character; a
 *    closing `$` is preceded by a non-space character; a space (or line
 *    break) followed by a `$` ends the attempt (no formula here: "it cost
 *    $5 and $10" stays text), and so does a closing `$` followed by a digit.
 *    Inside, a backslash takes the next character with it (`\$` does not
 *    close), and `\text{…}` is skipped with its braces balanced (it may
 *    hold `$`).
 *  - `$$…$$`: display math; the first `$$` after the opener closes it (again
 *    with backslash pairs skipped). Not empty.
 *  - `\(…\)`: inline math; the first `\)` closes it (backslash pairs
 *    skipped). Not empty.
 * A backslash right before an opener (`\$`) is Markdown's escape and never
 * reaches the scanner. Line breaks may sit inside any of them.
 *
 * Display blocks, whole lines (md_math_block_open): a line starting with
 * `$$`, or with `\[` when it ends with `\]` or has no other `]`, opens a
 * display block, unless a closing `$$` sits in the middle of that line
 * (then it is inline text); the block ends with the first line ending in
 * `$$` (`\]`), which may be the opening line itself. */
#ifndef SHEAF_MD_MATHSCAN_H
#define SHEAF_MD_MATHSCAN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct md_math_span {
    size_t tex;     /* offset of the TeX (after the opener) */
    size_t tex_len;
    size_t end;     /* offset just past the closer */
    bool display;
} md_math_span;

/* Is there a formula at s[at] (a '$', or the '\' of "\(")? Fills m. */
bool md_math_scan(const char *s, size_t n, size_t at, md_math_span *m);

/* With markdown.math_escapes: markdown, `\\(…\\)` is inline math too (a
 * site written for Goldmark or kramdown and MathJax, where Markdown turns
 * it into `\(…\)`): is there a formula at s[at] (the first backslash)? The
 * first `\\)` closes it (other backslash pairs skipped). */
bool md_math_scan_escaped(const char *s, size_t n, size_t at, md_math_span *m);

/* The TeX of s[0..n) with Markdown's backslash escapes undone (a backslash
 * before ASCII punctuation goes: `D\_{KL}` → `D_{KL}`, `\\{` → `\{`), as
 * Goldmark and kramdown do before MathJax sees it. Writes to out (n bytes
 * at most, not terminated); returns the length. */
size_t md_math_unescape(const char *s, size_t n, char *out);

/* The offset in s[0..n) of byte `at` of md_math_unescape's result. */
size_t md_math_unescaped_origin(const char *s, size_t n, size_t at);

/* Where s[0..n) has `\_` right after a letter, digit, `}`, `)` or `'` and
 * before a letter, digit, `{` or `\` — a subscript escaped for Markdown
 * (`D\_{KL}`), which TeX reads as a printed underscore — outside a text
 * argument (`\text{a\_b}` is fine): the backslash's offset, else -1. */
long md_math_escaped_subscript(const char *s, size_t n);

/* What KaTeX wants instead, for an error it gives on TeX that MathJax
 * reads (`Q^\\vec{\\mu}`, `\\tau_\\max`, `\\text{a_b}`, `\\text{ & }`,
 * `\\left\\\\{`): a sentence to add to the message, or NULL. error is
 * KaTeX's message, tex[0..n) the formula. */
const char *md_math_error_hint(const char *error, const char *tex, size_t n);

/* Does a display block open on this line (s[0..n), from its first
 * non-space character, without the line ending)? Sets *closer to '$' or
 * ']' (the closer to look for), *opener_len to the opener's length (2),
 * and *closed when the line also closes it. */
bool md_math_block_open(const char *s, size_t n, char *closer, size_t *opener_len, bool *closed);

/* Does this line (without its ending) close a display block of `closer`?
 * Sets *tail to the length of the closer and what follows it (spaces). */
bool md_math_block_closes(const char *s, size_t n, char closer, size_t *tail);

/* A label `{#eq-key}` after a display block's closer (Quarto's syntax):
 * the length of it and the spaces before it at the end of s[0..n) (0 when
 * there is none); *key, *klen: the key ("eq-…"). */
size_t md_math_eq_attr(const char *s, size_t n, const char **key, size_t *klen);

/* The length of the punctuation at the start of s (NUL-terminated) that
 * stays with an inline formula before it: , . ; : ! ? ) ] ' " ’ ” and the
 * CJK ， 。 、 ； ： ！ ？ ）, any run of them up to 12 bytes; 0 when s
 * starts with none. */
size_t md_math_punct_len(const char *s);

#endif
