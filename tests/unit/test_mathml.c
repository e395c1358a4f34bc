/* test_mathml: the pass over KaTeX's MathML (md/mathml.c), each branch:
 * letters with mathvariant, text with mathvariant, the <mi> KaTeX wraps
 * around rows, operator spacing in scripts, table cells, the cache key,
 * and input it does not recognise. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "harness.h"
#include "js/katex.h"
#include "md/mathml.h"
#include "site/site.h"
#include "util/arena.h"
#include "util/fs.h"

static char got[4096];

/* The pass over s, as a string. */
static const char *fix(const char *s)
{
    buf b = BUF_INIT;
    md_mathml_fix(&b, s, strlen(s));
    snprintf(got, sizeof got, "%s", b.data);
    buf_release(&b);
    return got;
}

/* One token <T mathvariant="V">X</T> inside a display formula, fixed,
 * without the <math> around it. */
static const char *tok(const char *t, const char *v, const char *x)
{
    char in[512];
    snprintf(in, sizeof in, "<math display=\"block\"><%s mathvariant=\"%s\">%s</%s></math>", t, v, x, t);
    fix(in);
    size_t open = strlen("<math display=\"block\">"), close = strlen("</math>");
    size_t n = strlen(got);
    memmove(got, got + open, n - open - close);
    got[n - open - close] = '\0';
    return got;
}

TEST(letters)
{
    EQ_STR(tok("mi", "double-struck", "E"), "<mi>𝔼</mi>");
    EQ_STR(tok("mi", "double-struck", "R"), "<mi>ℝ</mi>"); /* Letterlike */
    EQ_STR(tok("mi", "double-struck", "CHNPQZ"), "<mi>ℂℍℕℙℚℤ</mi>");
    EQ_STR(tok("mi", "double-struck", "k"), "<mi>𝕜</mi>");
    EQ_STR(tok("mn", "double-struck", "1"), "<mn>𝟙</mn>");
    EQ_STR(tok("mi", "script", "A"), "<mi>𝒜</mi>");
    EQ_STR(tok("mi", "script", "BEFHILMR"), "<mi>ℬℰℱℋℐℒℳℛ</mi>");
    EQ_STR(tok("mi", "script", "ego"), "<mi>ℯℊℴ</mi>");
    EQ_STR(tok("mi", "bold-script", "B"), "<mi>𝓑</mi>");
    EQ_STR(tok("mi", "fraktur", "F"), "<mi>𝔉</mi>");
    EQ_STR(tok("mi", "fraktur", "CHIRZ"), "<mi>ℭℌℑℜℨ</mi>");
    EQ_STR(tok("mi", "bold-fraktur", "g"), "<mi>𝖌</mi>");
    EQ_STR(tok("mi", "bold", "xA"), "<mi>𝐱𝐀</mi>");
    EQ_STR(tok("mn", "bold", "09"), "<mn>𝟎𝟗</mn>");
    EQ_STR(tok("mi", "bold", "ΓΣΩ"), "<mi>𝚪𝚺𝛀</mi>");
    EQ_STR(tok("mi", "bold", "ϴ∇"), "<mi>𝚹𝛁</mi>");
    EQ_STR(tok("mi", "bold", "αςω"), "<mi>𝛂𝛓𝛚</mi>");
    EQ_STR(tok("mi", "bold", "∂ϵϑϰϕϱϖ"), "<mi>𝛛𝛜𝛝𝛞𝛟𝛠𝛡</mi>");
    EQ_STR(tok("mi", "italic", "Ah"), "<mi>𝐴ℎ</mi>");
    EQ_STR(tok("mi", "italic", "β"), "<mi>𝛽</mi>");
    EQ_STR(tok("mi", "bold-italic", "xα"), "<mi>𝒙𝜶</mi>");
    EQ_STR(tok("mi", "sans-serif", "Ab"), "<mi>𝖠𝖻</mi>");
    EQ_STR(tok("mn", "sans-serif", "2"), "<mn>𝟤</mn>");
    EQ_STR(tok("mi", "bold-sans-serif", "Aα"), "<mi>𝗔𝝰</mi>");
    EQ_STR(tok("mn", "bold-sans-serif", "3"), "<mn>𝟯</mn>");
    EQ_STR(tok("mi", "sans-serif-italic", "a"), "<mi>𝘢</mi>");
    EQ_STR(tok("mi", "sans-serif-bold-italic", "aΔ"), "<mi>𝙖𝞓</mi>");
    EQ_STR(tok("mi", "monospace", "Az"), "<mi>𝙰𝚣</mi>");
    EQ_STR(tok("mn", "monospace", "7"), "<mn>𝟽</mn>");
    EQ_STR(tok("mo", "bold", "+x"), "<mo mathvariant=\"bold\">+x</mo>");
    /* other attributes stay */
    EQ_STR(fix("<mi class=\"c\" mathvariant=\"bold\" style=\"color:red\">x</mi>"),
           "<mi class=\"c\" style=\"color:red\">𝐱</mi>");
}

TEST(letters_kept)
{
    /* a character Unicode has no such form of: the element stays as KaTeX
     * wrote it, for the browser's own fallback */
    EQ_STR(tok("mi", "double-struck", "α"), "<mi mathvariant=\"double-struck\">α</mi>");
    EQ_STR(tok("mn", "italic", "1"), "<mn mathvariant=\"italic\">1</mn>");
    EQ_STR(tok("mi", "script", "Γ"), "<mi mathvariant=\"script\">Γ</mi>");
    EQ_STR(tok("mi", "bold", "x&amp;"), "<mi mathvariant=\"bold\">x&amp;</mi>");
    EQ_STR(tok("mi", "bold", "\xC3"), "<mi mathvariant=\"bold\">\xC3</mi>"); /* cut UTF-8 */
    EQ_STR(tok("mi", "bold", "\xF8\x88\x80\x80\x80"), "<mi mathvariant=\"bold\">\xF8\x88\x80\x80\x80</mi>");
    EQ_STR(tok("mi", "bold", "\xC0\xAF"), "<mi mathvariant=\"bold\">\xC0\xAF</mi>"); /* overlong */
    EQ_STR(tok("mi", "bold", "\xE2\x28\xA1"), "<mi mathvariant=\"bold\">\xE2\x28\xA1</mi>");
    EQ_STR(tok("mi", "bold", ""), "<mi mathvariant=\"bold\"></mi>");
    /* normal is MathML Core's own; unknown names are left to the browser */
    EQ_STR(tok("mi", "normal", "d"), "<mi mathvariant=\"normal\">d</mi>");
    EQ_STR(tok("mi", "looped", "d"), "<mi mathvariant=\"looped\">d</mi>");
    /* no end tag right after the text */
    EQ_STR(fix("<mi mathvariant=\"bold\">x"), "<mi mathvariant=\"bold\">x");
    EQ_STR(fix("<mi mathvariant=\"bold\">x</mn>"), "<mi mathvariant=\"bold\">x</mn>");
    EQ_STR(fix("<mi mathvariant=\"bold\"/>"), "<mi mathvariant=\"bold\"/>");
}

TEST(text)
{
    EQ_STR(tok("mtext", "bold", "ab c"), "<mtext style=\"font-weight:bold\">ab c</mtext>");
    EQ_STR(tok("mtext", "italic", "d"), "<mtext style=\"font-style:italic\">d</mtext>");
    EQ_STR(tok("mtext", "bold-italic", "d"),
           "<mtext style=\"font-weight:bold;font-style:italic\">d</mtext>");
    EQ_STR(tok("mtext", "monospace", "c"), "<mtext style=\"font-family:monospace\">c</mtext>");
    EQ_STR(tok("mtext", "sans-serif", "c"), "<mtext style=\"font-family:sans-serif\">c</mtext>");
    EQ_STR(tok("mtext", "bold-sans-serif", "c"),
           "<mtext style=\"font-family:sans-serif;font-weight:bold\">c</mtext>");
    EQ_STR(tok("mtext", "sans-serif-italic", "c"),
           "<mtext style=\"font-family:sans-serif;font-style:italic\">c</mtext>");
    EQ_STR(tok("mtext", "sans-serif-bold-italic", "c"),
           "<mtext style=\"font-family:sans-serif;font-weight:bold;font-style:italic\">c</mtext>");
    /* no style for it: the characters */
    EQ_STR(tok("mtext", "double-struck", "R"), "<mtext>ℝ</mtext>");
    EQ_STR(tok("mtext", "fraktur", "a b"), "<mtext mathvariant=\"fraktur\">a b</mtext>");
    /* a style of its own comes after */
    EQ_STR(fix("<mtext mathvariant=\"bold\" style=\"color:red\">a</mtext>"),
           "<mtext style=\"font-weight:bold;color:red\">a</mtext>");
}

TEST(mi_around_rows)
{
    /* \boldsymbol{\alpha x}: KaTeX wraps the row in an <mi> */
    EQ_STR(fix("<mi><mrow><mi mathvariant=\"bold-italic\">α</mi></mrow></mi>"),
           "<mrow><mi>𝜶</mi></mrow>");
    EQ_STR(fix("<mi> <mrow></mrow></mi>"), " <mrow></mrow>");
    EQ_STR(fix("<mi></mi><mi>x</mi><mi/>"), "<mi></mi><mi>x</mi><mi/>");
}

#define APPLY "\xe2\x81\xa1" /* U+2061, what KaTeX writes after \log */
#define THIN "<mo class=\"fn-apply\">" APPLY "</mo>"

TEST(operator_names)
{
    /* \log p: TeX's thin space between the name and what follows */
    EQ_STR(fix("<mi>log</mi><mo>" APPLY "</mo><mi>p</mi>"), "<mi>log</mi>" THIN "<mi>p</mi>");
    EQ_STR(fix("<mi>det</mi><mo>" APPLY "</mo> <msub><mi>A</mi><mi>i</mi></msub>"),
           "<mi>det</mi>" THIN " <msub><mi>A</mi><mi>i</mi></msub>");
    EQ_STR(fix("<mi>f</mi><mo>" APPLY "</mo><mrow><mi>x</mi></mrow>"), "<mi>f</mi>" THIN "<mrow><mi>x</mi></mrow>");
    /* inside a script too (TeX keeps the thin space of an operator) */
    EQ_STR(fix("<msub><mi>x</mi><mrow><mi>sin</mi><mo>" APPLY "</mo><mi>t</mi></mrow></msub>"),
           "<msub><mi>x</mi><mrow><mi>sin</mi>" THIN "<mi>t</mi></mrow></msub>");
    /* none before an opening delimiter: \log(x), \sin\left(x\right) */
    const char *fenced[] = {
        "<mi>log</mi><mo>" APPLY "</mo><mo stretchy=\"false\">(</mo>",
        "<mi>sin</mi><mo>" APPLY "</mo><mrow><mo fence=\"true\">(</mo></mrow>",
        /* none where it ends its row: \max_i, the limit follows */
        "<msub><mrow><mi>max</mi><mo>" APPLY "</mo></mrow><mi>i</mi></msub>",
        "<mi>log</mi><mo>" APPLY "</mo>",
        "<mi>log</mi><mo>" APPLY "</mo><mrow><mrow><mi>x</mi></mrow></mrow>",
        /* KaTeX's own spacing or class stays */
        "<mi>log</mi><mo rspace=\"0\">" APPLY "</mo><mi>p</mi>",
        "<mi>log</mi><mo class=\"x\">" APPLY "</mo><mi>p</mi>",
    };
    for (size_t i = 0; i < sizeof fenced / sizeof *fenced; i++)
        EQ_STR(fix(fenced[i]), fenced[i]);
}

TEST(bar_delimiters)
{
    /* \lVert x \rVert, \lvert y \rvert: delimiters, no space around them */
    EQ_STR(fix("<mo stretchy=\"false\">∥</mo><mi>x</mi><mo stretchy=\"false\">∥</mo>"),
           "<mo stretchy=\"false\" lspace=\"0em\" rspace=\"0em\">∥</mo><mi>x</mi>"
           "<mo stretchy=\"false\" lspace=\"0em\" rspace=\"0em\">∥</mo>");
    EQ_STR(fix("<mo stretchy=\"false\">∣</mo>"), "<mo stretchy=\"false\" lspace=\"0em\" rspace=\"0em\">∣</mo>");
    EQ_STR(fix("<mo stretchy=\"false\">|</mo>"), "<mo stretchy=\"false\" lspace=\"0em\" rspace=\"0em\">|</mo>");
    /* relations keep theirs: a \parallel b, a \mid b; other delimiters
     * are fences in the dictionary already */
    const char *kept[] = { "<mi>a</mi><mo>∥</mo><mi>b</mi>", "<mi>a</mi><mo>∣</mo><mi>b</mi>",
                           "<mo stretchy=\"false\">(</mo>", "<mo stretchy=\"true\">∥</mo>" };
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        EQ_STR(fix(kept[i]), kept[i]);
}

TEST(script_spacing)
{
    /* w_{t+j}: the operator in the subscript gets no space */
    EQ_STR(fix("<msub><mi>w</mi><mrow><mi>t</mi><mo>+</mo><mi>j</mi></mrow></msub>"),
           "<msub><mi>w</mi><mrow><mi>t</mi><mo lspace=\"0em\" rspace=\"0em\">+</mo><mi>j</mi></mrow></msub>");
    /* every kind of script; the base keeps its spacing */
    const char *kinds[] = { "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts", "mroot" };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char in[256], want[256];
        snprintf(in, sizeof in, "<%s><mo>=</mo><mo>=</mo></%s>", kinds[i], kinds[i]);
        snprintf(want, sizeof want, "<%s><mo>=</mo><mo lspace=\"0em\" rspace=\"0em\">=</mo></%s>",
                 kinds[i], kinds[i]);
        EQ_STR(fix(in), want);
    }
    /* deeper inside a script too */
    EQ_STR(fix("<msup><mi>x</mi><mrow><mrow><mo>−</mo></mrow></mrow></msup>"),
           "<msup><mi>x</mi><mrow><mrow><mo lspace=\"0em\" rspace=\"0em\">−</mo></mrow></mrow></msup>");
    /* large operators and function names keep theirs */
    EQ_STR(fix("<msub><mi>x</mi><mo>∑</mo></msub>"), "<msub><mi>x</mi><mo>∑</mo></msub>");
    EQ_STR(fix("<msub><mi>x</mi><mo>lim</mo></msub>"), "<msub><mi>x</mi><mo>lim</mo></msub>");
    EQ_STR(fix("<msub><mi>x</mi><mo>a1</mo></msub>"),
           "<msub><mi>x</mi><mo lspace=\"0em\" rspace=\"0em\">a1</mo></msub>");
    /* a spacing KaTeX chose stays; the missing side is added */
    EQ_STR(fix("<msub><mi>x</mi><mo lspace=\"0.1em\">+</mo></msub>"),
           "<msub><mi>x</mi><mo lspace=\"0.1em\" rspace=\"0em\">+</mo></msub>");
    EQ_STR(fix("<msub><mi>x</mi><mo rspace=\"0.1em\">+</mo></msub>"),
           "<msub><mi>x</mi><mo rspace=\"0.1em\" lspace=\"0em\">+</mo></msub>");
    EQ_STR(fix("<msub><mi>x</mi><mo lspace=\"1\" rspace=\"1\">+</mo></msub>"),
           "<msub><mi>x</mi><mo lspace=\"1\" rspace=\"1\">+</mo></msub>");
    /* not text only: as it is */
    EQ_STR(fix("<msub><mi>x</mi><mo>+<mi/></mo></msub>"), "<msub><mi>x</mi><mo>+<mi/></mo></msub>");
}

TEST(fraction_and_style)
{
    /* an inline fraction's parts are in script style; a display one's not */
    EQ_STR(fix("<math><mfrac><mrow><mo>+</mo></mrow><mo>+</mo></mfrac></math>"),
           "<math><mfrac><mrow><mo lspace=\"0em\" rspace=\"0em\">+</mo></mrow>"
           "<mo lspace=\"0em\" rspace=\"0em\">+</mo></mfrac></math>");
    EQ_STR(fix("<math display=\"block\"><mfrac><mo>+</mo><mo>+</mo></mfrac></math>"),
           "<math display=\"block\"><mfrac><mo>+</mo><mo>+</mo></mfrac></math>");
    /* a fraction in a display fraction is in text style: its parts are scripts */
    EQ_STR(fix("<math display=\"block\"><mfrac><mfrac><mo>+</mo><mi/></mfrac><mi/></mfrac></math>"),
           "<math display=\"block\"><mfrac><mfrac><mo lspace=\"0em\" rspace=\"0em\">+</mo><mi/></mfrac>"
           "<mi/></mfrac></math>");
    /* mstyle: scriptlevel 0 and displaystyle reset, scriptlevel 1 sets */
    EQ_STR(fix("<msub><mi/><mstyle scriptlevel=\"0\"><mo>+</mo></mstyle></msub>"),
           "<msub><mi/><mstyle scriptlevel=\"0\"><mo>+</mo></mstyle></msub>");
    EQ_STR(fix("<msub><mi/><mstyle displaystyle=\"true\"><mo>+</mo></mstyle></msub>"),
           "<msub><mi/><mstyle displaystyle=\"true\"><mo>+</mo></mstyle></msub>");
    EQ_STR(fix("<mstyle scriptlevel=\"1\"><mo>+</mo></mstyle>"),
           "<mstyle scriptlevel=\"1\"><mo lspace=\"0em\" rspace=\"0em\">+</mo></mstyle>");
    EQ_STR(fix("<mstyle scriptlevel=\"-1\"><mo>+</mo></mstyle>"),
           "<mstyle scriptlevel=\"-1\"><mo>+</mo></mstyle>");
    /* displaystyle false: text style, fractions make scripts again */
    EQ_STR(fix("<math display=\"block\"><mstyle displaystyle=\"false\"><mfrac><mo>+</mo><mi/></mfrac>"
               "</mstyle></math>"),
           "<math display=\"block\"><mstyle displaystyle=\"false\"><mfrac><mo lspace=\"0em\" "
           "rspace=\"0em\">+</mo><mi/></mfrac></mstyle></math>");
}

TEST(tables)
{
    /* aligned: right/left, no space between the columns, 0.25em between rows */
    EQ_STR(fix("<mtable rowspacing=\"0.25em\" columnalign=\"right left\" columnspacing=\"0em\">"
               "<mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr>"
               "<mtr><mtd><mi>c</mi></mtd><mtd><mi>d</mi></mtd></mtr></mtable>"),
           "<mtable columnalign=\"right left\" columnspacing=\"0\" rowspacing=\"0\">"
           "<mtr><mtd style=\"text-align:right;text-align:-webkit-right;padding:0 0 0.125em 0\"><mi>a</mi></mtd>"
           "<mtd style=\"text-align:left;text-align:-webkit-left;padding:0 0 0.125em 0\"><mi>b</mi></mtd></mtr>"
           "<mtr><mtd style=\"text-align:right;text-align:-webkit-right;padding:0.125em 0 0 0\"><mi>c</mi></mtd>"
           "<mtd style=\"text-align:left;text-align:-webkit-left;padding:0.125em 0 0 0\"><mi>d</mi></mtd></mtr></mtable>");
    /* three columns, lists shorter than the columns (the last value repeats),
     * the middle cell has both paddings */
    EQ_STR(fix("<mtable columnalign=\"left center\" columnspacing=\"1em 0.2778em\">"
               "<mtr><mtd/><mtd></mtd><mtd></mtd></mtr></mtable>"),
           "<mtable columnalign=\"left center\" columnspacing=\"0\" rowspacing=\"0\">"
           "<mtr><mtd style=\"text-align:left;text-align:-webkit-left;padding:0 0.5em 0 0\"/>"
           "<mtd style=\"text-align:center;text-align:-webkit-center;padding:0 0.1389em 0 0.5em\"></mtd>"
           "<mtd style=\"text-align:center;text-align:-webkit-center;padding:0 0 0 0.1389em\"></mtd></mtr></mtable>");
    /* no attributes: MathML's defaults (0.8em, 1ex), no alignment */
    EQ_STR(fix("<mtable><mtr><mtd></mtd><mtd></mtd></mtr><mtr><mtd></mtd></mtr></mtable>"),
           "<mtable columnspacing=\"0\" rowspacing=\"0\">"
           "<mtr><mtd style=\"padding:0 0.4em 0.5ex 0\"></mtd><mtd style=\"padding:0 0 0.5ex 0.4em\"></mtd></mtr>"
           "<mtr><mtd style=\"padding:0.5ex 0 0 0\"></mtd></mtr></mtable>");
    /* a cell's own columnalign wins; a length that is not one gives 0; a
     * style of the cell's own comes after */
    EQ_STR(fix("<mtable columnalign=\"left\" columnspacing=\"wide\" rowspacing=\"5pt\"><mtr>"
               "<mtd columnalign=\"right\" style=\"color:red\"></mtd><mtd columnalign=\"top\"></mtd>"
               "</mtr><mtr></mtr></mtable>"),
           "<mtable columnalign=\"left\" columnspacing=\"0\" rowspacing=\"0\"><mtr>"
           "<mtd columnalign=\"right\" style=\"text-align:right;text-align:-webkit-right;padding:0 0 2.5pt 0;color:red\"></mtd>"
           "<mtd columnalign=\"top\" style=\"padding:0 0 2.5pt 0\"></mtd></mtr><mtr></mtr></mtable>");
    /* \tag: the table's and the glue cells' widths become styles */
    EQ_STR(fix("<mtable width=\"100%\"><mtr><mtd width=\"50%\"></mtd><mtd><mi>x</mi></mtd>"
               "<mtd width=\"50%\"></mtd><mtd><mtext>(3)</mtext></mtd></mtr></mtable>"),
           "<mtable width=\"100%\" columnspacing=\"0\" rowspacing=\"0\" style=\"width:100%\">"
           "<mtr><mtd style=\"width:50%\"></mtd><mtd style=\"padding:0 0.4em 0 0\"><mi>x</mi></mtd>"
           "<mtd style=\"width:50%\"></mtd><mtd style=\"padding:0 0 0 0.4em\"><mtext>(3)</mtext></mtd>"
           "</mtr></mtable>");
    EQ_STR(fix("<mtable style=\"a\"></mtable>"),
           "<mtable columnspacing=\"0\" rowspacing=\"0\" style=\"a\"></mtable>");
    /* align: glue cells take the room, the number's cell is not a column */
    EQ_STR(fix("<mtable columnalign=\"right left\" columnspacing=\"0em\"><mtr><mtd class =\"mtr-glue\">"
               "</mtd><mtd></mtd><mtd></mtd><mtd class=\"mtr-glue\"></mtd><mtd class=\"mml-eqn-num\"></mtd>"
               "</mtr></mtable>"),
           "<mtable columnalign=\"right left\" columnspacing=\"0\" rowspacing=\"0\"><mtr>"
           "<mtd class=\"mtr-glue\" style=\"width:50%\"></mtd>"
           "<mtd style=\"text-align:right;text-align:-webkit-right;padding:0 0 0 0\"></mtd>"
           "<mtd style=\"text-align:left;text-align:-webkit-left;padding:0 0 0 0\"></mtd>"
           "<mtd class=\"mtr-glue\" style=\"width:50%\"></mtd><mtd class=\"mml-eqn-num\"></mtd>"
           "</mtr></mtable>");
    /* mlabeledtr rows count as rows; a cell outside a table row is left alone */
    EQ_STR(fix("<mtable><mlabeledtr><mtd></mtd></mlabeledtr></mtable><mtd></mtd><mtr><mtd></mtd></mtr>"),
           "<mtable columnspacing=\"0\" rowspacing=\"0\"><mlabeledtr><mtd style=\"padding:0 0 0 0\"></mtd>"
           "</mlabeledtr></mtable><mtd></mtd><mtr><mtd></mtd></mtr>");
    /* a table that never closes: no counts, the cells keep both paddings */
    EQ_STR(fix("<mtable><mtr><mtd>"), "<mtable columnspacing=\"0\" rowspacing=\"0\"><mtr>"
                                      "<mtd style=\"padding:0 0.4em 0.5ex 0\">");
}

TEST(other_input)
{
    /* what the pass does not read is copied as it is */
    EQ_STR(fix(""), "");
    EQ_STR(fix("text only & more"), "text only & more");
    EQ_STR(fix("<!-- c --><?x?><mi>a</mi>"), "<!-- c --><?x?><mi>a</mi>");
    EQ_STR(fix("<!-- open"), "<!-- open");
    EQ_STR(fix("a < b"), "a < b");
    EQ_STR(fix("<mi mathvariant=\"bold"), "<mi mathvariant=\"bold");
    EQ_STR(fix("<mi"), "<mi");
    EQ_STR(fix("</mrow></mi><mi>x</mi>"), "</mrow></mi><mi>x</mi>");
    EQ_STR(fix("<mrow><mi>a</mrow>"), "<mrow><mi>a</mrow>"); /* closes the mrow and the mi */
    EQ_STR(fix("<mi / = mathvariant='bold'>x</mi>"), "<mi>𝐱</mi>");
    EQ_STR(fix("<mi =x mathvariant=\"bold\">x</mi>"), "<mi x=\"\">𝐱</mi>");
    EQ_STR(fix("<mi mathvariant=bold>x</mi>"), "<mi>𝐱</mi>");
    EQ_STR(fix("<mi mathvariant>x</mi>"), "<mi mathvariant>x</mi>");
    EQ_STR(fix("<mi\nmathvariant = \"bold\" >x</mi>"), "<mi>𝐱</mi>");
    /* more attributes than the pass reads: the tag as it is */
    char in[1024] = "<mi mathvariant=\"bold\"", want[1024];
    for (int i = 0; i < 30; i++)
        snprintf(in + strlen(in), sizeof in - strlen(in), " a%d=\"\"", i);
    strcat(in, ">x</mi>");
    strcpy(want, in);
    EQ_STR(fix(in), want);
    EQ_STR(fix("<msub><mi/><mi mathvariant=\"bold\" a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 b0 b1 b2 b3 b4 b5 b6 "
               "b7 b8 b9 c0 c1 c2 c3 c4><mo>+</mo></mi></msub>"),
           "<msub><mi/><mi mathvariant=\"bold\" a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 b0 b1 b2 b3 b4 b5 b6 "
           "b7 b8 b9 c0 c1 c2 c3 c4><mo lspace=\"0em\" rspace=\"0em\">+</mo></mi></msub>");
}

TEST(deep_input)
{
    /* deeply nested tables stay linear: past the depth the pass counts no
     * rows or cells (the cells keep both paddings) */
    buf in = BUF_INIT;
    for (int i = 0; i < 5000; i++)
        buf_puts(&in, "<mtable><mtr><mtd>");
    for (int i = 0; i < 5000; i++)
        buf_puts(&in, "</mtd></mtr></mtable>");
    buf out = BUF_INIT;
    md_mathml_fix(&out, in.data, in.len);
    OK(strstr(out.data, "<mtd style=\"padding:0 0 0 0\"><mtable") != NULL);
    OK(strstr(out.data, "<mtd style=\"padding:0 0.4em 0.5ex 0\"><mtable") != NULL);
    buf_release(&in);
    buf_release(&out);
}

TEST(cache_never_serves_the_old_mathml)
{
    /* a cache written before the pass, under the key it used then: the
     * formula is rendered again, through the pass */
    char tpl[] = "/tmp/sheaf-mathml-XXXXXX";
    OK(mkdtemp(tpl) != NULL);
    cache *c = cache_open(tpl, 0);
    buf key = BUF_INIT;
    buf_printf(&key, "%s\ndisplay\n\\mathbb{R}", js_katex_version());
    const char *stale = "<math><mi mathvariant=\"double-struck\">R</mi></math>";
    cache_put(c, "math", key.data, key.len, stale, strlen(stale));
    site_math m = { .cache = c, .engines = js_pool_new() };
    arena *a = arena_new();
    md_formula f = { "\\mathbb{R}", 10, true };
    const char *error = NULL;
    long at = -1;
    const char *html = site_math_render(&m, &f, a, &error, &at);
    OK(html && strstr(html, "<mi>ℝ</mi>") && !strstr(html, "mathvariant"));
    EQ_INT(m.rendered, 1);
    /* and the next time it comes from the cache, fixed */
    html = site_math_render(&m, &f, a, &error, &at);
    OK(html && strstr(html, "<mi>ℝ</mi>"));
    EQ_INT(m.rendered, 1);
    arena_free(a);
    js_pool_free(m.engines);
    cache_free(c);
    buf_release(&key);
    fs_rmtree(tpl);
}

int main(void)
{
    RUN(letters);
    RUN(letters_kept);
    RUN(text);
    RUN(mi_around_rows);
    RUN(operator_names);
    RUN(bar_delimiters);
    RUN(script_spacing);
    RUN(fraction_and_style);
    RUN(tables);
    RUN(other_input);
    RUN(deep_input);
    RUN(cache_never_serves_the_old_mathml);
    return harness_done();
}
