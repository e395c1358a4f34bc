/* import/kramdown.c: what kramdown (Jekyll's Markdown) reads otherwise
 * than CommonMark: attribute lists, its table and math blocks, raw HTML
 * lines; and the old generator's heading ids, kramdown's or Hugo's
 * (Goldmark's), kept as a second anchor. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>

#include "import/internal.h"
#include "util/text.h"

/* ---- kramdown --------------------------------------------------------- */

/* kramdown's attribute lists and extensions, which CommonMark would show as
 * text. A line of its own ("{: .class #id key='v' }" under the element
 * it dresses) and one after a span ("![x](a.png){: width="9" }",
 * "`x`{: .filepath}") are removed; "{:toc}" with the list item above it
 * (kramdown's table of contents: sheaf's theme makes one) too; Chirpy's
 * prompt, a blockquote dressed "{: .prompt-tip }", becomes sheaf's box.
 * Two passes agree on what each is: one over the source notes them at
 * their line, one over the converted text (Liquid and links done) edits. */

typedef enum { IAL_NONE, IAL_ATTRS, IAL_TOC, IAL_PROMPT } ial_kind;

/* What line s[k..e) (its indent taken off) is; for a prompt, its kind's
 * word at *kind (*nkind bytes). */
static ial_kind block_ial(const char *s, size_t k, size_t e, const char **kind, size_t *nkind)
{
    while (e > k && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
        e--;
    if (e - k < 3 || s[k] != '{' || s[k + 1] != ':' || s[k + 2] == ':' || s[e - 1] != '}' ||
        memchr(s + k + 1, '}', e - k - 2))
        return IAL_NONE;
    size_t a = k + 2, z = e - 1;
    while (a < z && s[a] == ' ')
        a++;
    while (z > a && s[z - 1] == ' ')
        z--;
    if (z - a == 3 && !strncmp(s + a, "toc", 3))
        return IAL_TOC;
    const char *pr = z > a ? memmem(s + a, z - a, ".prompt-", 8) : NULL;
    if (pr && (pr == s + a || pr[-1] == ' ')) {
        *kind = pr + 8;
        *nkind = 0;
        while (*kind + *nkind < s + z && (isalnum((unsigned char)(*kind)[*nkind]) || (*kind)[*nkind] == '-'))
            (*nkind)++;
        if (*nkind)
            return IAL_PROMPT;
    }
    /* Minimal Mistakes' notices: .notice, .notice--info, … */
    const char *no = z > a ? memmem(s + a, z - a, ".notice", 7) : NULL;
    if (no && (no == s + a || no[-1] == ' ')) {
        const char *after = no + 7;
        if (after == s + z || *after == ' ') {
            *kind = "note";
            *nkind = 4;
            return IAL_PROMPT;
        }
        if (after + 2 < s + z && after[0] == '-' && after[1] == '-') {
            *kind = after + 2;
            *nkind = 0;
            while (*kind + *nkind < s + z && isalnum((unsigned char)(*kind)[*nkind]))
                (*nkind)++;
            if (*nkind)
                return IAL_PROMPT;
        }
    }
    return IAL_ATTRS;
}

/* Whether line s[k..e) (indent off) is a paragraph's: text that opens no
 * other block. */
/* An attribute list that is only an id, "{: #custom-id }": the id at *id
 * (*nid bytes); false for any other. */
static bool ial_only_id(const char *s, size_t k, size_t e, const char **id, size_t *nid)
{
    while (e > k && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
        e--;
    size_t a = k + 2, z = e - 1; /* inside "{:" … "}" (block_ial said so) */
    while (a < z && s[a] == ' ')
        a++;
    while (z > a && s[z - 1] == ' ')
        z--;
    if (z - a < 2 || s[a] != '#')
        return false;
    for (size_t q = a + 1; q < z; q++)
        if (!isalnum((unsigned char)s[q]) && !strchr("-_:.", s[q]))
            return false;
    *id = s + a + 1;
    *nid = z - a - 1;
    return true;
}

/* Whether s[a..z) is an ATX heading with no attribute list of its own
 * (`## Title`, not `## Title {#x}`): kramdown gives it the id of an
 * attribute list on the line below. */
static bool plain_heading(const char *s, size_t a, size_t z)
{
    a = import_indent_end(s, a, z);
    size_t level = 0;
    while (a + level < z && s[a + level] == '#')
        level++;
    if (!level || level > 6 || a + level >= z || (s[a + level] != ' ' && s[a + level] != '\t'))
        return false;
    while (z > a && isspace((unsigned char)s[z - 1]))
        z--;
    return s[z - 1] != '}';
}

static bool para_line(const char *s, size_t k, size_t e)
{
    while (e > k && (s[e - 1] == ' ' || s[e - 1] == '\r'))
        e--;
    return e > k && s[k] != '#' && s[k] != '>' && s[k] != '|' && s[k] != '<' && s[k] != '{';
}

/* Whether line s[k..e) (indent off) opens or continues a blockquote, or is
 * a list item. */
static bool quote_line(const char *s, size_t k, size_t e) { return k < e && s[k] == '>'; }

static bool item_line(const char *s, size_t k, size_t e)
{
    if (k + 1 < e && strchr("*-+", s[k]) && s[k + 1] == ' ')
        return true;
    size_t d = k;
    while (d < e && isdigit((unsigned char)s[d]))
        d++;
    return d > k && d + 1 < e && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ';
}

/* A span's attribute list starting at s[j] ("{:" right after ')', '`',
 * '*', '_' or ']'): its end past the '}', or 0. */
static size_t span_ial(const char *s, size_t j, size_t e)
{
    if (j == 0 || j + 2 >= e || s[j] != '{' || s[j + 1] != ':' || s[j + 2] == ':' || !strchr(")`*_]", s[j - 1]))
        return 0;
    const char *z = memchr(s + j, '}', e - j);
    return z ? (size_t)(z - s) + 1 : 0;
}


static const char *ial_value(imp *m, const char *ial, size_t n, const char *key);

void import_kramdown_notes(imp *m, import_page *p)
{
    const char *s = p->body_src;
    size_t n = p->body_len, flen = 0, prev = 0;
    bool have_prev = false;
    char fch = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        char ch = 0;
        size_t f = import_fence_at(s, n, i, &ch);
        size_t k = import_indent_end(s, i, e);
        const char *kind = NULL;
        size_t nkind = 0;
        ial_kind t = flen || f ? IAL_NONE : block_ial(s, k, e, &kind, &nkind);
        import_fence_toggle(f, ch, &flen, &fch);
        if (t == IAL_TOC) {
            import_note_at(m, p, k, s + k, e - k,
                    "removed (with the list item above it): sheaf's theme shows a table of contents on a page "
                    "with three headings or more");
        } else if (t == IAL_ATTRS && have_prev && plain_heading(s, prev, i ? i - 1 : 0) &&
                   ial_only_id(s, k, e, &kind, &nkind)) {
            /* `{: #id}` under a heading: its id (import_kramdown_convert) */
        } else if (t == IAL_ATTRS ||
                   (t == IAL_PROMPT && !(have_prev && (quote_line(s, import_indent_end(s, prev, i), i) ||
                                                       para_line(s, import_indent_end(s, prev, i), i - 1))))) {
            import_note_at(m, p, k, s + k, e - k,
                    "removed: a kramdown attribute list (classes and attributes of the element above), which "
                    "sheaf's Markdown has no syntax for; write the element as HTML where they matter");
        } else if (!flen && !f && t == IAL_NONE) {
            for (size_t j = k; j < e; j++) {
                if (s[j] == '`') {
                    j = import_code_span_end(s, e, j) - 1;
                    continue;
                }
                size_t z = span_ial(s, j, e);
                bool sized = z && s[j - 1] == ')' && memmem(s + k, j - k, "![", 2) &&
                             (ial_value(m, s + j, z - j, "width") || ial_value(m, s + j, z - j, "height"));
                if (z && !sized) {
                    import_note_at(m, p, j, s + j, z - j,
                            "removed: a kramdown attribute list (classes and attributes of the span before "
                            "it), which sheaf's Markdown has no syntax for");
                    j = z - 1;
                }
            }
        }
        have_prev = true;
        prev = i;
        i = e + 1;
    }
}

/* The value of key="v" (or key='v', key=v) in an attribute list, or NULL. */
static const char *ial_value(imp *m, const char *ial, size_t n, const char *key)
{
    size_t kn = strlen(key);
    for (size_t i = 0; i + kn < n; i++) {
        if (strncmp(ial + i, key, kn) || ial[i + kn] != '=' || (i && !isspace((unsigned char)ial[i - 1]) && ial[i - 1] != ':'))
            continue;
        size_t a = i + kn + 1, z;
        if (a < n && (ial[a] == '"' || ial[a] == '\'')) {
            char q = ial[a++];
            for (z = a; z < n && ial[z] != q; z++)
                ;
        } else {
            for (z = a; z < n && !isspace((unsigned char)ial[z]) && ial[z] != '}'; z++)
                ;
        }
        const char *v = arena_strndup(m->a, ial + a, z - a);
        return strpbrk(v, "\"<>&") ? NULL : v;
    }
    return NULL;
}

/* An image just written to out (`![alt](src)`, ending the buffer) dressed
 * with an attribute list giving its width or height (`{: width="60%"}`):
 * written again as an <img> with them. false (nothing changed) otherwise. */
static bool image_ial(imp *m, buf *out, const char *ial, size_t n)
{
    const char *w = ial_value(m, ial, n, "width"), *h = ial_value(m, ial, n, "height");
    if (!w && !h)
        return false;
    if (!out->len || out->data[out->len - 1] != ')')
        return false;
    /* the image's start: the last "![" of the line */
    size_t ls = out->len;
    while (ls && out->data[ls - 1] != '\n')
        ls--;
    size_t at = SIZE_MAX;
    for (size_t i = ls; i + 1 < out->len; i++)
        if (out->data[i] == '!' && out->data[i + 1] == '[')
            at = i;
    if (at == SIZE_MAX)
        return false;
    const char *b = out->data + at + 2, *end = out->data + out->len - 1; /* at the ')' */
    const char *cb = memchr(b, ']', (size_t)(end - b));
    if (!cb || cb[1] != '(' || memchr(b, '[', (size_t)(cb - b)))
        return false;
    const char *src = cb + 2, *se = src;
    while (se < end && !isspace((unsigned char)*se))
        se++;
    if (se == src || memchr(src, '"', (size_t)(se - src)) || memchr(b, '"', (size_t)(cb - b)) ||
        memchr(b, '<', (size_t)(cb - b)))
        return false;
    const char *title = NULL;
    size_t tn = 0;
    if (se < end) {
        const char *t = se;
        while (t < end && isspace((unsigned char)*t))
            t++;
        if (t < end && (*t == '"' || *t == '\'') && end[-1] == *t && end - t >= 2) {
            title = t + 1;
            tn = (size_t)(end - t - 2);
        } else if (t < end) {
            return false;
        }
    }
    buf img = BUF_INIT;
    buf_printf(&img, "<img src=\"%.*s\" alt=\"%.*s\"", (int)(se - src), src, (int)(cb - b), b);
    if (title && !memchr(title, '"', tn))
        buf_printf(&img, " title=\"%.*s\"", (int)tn, title);
    if (w)
        buf_printf(&img, " width=\"%s\"", w);
    if (h)
        buf_printf(&img, " height=\"%s\"", h);
    buf_puts(&img, ">");
    buf_truncate(out, at);
    buf_put(out, img.data, img.len);
    buf_release(&img);
    return true;
}

/* ---- kramdown blocks that CommonMark reads otherwise ---- */

/* A line's indent in columns (tabs to the next multiple of 4) and where its
 * text starts. */
static size_t line_indent(const char *s, size_t i, size_t e, size_t *text)
{
    size_t col = 0, k = i;
    for (; k < e && (s[k] == ' ' || s[k] == '\t'); k++)
        col = s[k] == '\t' ? (col / 4 + 1) * 4 : col + 1;
    *text = k;
    return col;
}

static bool blank_line(const char *s, size_t i, size_t e)
{
    size_t t;
    line_indent(s, i, e, &t);
    return t >= e || (t + 1 == e && s[t] == '\r');
}

/* The cells of a table row s[a..z) (its outer pipes not counted). */
static size_t row_cells(const char *s, size_t a, size_t z)
{
    while (z > a && isspace((unsigned char)s[z - 1]))
        z--;
    if (a < z && s[a] == '|')
        a++;
    if (z > a && s[z - 1] == '|' && s[z - 2] != '\\')
        z--;
    size_t cells = 1;
    for (size_t i = a; i < z; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '`')
            i = import_code_span_end(s, z, i) - 1;
        else if (s[i] == '|')
            cells++;
    }
    return cells;
}

/* Whether s[a..z) is a rule row of `mark`: pipes, colons, '+' and spaces
 * with at least one `mark`, starting with a pipe. '-': a separator row
 * ("|---|:-:|", kramdown's "|---+---"); '=': kramdown's footer separator
 * `|====|`, below which the rows are the table's footer (sheaf's tables
 * have none: they stay rows of the body). */
static bool rule_row(const char *s, size_t a, size_t z, char mark)
{
    bool seen = false;
    for (size_t i = a; i < z; i++) {
        if (s[i] == mark)
            seen = true;
        else if (!strchr("|:+ \t\r", s[i]))
            return false;
    }
    return seen && s[a] == '|';
}

static bool separator_row(const char *s, size_t a, size_t z) { return rule_row(s, a, z, '-'); }
static bool footer_row(const char *s, size_t a, size_t z) { return rule_row(s, a, z, '='); }

/* The lines of text s with what kramdown reads and CommonMark would not made
 * CommonMark: a display `$$` block in a list item whose lines sit less
 * indented than its opener (or on tabs) indented as its opener; a table
 * without a separator row (given an empty header) or with one of fewer cells
 * than its first row (completed), separators between body rows and above the
 * footer dropped; a line holding only `<br/>` before Markdown given a blank
 * line (else it opens an HTML block that swallows the Markdown after it). */
void import_kramdown_blocks(imp *m, const char *s, size_t n, buf *out)
{
    (void)m;
    size_t flen = 0;
    char fch = 0;
    bool prev_blank = true, inline_open = false;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        size_t next = e + (e < n), t;
        size_t ind = line_indent(s, i, e, &t);
        char ch = 0;
        size_t f = import_fence_at(s, n, i, &ch);
        bool code = flen || f;
        import_fence_toggle(f, ch, &flen, &fch);
        size_t te = e;
        while (te > t && isspace((unsigned char)s[te - 1]))
            te--;
        bool alone = !code && te - t == 2 && s[t] == '$' && s[t + 1] == '$';
        if (alone && inline_open) {
            /* the closer of a $$ that opened inside a line above */
            inline_open = false;
            buf_put(out, s + i, next - i);
            prev_blank = false;
            i = next;
            continue;
        }
        if (!code && blank_line(s, i, e))
            inline_open = false;
        else if (!code && !alone) {
            /* a $$ left open at the end of the line: the next line alone
             * with $$ closes it */
            for (size_t q = t; q + 1 < te; q++)
                if (s[q] == '\\')
                    q++;
                else if (s[q] == '$' && s[q + 1] == '$')
                    inline_open = !inline_open, q++;
        }
        if (alone && ind > 0) {
            /* an opener on a line of its own, indented: its block */
            size_t j = next, close = SIZE_MAX;
            bool shallow = memchr(s + i, '\t', t - i) != NULL;
            while (j < n && close == SIZE_MAX) {
                size_t je = j;
                while (je < n && s[je] != '\n')
                    je++;
                size_t jt, jz = je;
                size_t ji = line_indent(s, j, je, &jt);
                while (jz > jt && isspace((unsigned char)s[jz - 1]))
                    jz--;
                if (jz > jt && (ji < ind || memchr(s + j, '\t', jt - j)))
                    shallow = true;
                if (jz - jt >= 2 && s[jz - 1] == '$' && s[jz - 2] == '$')
                    close = je;
                j = je + (je < n);
            }
            if (close != SIZE_MAX && shallow) {
                for (size_t a = i; a < j;) {
                    size_t b = a;
                    while (b < n && s[b] != '\n')
                        b++;
                    size_t at;
                    line_indent(s, a, b, &at);
                    if (at < b) {
                        for (size_t c = 0; c < ind; c++)
                            buf_putc(out, ' ');
                        buf_put(out, s + at, b - at);
                    }
                    buf_putc(out, '\n');
                    a = b + 1;
                }
                if (j == n && (n == 0 || s[n - 1] != '\n'))
                    buf_truncate(out, out->len - 1);
                i = j;
                prev_blank = false;
                continue;
            }
            if (close != SIZE_MAX) { /* as it is: its closer is no opener */
                buf_put(out, s + i, j - i);
                i = j;
                prev_blank = false;
                continue;
            }
        }
        if (!code && ind < 4 && t < te && s[t] == '|') {
            /* a table: its rows */
            size_t rows_end = i, nrows = 0;
            while (rows_end < n) {
                size_t re = rows_end, rt;
                while (re < n && s[re] != '\n')
                    re++;
                line_indent(s, rows_end, re, &rt);
                if (rt >= re || s[rt] != '|')
                    break;
                nrows++;
                rows_end = re + (re < n);
            }
            size_t cells = row_cells(s, t, te);
            size_t second = next, se = second, st = second;
            while (se < n && s[se] != '\n')
                se++;
            if (second < rows_end)
                line_indent(s, second, se, &st);
            bool sep2 = second < rows_end && separator_row(s, st, se);
            bool sep1 = separator_row(s, t, te);
            if (!sep1 && (nrows > 1 || cells > 1)) {
                if (!prev_blank)
                    buf_putc(out, '\n');
                if (!sep2) {
                    /* no header: an empty one */
                    buf_puts(out, "|");
                    for (size_t c = 0; c < cells; c++)
                        buf_puts(out, "   |");
                    buf_puts(out, "\n|");
                    for (size_t c = 0; c < cells; c++)
                        buf_puts(out, "---|");
                    buf_putc(out, '\n');
                }
                buf_put(out, s + i, next - i);
                if (sep2 && row_cells(s, st, se) < cells) {
                    /* the separator row, with a cell for each column */
                    size_t have = row_cells(s, st, se), z = se;
                    while (z > st && isspace((unsigned char)s[z - 1]))
                        z--;
                    buf_put(out, s + second, z - second);
                    if (s[z - 1] != '|')
                        buf_putc(out, '|');
                    for (size_t c = have; c < cells; c++)
                        buf_puts(out, "---|");
                    buf_putc(out, '\n');
                } else if (sep2) {
                    buf_put(out, s + second, se + (se < n) - second);
                }
                /* the body rows; kramdown's separators between them, and
                 * the one above its footer, go */
                for (size_t a = sep2 ? se + (se < n) : next; a < rows_end;) {
                    size_t b = a, bt;
                    while (b < n && s[b] != '\n')
                        b++;
                    line_indent(s, a, b, &bt);
                    if (!separator_row(s, bt, b) && !footer_row(s, bt, b))
                        buf_put(out, s + a, b + (b < n) - a);
                    a = b + (b < n);
                }
                i = rows_end;
                prev_blank = false;
                continue;
            }
        }
        buf_put(out, s + i, next - i);
        if (!code && prev_blank && te > t && ind < 4 && next < n) {
            /* <br/> alone before Markdown */
            size_t ln = te - t;
            bool br = (ln == 4 && !strncasecmp(s + t, "<br>", 4)) || (ln == 5 && !strncasecmp(s + t, "<br/>", 5)) ||
                      (ln == 6 && !strncasecmp(s + t, "<br />", 6));
            size_t ne = next;
            while (ne < n && s[ne] != '\n')
                ne++;
            if (br && !blank_line(s, next, ne))
                buf_putc(out, '\n');
        }
        prev_blank = !code && blank_line(s, i, e);
        i = next;
    }
}

/* The second pass: s (the converted text) into out. */
/* The TeX of kramdown's span math, which MathJax showed inline: an
 * environment KaTeX takes only in display math written as its inline
 * form (align* → aligned), each listed. */
static void span_tex(imp *m, const import_page *p, const char *tex, size_t n, buf *out)
{
    static const char *const envs[][2] = { { "align*", "aligned" }, { "align", "aligned" },
                                           { "gather*", "gathered" }, { "gather", "gathered" },
                                           { "eqnarray*", "aligned" }, { "eqnarray", "aligned" } };
    for (size_t i = 0; i < n; i++) {
        bool done = false;
        for (size_t k = 0; k < sizeof envs / sizeof *envs && !done; k++)
            for (int end = 0; end < 2 && !done; end++) {
                const char *w = end ? "\\end{" : "\\begin{";
                size_t wn = strlen(w), en = strlen(envs[k][0]);
                if (i + wn + en + 1 <= n && !memcmp(tex + i, w, wn) && !memcmp(tex + i + wn, envs[k][0], en) &&
                    tex[i + wn + en] == '}') {
                    buf_printf(out, "%s%s}", w, envs[k][1]);
                    if (!end)
                        import_rewrite_add(m, p->src_rel, "an environment of display math, inside a line, made its inline form",
                                           arena_printf(m->a, "%s%s}", w, envs[k][0]),
                                           arena_printf(m->a, "%s%s} (in inline math)", w, envs[k][1]));
                    i += wn + en;
                    done = true;
                }
            }
        if (!done)
            buf_putc(out, tex[i]);
    }
}

/* Where the last line of out (ending in '\n') starts. */
static size_t heading_start(const buf *out)
{
    size_t a = out->len - 1;
    while (a && out->data[a - 1] != '\n')
        a--;
    return a;
}

void import_kramdown_convert(imp *m, const import_page *p, const char *s, size_t n, buf *out)
{
    /* out offsets of the line(s) above: a blockquote, a list item, a paragraph */
    size_t flen = 0, quote = SIZE_MAX, item = SIZE_MAX, para = SIZE_MAX;
    /* in a display block; the line above is a paragraph's */
    bool in_display = false, prev_para = false;
    char fch = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        size_t next = e + (e < n);
        char ch = 0;
        size_t f = import_fence_at(s, n, i, &ch);
        size_t k = import_indent_end(s, i, e);
        const char *kind = NULL;
        size_t nkind = 0;
        bool code = flen || f;
        ial_kind t = code ? IAL_NONE : block_ial(s, k, e, &kind, &nkind);
        import_fence_toggle(f, ch, &flen, &fch);
        size_t line_start = out->len;
        if (t == IAL_PROMPT && (quote != SIZE_MAX || para != SIZE_MAX)) {
            /* > text … {: .prompt-tip } (Chirpy), text … {: .notice--info }
             * (Minimal Mistakes) → {{% tip %}} text … {{% /tip %}} */
            size_t from = quote != SIZE_MAX ? quote : para;
            buf q = BUF_INIT;
            buf_put(&q, out->data + from, out->len - from);
            buf_truncate(out, from);
            const char *box = import_box_for(arena_strndup(m->a, kind, nkind));
            const char *title = import_box_title(m, kind, nkind, box);
            import_box_open(out, box, title);
            buf_putc(out, '\n');
            for (size_t a = 0; a < q.len;) {
                size_t b = a;
                while (b < q.len && q.data[b] != '\n')
                    b++;
                size_t c = import_indent_end(q.data, a, b);
                if (quote != SIZE_MAX) {
                    c += c < b && q.data[c] == '>';
                    c += c < b && q.data[c] == ' ';
                }
                buf_put(out, q.data + c, b - c);
                buf_putc(out, '\n');
                a = b + 1;
            }
            buf_printf(out, "{{%% /%s %%}}\n", box);
            buf_release(&q);
            m->nshortcodes++;
        } else if (t == IAL_TOC) {
            if (item != SIZE_MAX)
                buf_truncate(out, item);
        } else if (t == IAL_ATTRS && out->len && out->data[out->len - 1] == '\n' &&
                   ial_only_id(s, k, e, &kind, &nkind) &&
                   plain_heading(out->data, heading_start(out), out->len - 1)) {
            /* `## Title` then `{: #id}`: `## Title {#id}`, the id kramdown gave it */
            buf_truncate(out, out->len - 1);
            buf_printf(out, " {#%.*s}\n", (int)nkind, kind);
        } else if (t == IAL_ATTRS || t == IAL_PROMPT) {
            /* removed */
        } else if (!code) {
            /* kramdown's $$…$$ inside a line of text is inline math (on
             * a line of its own, display): sheaf's inline form is \(…\).
             * A $$ opening a line right under a line of text is span math
             * too (a math block starts a block, after a blank line). */
            size_t t = k;
            while (t < e && (s[t] == ' ' || s[t] == '\t'))
                t++;
            bool starts = e - t >= 2 && s[t] == '$' && s[t + 1] == '$';
            bool opens = starts && !in_display && !prev_para;
            bool display = in_display || opens;
            size_t te = e;
            while (te > t && isspace((unsigned char)s[te - 1]))
                te--;
            bool ends = te - t >= 2 && s[te - 1] == '$' && s[te - 2] == '$' && (te - t >= 4 || !opens);
            if (in_display && ends)
                in_display = false;
            else if (opens && !ends)
                in_display = true;
            for (size_t j = i; j < e; j++) {
                if (s[j] == '`' && j >= k) {
                    size_t z = import_code_span_end(s, e, j);
                    buf_put(out, s + j, z - j);
                    j = z - 1;
                    continue;
                }
                if (!display && s[j] == '$' && j + 1 < e && s[j + 1] == '$' && (j == 0 || s[j - 1] != '\\')) {
                    /* its closer may be on a later line of the paragraph */
                    const char *blank = memmem(s + j, n - j, "\n\n", 2);
                    size_t pe = blank ? (size_t)(blank - s) : n;
                    const char *z = j + 2 < pe ? memmem(s + j + 2, pe - j - 2, "$$", 2) : NULL;
                    if (z && z > s + j + 2) {
                        buf_puts(out, "\\(");
                        span_tex(m, p, s + j + 2, (size_t)(z - s) - j - 2, out);
                        buf_puts(out, "\\)");
                        j = (size_t)(z - s) + 1;
                        m->nmath++;
                        if (j >= e) { /* the rest of the closer's line is this line's */
                            e = j + 1;
                            while (e < n && s[e] != '\n')
                                e++;
                            next = e + (e < n);
                        }
                        continue;
                    }
                }
                size_t z = j >= k ? span_ial(s, j, e) : 0;
                if (z && s[j - 1] == ')' && image_ial(m, out, s + j, z - j))
                    j = z - 1;
                else if (z)
                    j = z - 1;
                else
                    buf_putc(out, s[j]);
            }
            buf_put(out, s + e, next - e);
        } else {
            buf_put(out, s + i, next - i);
        }
        {
            size_t a = i;
            while (a < e && isspace((unsigned char)s[a]))
                a++;
            prev_para = !code && a < e && s[a] != '#' && !in_display && t == IAL_NONE &&
                        !(e - a >= 2 && s[a] == '$' && s[a + 1] == '$');
        }
        /* what the next line may dress: the blockquote (from its first
         * line) or the list item just written */
        bool text = !code && t == IAL_NONE;
        if (!text || !quote_line(s, k, e))
            quote = SIZE_MAX;
        else if (quote == SIZE_MAX)
            quote = line_start;
        item = text && item_line(s, k, e) ? line_start : SIZE_MAX;
        if (!text || !para_line(s, k, e) || quote != SIZE_MAX || item != SIZE_MAX)
            para = SIZE_MAX;
        else if (para == SIZE_MAX)
            para = line_start;
        i = next;
    }
}

/* ---- the old heading ids ------------------------------------------------ */

/* How the old generator made a heading's automatic id. */
typedef enum {
    IDS_KRAMDOWN,     /* kramdown's own */
    IDS_KRAMDOWN_GFM, /* kramdown-parser-gfm's (`input: GFM`) */
    IDS_GITHUB,       /* Hugo's Goldmark, autoHeadingIDType github (the default) */
    IDS_GITHUB_ASCII, /* … github-ascii: accents dropped, then ASCII only */
} id_rule;

/* A letter (any script) or a decimal digit, as Go's unicode.IsLetter and
 * unicode.IsDigit say. */
static bool letter_or_digit(utf8proc_int32_t cp)
{
    utf8proc_category_t cat = utf8proc_category(cp);
    return (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) || cat == UTF8PROC_CATEGORY_ND;
}

/* Hugo's github id of one character of a heading's raw text: ' ' and '-'
 * as '-', '_', letters and digits lower-cased, nothing else; github-ascii
 * takes a character's accents off first and keeps only what is then
 * ASCII. */
static void github_char(utf8proc_int32_t cp, bool ascii, buf *out)
{
    if (cp == ' ' || cp == '-') {
        buf_putc(out, '-');
        return;
    }
    if (ascii && cp >= 0x80) {
        utf8proc_int32_t d[8];
        int last = 0;
        utf8proc_ssize_t n = utf8proc_decompose_char(cp, d, 8, UTF8PROC_DECOMPOSE | UTF8PROC_STRIPMARK, &last);
        if (n == 1 && d[0] < 0x80 && (isalnum((int)d[0]) || d[0] == '_'))
            buf_putc(out, (char)tolower((int)d[0]));
        return;
    }
    if (cp == '_' || letter_or_digit(cp)) {
        utf8proc_uint8_t enc[4];
        utf8proc_ssize_t el = utf8proc_encode_char(utf8proc_tolower(cp), enc);
        buf_put(out, (const char *)enc, (size_t)el);
    }
}

/* The old generator's automatic id of a heading's raw text t (n bytes):
 * kramdown's (its converter's basic_generate_id: leading characters up to
 * the first ASCII letter go, then all but ASCII letters, digits, spaces
 * and '-', spaces become '-', lower case), kramdown-parser-gfm's (lower
 * case, all but word characters, '-', spaces and tabs go, spaces and tabs
 * become '-') or Hugo's (github_char over the trimmed raw text: Hugo reads
 * the heading's source, so a link's destination is in it). Empty:
 * kramdown's "section", Hugo's nothing (no second anchor). */
static void old_id(const char *t, size_t n, id_rule rule, buf *out)
{
    size_t i = 0;
    if (rule == IDS_GITHUB || rule == IDS_GITHUB_ASCII) {
        while (i < n) {
            utf8proc_int32_t cp;
            utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)t + i, (utf8proc_ssize_t)(n - i), &cp);
            if (len <= 0) {
                i++;
                continue;
            }
            github_char(cp, rule == IDS_GITHUB_ASCII, out);
            i += (size_t)len;
        }
        return;
    }
    bool gfm = rule == IDS_KRAMDOWN_GFM;
    if (!gfm)
        while (i < n && !isalpha((unsigned char)t[i]))
            i++;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == ' ' || (gfm && c == '\t')) {
            buf_putc(out, '-');
        } else if (isalnum(c) || c == '-' || (gfm && c == '_')) {
            buf_putc(out, (char)tolower(c));
        } else if (gfm && c >= 0x80) {
            /* \p{Word}: letters, marks, numbers, connectors (not '–') */
            utf8proc_int32_t cp;
            utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)t + i, (utf8proc_ssize_t)(n - i), &cp);
            if (len <= 0)
                continue;
            utf8proc_category_t cat = utf8proc_category(cp);
            if ((cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_NO) || cat == UTF8PROC_CATEGORY_PC) {
                utf8proc_uint8_t enc[4];
                utf8proc_ssize_t el = utf8proc_encode_char(utf8proc_tolower(cp), enc);
                buf_put(out, (const char *)enc, (size_t)el);
            }
            i += (size_t)len - 1;
        }
    }
    if (!out->len)
        buf_puts(out, "section");
}

/* Whether id (n bytes) is among the page's ids so far (words of used). */
static size_t id_count(const buf *used, const char *id, size_t n)
{
    size_t c = 0;
    for (size_t a = 0; a < used->len;) {
        size_t z = a;
        while (z < used->len && used->data[z] != '\n')
            z++;
        c += z - a == n && !memcmp(used->data + a, id, n);
        a = z + 1;
    }
    return c;
}

/* The map at key of map c, or NULL. */
static const tpl_map *sub_map(const tpl_map *c, const char *key)
{
    tpl_value v = c ? import_get(c, key) : tpl_undefined();
    return v.kind == TPL_MAP ? v.u.map : NULL;
}

/* How the old site made its heading ids (its config: kramdown's
 * `auto_ids` and `input`; Hugo's markup.goldmark.parser `autoHeadingID`
 * and `autoHeadingIDType`); false when it made none, or made them in a
 * way not followed here (Hugo's blackfriday). */
static bool id_rule_of(const imp *m, bool jekyll, id_rule *rule)
{
    const tpl_map *c = m->old_config, *km;
    const char *type;
    tpl_value on;
    if (jekyll) {
        km = sub_map(c, "kramdown");
        on = km ? import_get(km, "auto_ids") : tpl_undefined();
        type = km ? import_get_str(km, "input") : NULL;
        *rule = type && !strcasecmp(type, "GFM") ? IDS_KRAMDOWN_GFM : IDS_KRAMDOWN;
    } else {
        km = sub_map(sub_map(sub_map(c, "markup"), "goldmark"), "parser");
        on = km ? import_get(km, "autoHeadingID") : tpl_undefined();
        type = km ? import_get_str(km, "autoHeadingIDType") : NULL;
        if (type && !strcasecmp(type, "blackfriday"))
            return false;
        *rule = type && !strcasecmp(type, "github-ascii") ? IDS_GITHUB_ASCII : IDS_GITHUB;
    }
    return !(on.kind == TPL_BOOL && !on.u.b);
}

/* The end of the formula that starts at t[q] (before end), or 0: `$…$`,
 * `$$…$$`, `\(…\)`, `\\(…\\)` (Goldmark's escaped form), on one line. */
static size_t formula_end(const char *t, size_t q, size_t end)
{
    const char *close;
    size_t open;
    if (t[q] == '$') {
        open = q + 1 < end && t[q + 1] == '$' ? 2 : 1;
        close = open == 2 ? "$$" : "$";
    } else if (q + 1 < end && t[q] == '\\' && t[q + 1] == '(') {
        open = 2, close = "\\)";
    } else if (q + 2 < end && t[q] == '\\' && t[q + 1] == '\\' && t[q + 2] == '(') {
        open = 3, close = "\\\\)";
    } else {
        return 0;
    }
    size_t cl = strlen(close);
    for (size_t j = q + open; j + cl <= end; j++)
        if (!memcmp(t + j, close, cl))
            return j + cl > q + open + cl ? j + cl : 0;
    return 0;
}

/* Every ATX heading whose old automatic id (kramdown's for a Jekyll site,
 * Goldmark's for a Hugo one) differs from the one sheaf gives it written
 * `## Title {#sheaf-id #old-id}`: links written for the old id still land
 * on it. */
void import_heading_ids(imp *m, const char *s, size_t n, bool jekyll, buf *out)
{
    id_rule rule;
    if (!id_rule_of(m, jekyll, &rule)) {
        buf_put(out, s, n);
        return;
    }
    buf kids = BUF_INIT, sids = BUF_INIT, kid = BUF_INIT, sid = BUF_INIT, plain = BUF_INIT;
    size_t flen = 0;
    char fch = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        size_t next = e + (e < n);
        char ch = 0;
        size_t f = import_fence_at(s, n, i, &ch);
        bool code = flen || f;
        import_fence_toggle(f, ch, &flen, &fch);
        size_t h = import_indent_end(s, i, e), level = 0;
        while (h + level < e && s[h + level] == '#')
            level++;
        size_t a = h + level, z = e;
        if (code || !level || level > 6 || (a < e && s[a] != ' ' && s[a] != '\t')) {
            buf_put(out, s + i, next - i);
            i = next;
            continue;
        }
        while (a < z && isspace((unsigned char)s[a]))
            a++;
        while (z > a && isspace((unsigned char)s[z - 1]))
            z--;
        size_t zz = z; /* closing #s (after a space) go */
        while (zz > a && s[zz - 1] == '#')
            zz--;
        if (zz < z && (zz == a || s[zz - 1] == ' ' || s[zz - 1] == '\t'))
            for (z = zz; z > a && isspace((unsigned char)s[z - 1]);)
                z--;
        if (z > a && s[z - 1] == '}' && memchr(s + a, '{', z - a)) {
            buf_put(out, s + i, next - i); /* an id of its own */
            i = next;
            continue;
        }
        /* the old id, made unique as kramdown and Hugo do (x, x-1, …) */
        buf_reset(&kid);
        old_id(s + a, z - a, rule, &kid);
        if (!kid.len) { /* Hugo's, of nothing: no second anchor */
            buf_put(out, s + i, next - i);
            i = next;
            continue;
        }
        size_t seen = id_count(&kids, kid.data, kid.len);
        buf_printf(&kids, "%s\n", kid.data);
        if (seen)
            buf_printf(&kid, "-%zu", seen);
        /* sheaf's: the slug of the plain text (links' text, no markup, no
         * formulas) */
        buf_reset(&plain);
        for (size_t q = a; q < z; q++) {
            size_t fe = m->math_on ? formula_end(s, q, z) : 0;
            if (fe) {
                q = fe - 1;
                continue;
            }
            if (s[q] == ']' && q + 1 < z && s[q + 1] == '(') {
                const char *cp = memchr(s + q, ')', z - q);
                if (cp) {
                    q = (size_t)(cp - s);
                    continue;
                }
            }
            if (s[q] == '<') {
                const char *gt = memchr(s + q, '>', z - q);
                if (gt) {
                    q = (size_t)(gt - s);
                    continue;
                }
            }
            buf_putc(&plain, s[q]);
        }
        buf_reset(&sid);
        text_slugify(&sid, plain.data, plain.len);
        if (!sid.len)
            buf_puts(&sid, "section");
        size_t sseen = id_count(&sids, sid.data, sid.len);
        buf_printf(&sids, "%s\n", sid.data);
        if (sseen)
            buf_printf(&sid, "-%zu", sseen);
        bool plain_id = true; /* both ids must be written as an attribute list takes them */
        for (size_t q = 0; q < kid.len; q++)
            plain_id &= (unsigned char)kid.data[q] > ' ' && !strchr("{}#", kid.data[q]);
        if (strcmp(kid.data, sid.data) && plain_id && !strpbrk(sid.data, "{}# ")) {
            buf_put(out, s + i, z - i);
            buf_printf(out, " {#%s #%s}", sid.data, kid.data);
            buf_put(out, s + e, next - e);
            m->nheading_ids++;
        } else {
            buf_put(out, s + i, next - i);
        }
        i = next;
    }
    buf_release(&kids);
    buf_release(&sids);
    buf_release(&kid);
    buf_release(&sid);
    buf_release(&plain);
}
