/* md/code.c: fenced and indented code blocks, highlighted at build time.
 *
 * The info string of a fence is a language, then optionally options in
 * braces, as Hugo writes them:
 *
 *     ```python {linenos=true, hl_lines=[2, "4-6"], linenostart=10}
 *
 * A language hl/ knows (a name or an alias, any case) is highlighted: the
 * block becomes `<pre tabindex="0" class="hl" data-lang="py"><code
 * class="language-py hljs">` with highlight.js's token spans (the theme
 * colours them and shows data-lang, the language as the fence names it, as
 * a label). A language it does not know
 * stays plain and escaped, with a warning; a block without a language stays
 * plain. With `markdown.highlight: false` code blocks are written as
 * cmark-gfm writes them: no highlighting, no options, no line numbers.
 *
 * With line numbers (the option, or markdown.linenos for the whole site) or
 * highlighted lines, every line becomes
 *     <span class="line[ hl]"><span class="ln">N</span><span class="cl">…\n</span></span>
 * (the number only with line numbers); token spans that cross a line end
 * are closed at its end and opened again on the next line, so each line is
 * well-formed HTML on its own.
 *
 * This is the `highlight` extension: the last renderer of the code-block
 * chain (md/extensions.h), which takes every block the others left. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hl/hl.h"
#include "md/internal.h"
#include "util/xalloc.h"

typedef struct code_opts {
    int linenos;      /* -1: the site's default */
    long start;       /* first line number */
    unsigned char *hl; /* hl[i]: line i+1 is highlighted */
    size_t nhl;
} code_opts;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static void mark_lines(code_opts *o, long from, long to)
{
    if (from < 1 || to < from || to > 100000)
        return;
    if ((size_t)to > o->nhl) {
        o->hl = xrealloc(o->hl, (size_t)to);
        memset(o->hl + o->nhl, 0, (size_t)to - o->nhl);
        o->nhl = (size_t)to;
    }
    for (long i = from; i <= to; i++)
        o->hl[i - 1] = 1;
}

/* "2", "4-6" (a list item, or a space-separated list in a string) */
static bool parse_ranges(code_opts *o, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && is_space(s[i]))
            i++;
        if (i == n)
            break;
        char *end;
        long a = strtol(s + i, &end, 10);
        if (end == s + i || (size_t)(end - s) > n)
            return false;
        i = (size_t)(end - s);
        long b = a;
        if (i < n && s[i] == '-') {
            i++;
            b = strtol(s + i, &end, 10);
            if (end == s + i || (size_t)(end - s) > n)
                return false;
            i = (size_t)(end - s);
        }
        if (a < 1 || b < a)
            return false;
        mark_lines(o, a, b);
        if (i < n && !is_space(s[i]))
            return false;
    }
    return true;
}

/* One value: a word (true, 12), a "string" or a [list]; sets *v, *vn to
 * its text (without quotes or brackets) and returns the end, or NULL. */
static const char *value_end(const char *s, const char **v, size_t *vn)
{
    if (*s == '"' || *s == '\'') {
        const char *e = strchr(s + 1, *s);
        if (!e)
            return NULL;
        *v = s + 1;
        *vn = (size_t)(e - s - 1);
        return e + 1;
    }
    if (*s == '[') {
        const char *e = strchr(s, ']');
        if (!e)
            return NULL;
        *v = s + 1;
        *vn = (size_t)(e - s - 1);
        return e + 1;
    }
    const char *e = s;
    while (*e && *e != ',' && *e != '}' && !is_space(*e))
        e++;
    if (e == s)
        return NULL;
    *v = s;
    *vn = (size_t)(e - s);
    return e;
}

static bool word_is(const char *v, size_t n, const char *w) { return n == strlen(w) && memcmp(v, w, n) == 0; }

/* hl_lines=[2, "4-6", 8] */
static bool parse_hl_list(code_opts *o, const char *v, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (is_space(v[i]) || v[i] == ','))
            i++;
        if (i == n)
            break;
        size_t j = i;
        if (v[i] == '"' || v[i] == '\'') {
            char q = v[i];
            j = i + 1;
            while (j < n && v[j] != q)
                j++;
            if (j == n || !parse_ranges(o, v + i + 1, j - i - 1))
                return false;
            i = j + 1;
        } else {
            while (j < n && v[j] != ',')
                j++;
            if (!parse_ranges(o, v + i, j - i))
                return false;
            i = j;
        }
    }
    return true;
}

/* The options in braces; a problem is reported at the fence and the block
 * renders as if the option were not there. */
static void parse_options(md_walk *w, const char *s, int line, int col, code_opts *o)
{
    const char *p = s + 1; /* after '{' */
    for (;;) {
        while (is_space(*p) || *p == ',')
            p++;
        if (*p == '}' || !*p)
            break;
        const char *k = p;
        while (*p && *p != '=' && *p != '}' && *p != ',' && !is_space(*p))
            p++;
        size_t kn = (size_t)(p - k);
        while (is_space(*p))
            p++;
        if (*p != '=') {
            md_problem_at(w, true, line, col, "code block option '%.*s' has no value (write %.*s=…)",
                          (int)kn, k, (int)kn, k);
            return;
        }
        p++;
        while (is_space(*p))
            p++;
        const char *v;
        size_t vn;
        char first = *p;
        const char *e = value_end(p, &v, &vn);
        if (!e) {
            md_problem_at(w, true, line, col, "code block option '%.*s': its value is not closed",
                          (int)kn, k);
            return;
        }
        p = e;
        if (word_is(k, kn, "linenos")) {
            if (word_is(v, vn, "true") || word_is(v, vn, "table") || word_is(v, vn, "inline"))
                o->linenos = 1;
            else if (word_is(v, vn, "false"))
                o->linenos = 0;
            else
                md_problem_at(w, true, line, col, "code block option linenos=%.*s: want true or false",
                              (int)vn, v);
        } else if (word_is(k, kn, "hl_lines")) {
            bool ok = first == '[' ? parse_hl_list(o, v, vn) : parse_ranges(o, v, vn);
            if (!ok)
                md_problem_at(w, true, line, col,
                              "code block option hl_lines=%.*s: want line numbers and ranges, "
                              "like [2, 3] or [\"4-6\"]",
                              (int)vn, v);
        } else if (word_is(k, kn, "linenostart")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (end != v + vn || vn == 0 || n < 0 || n > 1000000000)
                md_problem_at(w, true, line, col, "code block option linenostart=%.*s: want a whole number",
                              (int)vn, v);
            else
                o->start = n;
        } else {
            md_problem_at(w, false, line, col,
                          "code block option '%.*s' is ignored (known: linenos, hl_lines, linenostart)",
                          (int)kn, k);
        }
    }
    if (*p != '}')
        md_problem_at(w, true, line, col, "code block options: '{' is not closed by '}'");
}

/* text, txt, plain, nohighlight, no-highlight: plain text on purpose (the
 * words highlight.js leaves alone), so no warning */
/* The language of an info string that is nothing but one word in braces,
 * R Markdown's and Quarto's ```{python} (also Pandoc's class, {.python}):
 * sets *lang, *n to the word. */
static bool braced_language(const char *s, const char **lang, size_t *n)
{
    const char *p = s + 1;
    while (is_space(*p))
        p++;
    if (*p == '.')
        p++;
    const char *w = p;
    while (*p && (isalnum((unsigned char)*p) || strchr("_+#-", *p)))
        p++;
    const char *e = p;
    while (is_space(*p))
        p++;
    if (e == w || *p != '}')
        return false;
    for (p++; *p; p++)
        if (!is_space(*p))
            return false;
    *lang = w;
    *n = (size_t)(e - w);
    return true;
}

/* Pandoc's attribute block written after a fence, ```{.python .numberLines}
 * or SyntaxHighlighter's ~~~~ {.brush: .php;} (as old Jekyll and Octopress
 * sites have it): the first class names the language (after "brush:", the
 * word that follows), .numberLines turns line numbers on, anything else is
 * ignored with a warning. s is at the '{'; false when it is not one (the
 * first word is no .class or #id: Hugo's {linenos=true} options). */
static bool pandoc_attributes(md_walk *w, const char *s, int line, int col, const char **lang, size_t *n,
                              code_opts *o)
{
    const char *p = s + 1;
    while (is_space(*p))
        p++;
    if (*p != '.' && *p != '#')
        return false;
    const char *close = strchr(p, '}');
    const char *end = close ? close : p + strlen(p);
    *lang = NULL;
    *n = 0;
    bool brush = false, ignored = false;
    while (p < end) {
        while (p < end && (is_space(*p) || *p == ';'))
            p++;
        if (p >= end)
            break;
        const char *wd = p;
        while (p < end && !is_space(*p) && *p != ';')
            p++;
        size_t wn = (size_t)(p - wd);
        const char *name = wd + (*wd == '.');
        size_t nn = wn - (*wd == '.');
        if (nn && name[nn - 1] == ':' && word_is(name, nn - 1, "brush")) {
            brush = true; /* "brush:" — the language follows */
        } else if ((*wd == '.' || brush) && !*lang && nn && !memchr(name, '=', nn)) {
            *lang = name;
            *n = nn;
            brush = false;
        } else if (*wd == '.' && (word_is(name, nn, "numberLines") || word_is(name, nn, "number-lines"))) {
            o->linenos = 1;
        } else {
            ignored = true;
        }
    }
    if (ignored || !close)
        md_problem_at(w, false, line, col,
                      "code block attributes '%.*s': only the language%s is read, the rest is ignored",
                      (int)(end - s + (close != NULL)), s,
                      *lang ? "" : " (none here)");
    return true;
}

static bool plain_on_purpose(const char *s, size_t n)
{
    static const char *const words[] = { "text", "txt", "plain", "nohighlight", "no-highlight" };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == n && !strncasecmp(s, words[i], n))
            return true;
    return false;
}

/* Writes html (highlight.js's output: text and <span …>/</span>) line by
 * line, each line complete in itself. */
static void write_lines(buf *b, const char *html, size_t n, const code_opts *o, bool numbers)
{
    const char *open[64];
    size_t openlen[64];
    size_t depth = 0, extra = 0; /* extra: spans deeper than open[] holds */
    long line = 1;
    size_t i = 0;
    while (i < n) {
        bool hl = (size_t)line <= o->nhl && o->hl[line - 1];
        buf_puts(b, hl ? "<span class=\"line hl\">" : "<span class=\"line\">");
        if (numbers)
            buf_printf(b, "<span class=\"ln\">%ld</span>", o->start + line - 1);
        buf_puts(b, "<span class=\"cl\">");
        for (size_t k = 0; k < depth; k++)
            buf_put(b, open[k], openlen[k]);
        while (i < n) {
            char c = html[i];
            if (c == '<') {
                const char *gt = memchr(html + i, '>', n - i);
                size_t tl = gt ? (size_t)(gt - (html + i)) + 1 : n - i;
                if (html[i + 1] == '/') {
                    if (extra)
                        extra--;
                    else if (depth)
                        depth--;
                } else if (depth < 64) {
                    open[depth] = html + i;
                    openlen[depth++] = tl;
                } else {
                    extra++;
                }
                buf_put(b, html + i, tl);
                i += tl;
                continue;
            }
            buf_putc(b, c);
            i++;
            if (c == '\n')
                break;
        }
        for (size_t k = 0; k < depth; k++)
            buf_puts(b, "</span>");
        buf_puts(b, "</span></span>");
        line++;
    }
}

static bool highlight(md_walk *w, buf *b, cmark_node *n)
{
    const char *info = cmark_node_get_fence_info(n);
    const char *code = cmark_node_get_literal(n);
    if (!code)
        code = "";
    size_t k = 0;
    if (info)
        while (info[k] && !is_space(info[k]) && info[k] != '{')
            k++;
    md_cr(b);
    int line = cmark_node_get_start_line(n), col = cmark_node_get_start_column(n);
    code_opts o = { .linenos = -1, .start = 1 };
    const char *brace = info ? strchr(info + k, '{') : NULL;
    if (!k && brace && braced_language(brace, &info, &k))
        brace = NULL; /* ```{python}: the language, no options */
    if (!k && brace && pandoc_attributes(w, brace, line, col, &info, &k, &o))
        brace = NULL; /* ```{.python .numberLines}: the language, maybe line numbers */
    if (brace)
        parse_options(w, brace, line, col, &o);
    bool numbers = o.linenos < 0 ? md_linenos(w) : o.linenos == 1;
    int lang = -1;
    if (k && !plain_on_purpose(info, k)) {
        lang = hl_language_find(info, k);
        if (lang < 0 && k == 7 && !strncasecmp(info, "mermaid", 7))
            md_problem_at(w, false, line, col,
                          "code block language 'mermaid': sheaf does not draw Mermaid diagrams (Mermaid lays "
                          "them out in a browser's DOM, which a build does not have); it stays plain code — "
                          "```dot diagrams are drawn at build time (docs/diagrams.md)");
        else if (lang < 0)
            md_problem_at(w, false, line, col,
                          "code block language '%.*s' is not one sheaf highlights: it stays plain "
                          "(docs/highlighting.md lists the languages)",
                          (int)k, info);
    }
    buf_puts(b, "<pre tabindex=\"0\"");
    if (lang >= 0) {
        buf_puts(b, " class=\"hl\" data-lang=\"");
        md_put_escaped(b, info, k);
        buf_putc(b, '"');
    }
    buf_putc(b, '>');
    if (k) {
        buf_puts(b, "<code class=\"language-");
        md_put_escaped(b, info, k);
        buf_puts(b, lang >= 0 ? " hljs\">" : "\">");
    } else {
        buf_puts(b, "<code>");
    }
    size_t len = strlen(code);
    bool lines = numbers || o.nhl;
    if (lang < 0 && !lines) {
        md_put_escaped(b, code, len);
    } else {
        buf *h = md_tmp(w);
        buf_reset(h);
        if (lang >= 0) {
            hl_status hs = hl_highlight(lang, code, len, h, md_walk_hl(w));
            if (hs == HL_GAVE_UP)
                md_problem_at(w, false, line, col,
                              "code block: the %s highlighter gave up on it: it stays plain",
                              hl_language_name(lang));
            else if (hs == HL_OVER_BUDGET)
                md_problem_at(w, false, line, col,
                              "code block: highlighting it as %s ran past the page's budget "
                              "(%llu + %llu units of regex work a byte of code; %zu bytes so "
                              "far): it stays plain",
                              hl_language_name(lang), (unsigned long long)HL_BUDGET_BASE,
                              (unsigned long long)HL_BUDGET_PER_BYTE, md_walk_hl(w)->bytes);
        } else {
            md_put_escaped(h, code, len);
        }
        if (lines)
            write_lines(b, h->data, h->len, &o, numbers);
        else
            buf_put(b, h->data, h->len);
    }
    buf_puts(b, "</code></pre>\n");
    free(o.hl);
    return true;
}

const md_ext md_ext_highlight = { .reference_off = true, .code_block = highlight };
