/* md/mathscan.c: the math delimiter rules (see mathscan.h). Pure functions
 * over bytes; md/math.c calls them from cmark-gfm's parser hooks. */
#include <string.h>

#include "md/mathscan.h"

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_space(s[i]))
            return false;
    return true;
}

/* `\text{…}` at s[i] (a backslash): the offset just past its closing
 * brace, or 0 when it is not one or its braces never balance. */
static size_t skip_text(const char *s, size_t n, size_t i)
{
    if (n - i < 6 || memcmp(s + i, "\\text{", 6))
        return 0;
    int depth = 0;
    for (size_t j = i + 5; j < n; j++) {
        if (s[j] == '\\') {
            j++;
        } else if (s[j] == '{') {
            depth++;
        } else if (s[j] == '}' && --depth == 0) {
            return j + 1;
        }
    }
    return 0;
}

static bool done(md_math_span *m, size_t tex, size_t tex_end, size_t end, bool display,
                 const char *s)
{
    if (blank(s + tex, tex_end - tex))
        return false;
    m->tex = tex;
    m->tex_len = tex_end - tex;
    m->end = end;
    m->display = display;
    return true;
}

static bool scan_display(const char *s, size_t n, size_t at, md_math_span *m)
{
    for (size_t i = at + 2; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '$' && i + 1 < n && s[i + 1] == '$')
            return done(m, at + 2, i, i + 2, true, s);
    }
    return false;
}

static bool scan_dollar(const char *s, size_t n, size_t at, md_math_span *m)
{
    size_t i = at + 1;
    if (i >= n || is_space(s[i]))
        return false;
    while (i < n) {
        char c = s[i];
        if (c == '\\') {
            size_t t = skip_text(s, n, i);
            i = t ? t : i + 2;
        } else if (is_space(c)) {
            while (i < n && is_space(s[i]))
                i++;
            if (i < n && s[i] == '$')
                return false; /* "$5 and $10": a space before the closer */
        } else if (c == '$') {
            if (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
                return false; /* "$x$5" */
            return done(m, at + 1, i, i + 1, false, s);
        } else {
            i++;
        }
    }
    return false;
}

static bool scan_paren(const char *s, size_t n, size_t at, md_math_span *m)
{
    for (size_t i = at + 2; i + 1 < n; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == ')')
            return done(m, at + 2, i, i + 2, false, s);
        i++;
    }
    return false;
}

bool md_math_scan(const char *s, size_t n, size_t at, md_math_span *m)
{
    if (at >= n)
        return false;
    if (s[at] == '$')
        return at + 1 < n && s[at + 1] == '$' ? scan_display(s, n, at, m) : scan_dollar(s, n, at, m);
    if (s[at] == '\\' && at + 1 < n && s[at + 1] == '(')
        return scan_paren(s, n, at, m);
    return false;
}

bool md_math_scan_escaped(const char *s, size_t n, size_t at, md_math_span *m)
{
    if (at + 2 >= n || s[at] != '\\' || s[at + 1] != '\\' || s[at + 2] != '(')
        return false;
    for (size_t i = at + 3; i + 2 < n; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == '\\' && s[i + 2] == ')')
            return done(m, at + 3, i, i + 3, false, s);
        i++; /* a pair: `\\` or `\_` */
    }
    return false;
}

static bool ascii_punct(char c) { return c && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) != NULL; }

size_t md_math_unescape(const char *s, size_t n, char *out)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && ascii_punct(s[i + 1]))
            i++;
        out[j++] = s[i];
    }
    return j;
}

size_t md_math_unescaped_origin(const char *s, size_t n, size_t at)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++, j++) {
        if (s[i] == '\\' && i + 1 < n && ascii_punct(s[i + 1]))
            i++;
        if (j == at)
            return i;
    }
    return n;
}

/* Whether the group open at s[k] ('{') belongs to a command whose argument
 * is text, where `\_` is the underscore it says. */
static bool text_group(const char *s, size_t k)
{
    static const char *const cmds[] = { "\\text", "\\textrm", "\\textit", "\\textbf", "\\texttt",
                                        "\\textsf", "\\mbox", "\\hbox", "\\operatorname", "\\mathrm",
                                        "\\mathtt", "\\mathit", "\\href", "\\url", NULL };
    for (const char *const *c = cmds; *c; c++) {
        size_t l = strlen(*c);
        if (k >= l && !memcmp(s + k - l, *c, l))
            return true;
    }
    return false;
}

long md_math_escaped_subscript(const char *s, size_t n)
{
    /* the open groups, and whether each (or one around it) is text */
    unsigned char text[64];
    size_t depth = 0, extra = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '{') {
            bool t = (depth && text[depth - 1]) || text_group(s, i);
            if (depth < sizeof text)
                text[depth++] = t;
            else
                extra++;
        } else if (c == '}') {
            if (extra)
                extra--;
            else if (depth)
                depth--;
        } else if (c == '\\' && i + 1 < n) {
            if (s[i + 1] == '_' && !(depth && text[depth - 1]) && i > 0 && i + 2 < n) {
                char b = s[i - 1], a = s[i + 2];
                bool before = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
                              b == '}' || b == ')' || b == '\'';
                bool after = a == '{' || a == '\\' || (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') ||
                             (a >= '0' && a <= '9');
                if (before && after)
                    return (long)i;
            }
            i++;
        }
    }
    return -1;
}

const char *md_math_error_hint(const char *error, const char *tex, size_t n)
{
    if (strstr(error, "with no arguments as superscript"))
        return "KaTeX wants a command with its argument in braces after '^': write ^{\\vec{x}}, not ^\\vec{x}";
    if (strstr(error, "with no arguments as subscript"))
        return "KaTeX wants a command in braces after '_': write _{\\max}, not _\\max";
    if (strstr(error, "Got function '\\\\' with no arguments as argument to '\\left'") ||
        strstr(error, "Got function '\\\\' with no arguments as argument to '\\right'"))
        return "'\\left\\\\{' is '\\left\\{' escaped for Markdown: write '\\left\\{' (or set "
               "markdown.math_escapes: markdown for a site written that way)";
    bool text = memmem(tex, n, "\\text", 5) || memmem(tex, n, "\\mbox", 5);
    if (text && strstr(error, "got '_'"))
        return "an underscore inside \\text{…} is written \\_";
    if (strstr(error, "got '&'"))
        return "a literal '&' is written \\& (a bare one only separates columns of an aligned or array "
               "environment)";
    if (text && strstr(error, "got '#'"))
        return "a literal '#' is written \\#";
    return NULL;
}

/* The length of s without trailing spaces. */
static size_t rtrim(const char *s, size_t n)
{
    while (n && is_space(s[n - 1]))
        n--;
    return n;
}

/* Is s[k] preceded by an odd number of backslashes (from s[0])? */
static bool escaped(const char *s, size_t k)
{
    size_t b = 0;
    while (b < k && s[k - 1 - b] == '\\')
        b++;
    return b & 1;
}

size_t md_math_eq_attr(const char *s, size_t n, const char **key, size_t *klen)
{
    size_t e = rtrim(s, n);
    if (e < 6 || s[e - 1] != '}')
        return 0;
    size_t o = e - 2;
    while (o > 0 && s[o] != '{' && s[o] != '}' && !is_space(s[o]))
        o--;
    if (s[o] != '{' || e - o < 6 || memcmp(s + o, "{#eq-", 5) || o == 0 || !is_space(s[o - 1]))
        return 0;
    *key = s + o + 2;
    *klen = e - o - 3;
    size_t b = o;
    while (b > 0 && is_space(s[b - 1]) && s[b - 1] != '\n')
        b--;
    return n - b;
}

bool md_math_block_closes(const char *s, size_t n, char closer, size_t *tail)
{
    const char *key;
    size_t klen, attr = md_math_eq_attr(s, n, &key, &klen);
    size_t e = rtrim(s, n - attr);
    if (e < 2)
        return false;
    if (closer == '$') {
        if (s[e - 1] != '$' || s[e - 2] != '$' || escaped(s, e - 2))
            return false;
    } else {
        if (s[e - 1] != ']' || s[e - 2] != '\\' || escaped(s, e - 2))
            return false;
    }
    *tail = n - (e - 2);
    return true;
}

bool md_math_block_open(const char *s, size_t n, char *closer, size_t *opener_len, bool *closed)
{
    if (n < 2)
        return false;
    *opener_len = 2;
    size_t tail;
    if (s[0] == '$' && s[1] == '$') {
        *closer = '$';
        /* the first `$$` after the opener (backslash pairs skipped) */
        for (size_t i = 2; i + 1 < n; i++) {
            if (s[i] == '\\') {
                i++;
                continue;
            }
            if (s[i] == '$' && s[i + 1] == '$') {
                /* closed on this line: a block only when nothing but
                 * spaces follows, and something is inside */
                const char *key;
                size_t klen, attr = md_math_eq_attr(s + i + 2, n - i - 2, &key, &klen);
                if (!blank(s + i + 2, n - i - 2 - attr) || blank(s + 2, i - 2))
                    return false;
                *closed = true;
                return true;
            }
        }
        *closed = false;
        return true;
    }
    if (s[0] == '\\' && s[1] == '[') {
        *closer = ']';
        if (n >= 4 && md_math_block_closes(s + 2, n - 2, ']', &tail)) {
            if (blank(s + 2, n - 2 - tail))
                return false;
            *closed = true;
            return true;
        }
        if (memchr(s + 2, ']', n - 2))
            return false; /* `\[not math]`: an escaped bracket */
        *closed = false;
        return true;
    }
    return false;
}

/* The length of the punctuation at the start of s that belongs with the
 * formula before it: closing and ending marks, ASCII or CJK, up to 12
 * bytes. */
size_t md_math_punct_len(const char *s)
{
    static const char *const marks[] = { ",", ".", ";", ":", "!", "?", ")", "]", "'", "\"",
                                         "\xE2\x80\x99", "\xE2\x80\x9D", /* ’ ” */
                                         "\xEF\xBC\x8C", "\xE3\x80\x82", "\xE3\x80\x81", /* ， 。 、 */
                                         "\xEF\xBC\x9B", "\xEF\xBC\x9A", "\xEF\xBC\x81", /* ； ： ！ */
                                         "\xEF\xBC\x9F", "\xEF\xBC\x89", NULL };               /* ？ ） */
    size_t n = 0;
    for (;;) {
        size_t k = 0;
        for (const char *const *m = marks; *m; m++)
            if (!strncmp(s + n, *m, strlen(*m))) {
                k = strlen(*m);
                break;
            }
        if (!k || n + k > 12)
            return n;
        n += k;
    }
}
