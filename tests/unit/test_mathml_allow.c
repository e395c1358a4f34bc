/* test_mathml_allow: what the build cache gives for a formula is used only when
 * it is MathML as KaTeX and the pass of md/mathml.c write it (site_mathml_ok, site/math.c; issue 34,
 * finding 14): every kind of formula KaTeX renders passes, and markup a
 * poisoned cache entry could carry does not. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "js/katex.h"
#include "md/mathml.h"
#include "site/site.h"

static bool ok(const char *s)
{
    return site_mathml_ok(s, strlen(s));
}

/* Formulas that use every construct whose MathML has its own elements or
 * attributes: colours, boxes, rules, cancels, matrices, spacing, fonts,
 * accents, big operators, \href without trust (shown as text), \tag. */
static const char *const formulas[] = {
    "x",
    "\\frac{a}{b} + \\sqrt[3]{x} - \\sqrt{y}",
    "\\sum_{i=0}^{n} i^2 = \\int_0^1 f(x)\\,dx",
    "\\color{red}{x} + \\textcolor{#00ff00}{y} + \\colorbox{yellow}{z} + \\fcolorbox{red}{blue}{w}",
    "\\boxed{E = mc^2} \\cancel{x} \\bcancel{y} \\xcancel{z} \\sout{w}",
    "\\rule{1em}{2pt} \\phantom{x} \\hphantom{y} \\vphantom{z} \\kern1em \\hspace{3pt} \\mathstrut",
    "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix} \\begin{array}{c|l} a & b \\\\ \\hline c & d \\end{array}",
    "\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}",
    "\\mathbb{R} \\mathcal{L} \\mathfrak{g} \\mathrm{d} \\mathbf{v} \\boldsymbol{\\alpha} \\operatorname{tr}",
    "\\hat{a} \\widehat{ab} \\tilde{x} \\overline{xy} \\underline{z} \\overbrace{a+b}^{n} \\underbrace{c}_{m}",
    "\\left( \\frac{1}{2} \\right] \\big| \\Bigg\\{ \\langle x \\rangle",
    "\\xrightarrow[a]{b} \\overset{!}{=} \\underset{x}{\\lim} \\stackrel{def}{=} \\not\\in",
    "\\text{text } \\textbf{bold} \\texttt{mono} \\href{https://example.org}{link} \\url{https://x.y}",
    "\\tag{1} x = 1",
    "\\displaystyle \\scriptstyle x \\scriptscriptstyle y \\tiny a \\Huge b",
    "a \\mathllap{b} \\mathrlap{c} \\smash{d} \\raisebox{2pt}{e} \\mathclap{f}",
    "\\binom{n}{k} \\dbinom{a}{b} \\cfrac{1}{2} \\genfrac{(}{)}{0pt}{}{a}{b} \\over",
    "\\ce{H2O}",
    "a < b > c \\& \\% \\$ \\# \\{ \\}",
};

TEST(katex_output_passes)
{
    buf err = BUF_INIT;
    js_katex *k = js_katex_new(&err);
    OK(k != NULL);
    size_t rendered = 0;
    for (size_t i = 0; k && i < sizeof formulas / sizeof *formulas; i++)
        for (int display = 0; display < 2; display++) {
            buf out = BUF_INIT;
            long at;
            if (!js_katex_render(k, formulas[i], strlen(formulas[i]), display, &out, &at)) {
                buf_release(&out);
                continue; /* not KaTeX's (\ce): nothing to check */
            }
            rendered++;
            if (!site_mathml_ok(out.data, out.len))
                FAILF("KaTeX's MathML refused for %s:\n%s", formulas[i], out.data);
            /* what the cache holds: after the pass of md/mathml.c */
            buf fixed = BUF_INIT;
            md_mathml_fix(&fixed, out.data, out.len);
            if (!site_mathml_ok(fixed.data, fixed.len))
                FAILF("the pass's MathML refused for %s:\n%s", formulas[i], fixed.data);
            buf_release(&fixed);
            buf_release(&out);
        }
    /* all but \ce (mhchem is no part of KaTeX's core), both ways, and \tag
     * only in display */
    EQ_INT(rendered, 2 * (sizeof formulas / sizeof *formulas - 1) - 1);
    js_katex_free(k);
    buf_release(&err);
}

TEST(markup_fails)
{
    const char *m = "<math xmlns=\"http://www.w3.org/1998/Math/MathML\">";
    char b[512];
    OK(ok("<math xmlns=\"http://www.w3.org/1998/Math/MathML\"><mi>x</mi></math>"));
    /* an element that is no MathML KaTeX writes */
    snprintf(b, sizeof b, "%s<mi>x</mi><script>alert(1)</script></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<mtext><img src=x onerror=alert(1)></mtext></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<annotation-xml encoding=\"text/html\"><a>x</a></annotation-xml></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<mglyph src=\"x\"/></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<!-- x --></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<![CDATA[<script>]]></math>", m);
    OK(!ok(b));
    /* an attribute that is a handler or a URL, or a value with markup */
    snprintf(b, sizeof b, "%s<mi onclick=\"alert(1)\">x</mi></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<mi href=\"javascript:alert(1)\">x</mi></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<mi style=\"background:url(javascript:alert(1))\">x</mi></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<mi class=\"a\" mathcolor=\"&quot;x\">x</mi></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<mi class='a'>x</mi></math>", m);
    OK(!ok(b));
    OK(!ok("<math xmlns=\"http://evil.example/\"><mi>x</mi></math>"));
    /* text around the formula, or a tag left open */
    snprintf(b, sizeof b, "%s<mi>x</mi></math><script>alert(1)</script><math></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "<p>%s<mi>x</mi></math>", m);
    OK(!ok(b));
    snprintf(b, sizeof b, "%s<mi>x</mi </math>", m);
    OK(!ok(b));
    OK(!ok(""));
}

int main(void)
{
    RUN(katex_output_passes);
    RUN(markup_fails);
    return harness_done();
}
