/* import/math.c: the old site's math, as sheaf's. Whether the old site
 * rendered formulas at all (a MathJax or KaTeX script in its layouts or
 * includes, a math key in its config or in a page's front matter): when it
 * did not, sheaf's math is switched off (markdown.math: false), so that
 * `$HOME … $PATH` stays text as it was. A Hugo site's TeX was Markdown
 * first (Goldmark, then MathJax in the browser): markdown.math_escapes:
 * markdown. And the TeX MathJax reads but KaTeX does not, rewritten where
 * its meaning is plain (`Q^\vec{\mu}` → `Q^{\vec{\mu}}`, `\tau_\max` →
 * `\tau_{\max}`, `\text{a_b}` → `\text{a\_b}`), each rewrite listed in the
 * report. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "import/internal.h"
#include "md/mathscan.h"
#include "util/fs.h"
#include "util/vec.h"

/* ---- did the old site render math? ------------------------------------ */

/* A key that switches math on in a theme: math, mathjax, katex, use_math,
 * enableMath, math.enable … (any case), with a value that is on. */
/* A formula that ended at j, past the line's end e: the line is now the
 * one j is on (e its end, next the start of the line after). */
static void past_line(const char *s, size_t n, size_t j, size_t *e, size_t *next)
{
    if (j <= *e)
        return;
    size_t k = j;
    while (k < n && s[k] != '\n')
        k++;
    *e = k;
    *next = k + (k < n);
}

static bool math_key(const char *k)
{
    char low[64];
    size_t n = strlen(k);
    if (n >= sizeof low)
        return false;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)k[i]);
    return strstr(low, "math") || strstr(low, "katex");
}

static bool value_on(tpl_value v)
{
    if (v.kind == TPL_MAP) {
        /* math: {enable: true}, katex: {…} (a table of settings: on unless it says enable: false) */
        tpl_value e = import_get(v.u.map, "enable");
        return e.kind == TPL_UNDEFINED || tpl_value_truthy(e);
    }
    if (v.kind == TPL_STRING)
        return *v.u.s && strcasecmp(v.u.s, "false") && strcasecmp(v.u.s, "none") && strcasecmp(v.u.s, "no");
    return tpl_value_truthy(v);
}

/* Whether map c (a config or its params) switches math on. */
static bool config_math(const tpl_map *c, int depth)
{
    if (!c || depth > 2)
        return false;
    for (size_t i = 0; i < c->len; i++) {
        if (c->entries[i].key.kind != TPL_STRING)
            continue;
        const char *k = c->entries[i].key.u.s;
        tpl_value v = c->entries[i].value;
        /* kramdown's math_engine is set by default: it says nothing of a script */
        if (!strcasecmp(k, "kramdown") || !strcasecmp(k, "markup"))
            continue;
        if (math_key(k) && value_on(v))
            return true;
        if (v.kind == TPL_MAP && (!strcasecmp(k, "params") || depth == 0) && config_math(v.u.map, depth + 1))
            return true;
    }
    return false;
}

typedef struct scan {
    imp *m;
    const char *dir; /* the folder walked (rel is relative to it) */
    bool found;
} scan;

/* A layout or include that loads MathJax or KaTeX (a script, a link to its
 * CSS, its configuration). */
static void scan_file(void *ctx, const char *rel)
{
    scan *s = ctx;
    if (s->found && s->m->math_code)
        return;
    buf b = BUF_INIT;
    const char *path = import_src_path(s->m, arena_printf(s->m->a, "%s/%s", s->dir, rel));
    if (fs_read_file_within(s->m->src_real, path, FS_READ_MAX, &b)) {
        s->found |= strcasestr(b.data, "mathjax") || strcasestr(b.data, "katex");
        /* blogdown's math-code.js: a code span holding only a formula
         * is that formula */
        s->m->math_code |= strstr(b.data, "math-code") != NULL;
    }
    buf_release(&b);
}

static bool folder_math(imp *m, const char *dir)
{
    scan s = { m, dir, false };
    struct stat st;
    if (!stat(import_src_path(m, dir), &st) && S_ISDIR(st.st_mode))
        import_walk(m, dir, false, scan_file, &s);
    return s.found;
}

/* math-code.js's rule: a code span (not in a block) whose whole text is
 * `\(…\)`, `\[…\]`, `$$…$$`, `$…$` or `\begin{env}…\end{env}` was
 * that formula, written as such; the TeX of s[a..z) (the span's text), else
 * false. `$…$` is made `\(…\)`, as the script did. */
static bool code_formula(imp *m, const char *s, size_t a, size_t z, buf *out)
{
    size_t n = z - a;
    const char *t = s + a;
    bool paren = n > 4 && !strncmp(t, "\\(", 2) && !strncmp(t + n - 2, "\\)", 2);
    bool bracket = n > 4 && !strncmp(t, "\\[", 2) && !strncmp(t + n - 2, "\\]", 2);
    bool dd = n > 4 && !strncmp(t, "$$", 2) && !strncmp(t + n - 2, "$$", 2);
    bool d = !dd && n > 2 && t[0] == '$' && t[n - 1] == '$' && t[1] != '$' && t[n - 2] != '$';
    bool env = n > 14 && !strncmp(t, "\\begin{", 7) && strstr(arena_strndup(m->a, t, n), "\\end{");
    if (!paren && !bracket && !dd && !d && !env)
        return false;
    size_t open = paren || bracket || dd ? 2 : d ? 1 : 0, close = open;
    buf_puts(out, paren || d ? "\\(" : "$$");
    /* where the TeX is Markdown first (math_escapes), its backslash pairs
     * are written so that undoing the escapes gives them back */
    for (size_t i = a + open; i < z - close; i++) {
        if (m->math_escapes && s[i] == '\\' && i + 1 < z - close && ispunct((unsigned char)s[i + 1]))
            buf_putc(out, '\\');
        buf_putc(out, s[i]);
    }
    buf_puts(out, paren || d ? "\\)" : "$$");
    return true;
}

/* Whether the old site rendered formulas; *where says what showed it. */
static bool site_math(imp *m, const char **where)
{
    static const char *const jekyll_dirs[] = { "_layouts", "_includes", NULL };
    static const char *const hugo_dirs[] = { "layouts", "themes", NULL };
    bool jekyll = m->o->kind == IMPORT_JEKYLL;
    /* every folder: math-code.js may be in another than MathJax */
    const char *in = NULL;
    for (const char *const *d = jekyll ? jekyll_dirs : hugo_dirs; *d; d++)
        if (folder_math(m, *d) && !in)
            in = *d;
    if (in) {
        *where = arena_printf(m->a, "a MathJax or KaTeX script in %s/", in);
        return true;
    }
    if (config_math(m->old_config, 0)) {
        *where = "a math setting in the site's config";
        return true;
    }
    for (size_t i = 0; i < m->npages; i++) {
        const import_page *p = m->pages[i];
        /* hugo-book's {{< katex >}}: the shortcode loads KaTeX */
        static const char *const calls[] = { "{{< katex", "{{% katex", "{{< math", "{{% math", NULL };
        for (const char *const *c = calls; *c && !jekyll; c++)
            if (p->body_src && memmem(p->body_src, p->body_len, *c, strlen(*c))) {
                *where = arena_printf(m->a, "a `%s >}}` shortcode in %s", *c + 4, p->src_rel);
                return true;
            }
    }
    for (size_t i = 0; i < m->npages; i++)
        for (size_t k = 0; k < m->pages[i]->nkv; k++)
            if (math_key(m->pages[i]->kv[k].key) && value_on(m->pages[i]->kv[k].value)) {
                *where = arena_printf(m->a, "`%s:` in %s", m->pages[i]->kv[k].key, m->pages[i]->src_rel);
                m->math_per_page = true;
                return true;
            }
    return false;
}

/* Whether Hugo's Goldmark passes math through untouched (its passthrough
 * extension, Hugo 0.122+): then its TeX is no Markdown. */
static bool goldmark_passthrough(const tpl_map *c)
{
    static const char *const path[] = { "markup", "goldmark", "extensions", "passthrough" };
    tpl_value v = tpl_undefined();
    for (size_t i = 0; i < 4; i++) {
        if (!c)
            return false;
        v = import_get(c, path[i]);
        c = v.kind == TPL_MAP ? v.u.map : NULL;
    }
    return c && tpl_value_truthy(import_get(c, "enable"));
}

/* Adds "  line" under markdown: in site.yaml (the block made when there is
 * none). */
static void markdown_key(imp *m, const char *line)
{
    buf *y = &m->site_yaml;
    const char *at = NULL;
    if (y->len >= 10 && !strncmp(y->data, "markdown:\n", 10))
        at = y->data;
    else if ((at = strstr(y->data, "\nmarkdown:\n")))
        at++;
    if (!at) {
        buf_printf(y, "markdown:\n  %s\n", line);
        return;
    }
    size_t off = (size_t)(at - y->data) + 10;
    buf rest = BUF_INIT;
    buf_put(&rest, y->data + off, y->len - off);
    buf_truncate(y, off);
    buf_printf(y, "  %s\n", line);
    buf_put(y, rest.data, rest.len);
    buf_release(&rest);
}

void import_math_settings(imp *m)
{
    const char *where = NULL;
    m->math_on = site_math(m, &where);
    if (!m->math_on) {
        markdown_key(m, "math: false              # the old site loaded no MathJax or KaTeX: `$` is text");
        m->math_note = "math switched off (`markdown.math: false`): the old site loaded no MathJax or KaTeX, "
                       "so its `$` and `\\(` were text";
        return;
    }
    if (m->o->kind == IMPORT_HUGO && !goldmark_passthrough(m->old_config)) {
        markdown_key(m, "math_escapes: markdown   # Goldmark read the TeX first: `\\_` is `_`");
        m->math_escapes = true;
        m->math_note = arena_printf(m->a, "math kept on (%s); its TeX was Markdown first (Goldmark, then "
                                          "MathJax in the browser): `markdown.math_escapes: markdown`", where);
    } else {
        m->math_note = arena_printf(m->a, "math kept on (%s)", where);
    }
}

/* ---- TeX that MathJax reads and KaTeX does not ------------------------ */

void import_rewrite_add(imp *m, const char *src_rel, const char *kind, const char *from, const char *to)
{
    import_rewrite *r = VEC_ADD_IN(m->a, m->rewrites, m->nrewrites, m->caprewrites, 16);
    r->src_rel = src_rel;
    r->kind = kind;
    r->from = from;
    r->to = to;
}

/* Commands of one argument that KaTeX takes after ^ or _ only in braces
 * (its error: "Got function '\\vec' with no arguments as superscript");
 * font commands (\\mathbf, \\text, …) it takes bare. */
static const char *const arg_commands[] = { "vec", "hat", "bar", "tilde", "widehat", "widetilde", "dot", "ddot",
                                            "overline", "underline", "boldsymbol", "bm", "operatorname", "sqrt",
                                            NULL };
/* Operators KaTeX takes after ^ or _ only in braces (\\log, \\exp, … it
 * takes bare). */
static const char *const op_commands[] = { "max", "min", "sup", "inf", "lim", "liminf", "limsup", NULL };

static bool listed(const char *const *names, const char *s, size_t n)
{
    for (const char *const *k = names; *k; k++)
        if (strlen(*k) == n && !strncmp(*k, s, n))
            return true;
    return false;
}

/* The end of the balanced group opening at s[i] ('{'), past its '}'; 0
 * when it never closes. */
static size_t group_end(const char *s, size_t n, size_t i)
{
    int depth = 0;
    for (size_t j = i; j < n; j++) {
        if (s[j] == '\\')
            j++;
        else if (s[j] == '{')
            depth++;
        else if (s[j] == '}' && --depth == 0)
            return j + 1;
    }
    return 0;
}

static const char *const text_commands[] = { "text",   "textrm",     "textbf", "textit", "texttt", "textsf",
                                             "textup", "textnormal", "textmd", "mbox",   NULL };

/* Spacing commands KaTeX will not take as the base of a ^ or _
 * (`x\!\!^{4}`: "Got group of unknown type: 'internal'"); TeX and MathJax
 * give the script an empty base there. \kern, \mskip, `\ ` and ~ it
 * takes. */
static const char *const space_commands[] = { "quad", "qquad", "thinspace", "negthinspace", "medspace",
                                              "negmedspace", "thickspace", "negthickspace", NULL };

/* The end of the spacing command at tex[i] ('\\'): \! \, \: \; a name
 * above, or \hspace{…} (\hspace*{…}); 0 when there is none. */
static size_t space_command_end(const char *tex, size_t n, size_t i)
{
    if (i + 1 >= n || tex[i] != '\\')
        return 0;
    if (strchr("!,:;", tex[i + 1]))
        return i + 2;
    size_t z = i + 1;
    while (z < n && isalpha((unsigned char)tex[z]))
        z++;
    if (listed(space_commands, tex + i + 1, z - i - 1))
        return z;
    if (z - i - 1 == 6 && !strncmp(tex + i + 1, "hspace", 6)) {
        z += z < n && tex[z] == '*';
        while (z < n && tex[z] == ' ')
            z++;
        return z < n && tex[z] == '{' ? group_end(tex, n, z) : 0;
    }
    return 0;
}

/* Where the run of spacing commands at tex[i] is followed by a script
 * (^, _, or \_ where the TeX is Markdown first): that script's place, past
 * the blanks; else 0. */
static size_t space_script_at(const char *tex, size_t n, size_t i, bool escapes)
{
    size_t z = i, e;
    while ((e = space_command_end(tex, n, z))) {
        z = e;
        while (z < n && (tex[z] == ' ' || tex[z] == '\n'))
            z++;
    }
    if (z == i || z >= n)
        return 0;
    if (tex[z] == '^' || tex[z] == '_' || (escapes && z + 1 < n && tex[z] == '\\' && tex[z + 1] == '_'))
        return z;
    return 0;
}

/* The code point of `\unicode{x1D7D9}` or `\unicode{8212}` at tex[i]
 * (MathJax's, without its optional font), or -1. *end: past the `}`. */
static long unicode_point(const char *tex, size_t n, size_t i, size_t *end)
{
    static const char cmd[] = "\\unicode{";
    size_t k = i + sizeof cmd - 1;
    if (k >= n || strncmp(tex + i, cmd, sizeof cmd - 1))
        return -1;
    bool hex = tex[k] == 'x' || tex[k] == 'X';
    k += hex;
    long cp = 0;
    size_t digits = 0;
    while (k < n && (hex ? isxdigit((unsigned char)tex[k]) : isdigit((unsigned char)tex[k])) && digits < 7) {
        int d = isdigit((unsigned char)tex[k]) ? tex[k] - '0' : tolower((unsigned char)tex[k]) - 'a' + 10;
        cp = cp * (hex ? 16 : 10) + d;
        k++;
        digits++;
    }
    if (!digits || k >= n || tex[k] != '}' || cp < 0x20 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *end = k + 1;
    return cp;
}

/* Writes the character of a `\unicode{…}` at tex[i] to out as UTF-8 and
 * returns the offset past it, or 0 when there is none. */
static size_t unicode_at(const char *tex, size_t n, size_t i, buf *out)
{
    size_t end;
    long cp = unicode_point(tex, n, i, &end);
    if (cp < 0)
        return 0;
    if (cp < 0x80) {
        buf_putc(out, (char)cp);
    } else if (cp < 0x800) {
        buf_putc(out, (char)(0xc0 | cp >> 6));
        buf_putc(out, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        buf_putc(out, (char)(0xe0 | cp >> 12));
        buf_putc(out, (char)(0x80 | (cp >> 6 & 0x3f)));
        buf_putc(out, (char)(0x80 | (cp & 0x3f)));
    } else {
        buf_putc(out, (char)(0xf0 | cp >> 18));
        buf_putc(out, (char)(0x80 | (cp >> 12 & 0x3f)));
        buf_putc(out, (char)(0x80 | (cp >> 6 & 0x3f)));
        buf_putc(out, (char)(0x80 | (cp & 0x3f)));
    }
    return end;
}

/* The length of a `%` at tex[i] that MathJax read as a comment (a bare
 * one, or `\%` where the TeX is Markdown first), or 0. */
static size_t percent_at(const char *tex, size_t n, size_t i, bool escapes)
{
    if (tex[i] == '%')
        return 1;
    return escapes && tex[i] == '\\' && i + 1 < n && tex[i + 1] == '%' ? 2 : 0;
}

size_t import_tex_fix(imp *m, const import_page *p, const char *tex, size_t n, bool escapes, buf *out)
{
    size_t fixes = 0;
    bool one_line = !memchr(tex, '\n', n);
    for (size_t i = 0; i < n; i++) {
        char c = tex[i];
        /* ^\vec{x} → ^{\vec{x}}; _\max → _{\max} */
        if ((c == '^' || c == '_') && i + 1 < n && tex[i + 1] == '\\' && (i == 0 || tex[i - 1] != '\\')) {
            size_t a = i + 2, z = a;
            while (z < n && isalpha((unsigned char)tex[z]))
                z++;
            size_t end = 0;
            if (z > a && listed(arg_commands, tex + a, z - a) && z < n && tex[z] == '{')
                end = group_end(tex, n, z);
            else if (z > a && listed(op_commands, tex + a, z - a))
                end = z;
            if (end) {
                buf_putc(out, c);
                buf_putc(out, '{');
                import_tex_fix(m, p, tex + i + 1, end - i - 1, escapes, out); /* \text{a_b} inside */
                buf_putc(out, '}');
                import_rewrite_add(m, p->src_rel, "a command after `^` or `_` put in braces",
                                   arena_printf(m->a, "%c%.*s", c, (int)(end - i - 1), tex + i + 1),
                                   arena_printf(m->a, "%c{%.*s}", c, (int)(end - i - 1), tex + i + 1));
                fixes++;
                i = end - 1;
                continue;
            }
        }
        /* \displaylines{a \\ b}: MathJax's (plain TeX's) centred lines,
         * which KaTeX has not; amsmath's gathered is the same */
        if (c == '\\' && i + 13 < n && !strncmp(tex + i + 1, "displaylines", 12) &&
            !isalpha((unsigned char)tex[i + 13])) {
            size_t z = i + 13;
            while (z < n && tex[z] == ' ')
                z++;
            size_t end = z < n && tex[z] == '{' ? group_end(tex, n, z) : 0;
            if (end) {
                buf_puts(out, "\\begin{gathered}");
                import_tex_fix(m, p, tex + z + 1, end - z - 2, escapes, out);
                buf_puts(out, "\\end{gathered}");
                import_rewrite_add(m, p->src_rel, "`\\displaylines` made `gathered`", "\\displaylines{…}",
                                   "\\begin{gathered}…\\end{gathered}");
                fixes++;
                i = end - 1;
                continue;
            }
        }
        /* x\!\!^{4} → x\!\!{}^{4}: the script's base is empty in TeX and
         * MathJax, and KaTeX wants it written */
        size_t script = c == '\\' ? space_script_at(tex, n, i, escapes) : 0;
        if (script) {
            buf_put(out, tex + i, script - i);
            buf_puts(out, "{}");
            import_rewrite_add(m, p->src_rel, "a script after a spacing command given its empty base",
                               arena_printf(m->a, "%.*s%c", (int)(script - i), tex + i, tex[script]),
                               arena_printf(m->a, "%.*s{}%c", (int)(script - i), tex + i, tex[script]));
            fixes++;
            i = script - 1;
            continue;
        }
        /* \unicode{x1D7D9} (MathJax's) → the character itself, which
         * KaTeX takes as text */
        size_t mark = out->len, uend = c == '\\' ? unicode_at(tex, n, i, out) : 0;
        if (uend) {
            import_rewrite_add(m, p->src_rel, "MathJax's `\\unicode{…}` made its character",
                               arena_strndup(m->a, tex + i, uend - i),
                               arena_strndup(m->a, out->data + mark, out->len - mark));
            fixes++;
            i = uend - 1;
            continue;
        }
        /* \text{a_b & 5%} → \text{a\_b \& 5\%}. Where the TeX is Markdown
         * first, MathJax saw `_` for both `_` and `\_` (Goldmark undid the
         * escape): both become `\\_`, which sheaf's unescaping makes `\_` */
        if (c == '\\') {
            size_t a = i + 1, z = a;
            while (z < n && isalpha((unsigned char)tex[z]))
                z++;
            size_t end = z < n && tex[z] == '{' && listed(text_commands, tex + a, z - a) ? group_end(tex, n, z) : 0;
            if (end) {
                buf fixed = BUF_INIT;
                bool changed = false;
                const char *esc = escapes ? "\\\\" : "\\";
                for (size_t k = i; k < end; k++) {
                    bool special = k > z && k + 1 < end && strchr("_&#%", tex[k]);
                    if (escapes && tex[k] == '\\' && k + 2 < end && tex[k + 1] == '\\' && strchr("_&#%", tex[k + 2])) {
                        buf_put(&fixed, tex + k, 3); /* \\_: MathJax saw \_ */
                        k += 2;
                        continue;
                    }
                    if (escapes && tex[k] == '\\' && k > z && k + 2 < end && strchr("_&#%", tex[k + 1])) {
                        buf_puts(&fixed, esc); /* \_: MathJax saw _ */
                        buf_putc(&fixed, tex[++k]);
                        changed = true;
                        continue;
                    }
                    if (tex[k] == '\\' && k + 1 < end) {
                        buf_put(&fixed, tex + k, 2);
                        k++;
                        continue;
                    }
                    if (special) {
                        buf_puts(&fixed, esc);
                        changed = true;
                    }
                    buf_putc(&fixed, tex[k]);
                }
                buf_put(out, fixed.data, fixed.len);
                if (changed) {
                    import_rewrite_add(m, p->src_rel, "`_`, `&`, `#` or `%` inside `\\text{…}` escaped",
                                       arena_strndup(m->a, tex + i, end - i),
                                       arena_strndup(m->a, fixed.data, fixed.len));
                    fixes++;
                }
                buf_release(&fixed);
                i = end - 1;
                continue;
            }
            /* a command: its name goes as it is */
            if (z > a) {
                buf_put(out, tex + i, z - i);
                i = z - 1;
                continue;
            }
        }
        /* 79.63% in a formula of one line: a comment in TeX, which left
         * MathJax the formula's rest unclosed; the percent sign meant */
        size_t pct = one_line ? percent_at(tex, n, i, escapes) : 0;
        if (pct) {
            buf_puts(out, escapes ? "\\\\%" : "\\%");
            size_t from = i; /* the number before it, for the report */
            while (from && (isalnum((unsigned char)tex[from - 1]) || tex[from - 1] == '.'))
                from--;
            import_rewrite_add(m, p->src_rel, "a `%` inside a formula of one line (a comment in TeX) made `\\%`",
                               arena_strndup(m->a, tex + from, i - from + pct),
                               arena_printf(m->a, "%.*s%s%%", (int)(i - from), tex + from, escapes ? "\\\\" : "\\"));
            fixes++;
            i += pct - 1;
            continue;
        }
        if (escapes && c == '\\' && i + 2 < n && tex[i + 1] == '\\' && tex[i + 2] == '%') {
            buf_put(out, tex + i, 3); /* \\%: MathJax saw \% */
            i += 2;
            continue;
        }
        if (c == '\\' && i + 1 < n) {
            buf_put(out, tex + i, 2);
            i++;
            continue;
        }
        buf_putc(out, c);
    }
    return fixes;
}

/* ---- formulas in a page's body ------------------------------------------ */

/* Whether MathJax ran on page p: on every page, unless the old site loaded
 * it only where front matter said so (Chirpy's `math: true`). */
static bool page_mathjax(const imp *m, const import_page *p)
{
    if (!m->math_per_page)
        return true;
    for (size_t k = 0; k < p->nkv; k++)
        if (math_key(p->kv[k].key) && value_on(p->kv[k].value))
            return true;
    return false;
}

/* MathJax's own pairing of `$`, where sheaf's (md/mathscan.h, Pandoc's)
 * differs: the next `$` closes, blanks or not, outside braces (`{$ (x', y')
 * $}`, `$x$5`). Where s[j] opens such a pair, in the paragraph s[..pn),
 * the closing `$`; 0 when there is none, it crosses code or `$$`, holds
 * only blanks, or sheaf reads the same formula there. */
static size_t mathjax_dollar_close(const char *s, size_t pn, size_t j)
{
    if (s[j] != '$' || j + 1 >= pn || s[j + 1] == '$' || (j && (s[j - 1] == '\\' || s[j - 1] == '$')))
        return 0;
    int depth = 0;
    bool blank = true;
    size_t k = j + 1;
    for (; k < pn; k++) {
        char c = s[k];
        if (c == '\\') {
            k++;
            blank = false;
        } else if (c == '`') {
            return 0;
        } else if (c == '{') {
            depth++;
        } else if (c == '}') {
            depth -= depth > 0;
        } else if (c == '$' && !depth) {
            break;
        }
        if (!isspace((unsigned char)c))
            blank = false;
    }
    if (k >= pn || blank || (k + 1 < pn && s[k + 1] == '$'))
        return 0;
    md_math_span sp;
    if (md_math_scan(s, pn, j, &sp) && !sp.display && sp.end == k + 1)
        return 0;
    return k;
}

/* MathJax's display math written for Markdown first, `\\[ … \\]` (the
 * Markdown made it `\[ … \]`): where its closer starts, the formula's
 * TeX from at + 3; 0 when s[at] opens none. */
static size_t escaped_display_close(const char *s, size_t n, size_t at)
{
    if (at + 3 >= n || strncmp(s + at, "\\\\[", 3))
        return 0;
    for (size_t i = at + 3; i + 2 < n; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == '\\' && s[i + 2] == ']')
            return i;
        i++; /* a pair: `\\` or `\_` */
    }
    return 0;
}

/* The TeX of every formula (sheaf's delimiters, md/mathscan.h; code left
 * alone) through import_tex_fix: what MathJax read and KaTeX would not; kramdown's
 * and Goldmark's (math_escapes) `\\[…\\]` (display math sheaf has no
 * delimiter for) as `$$…$$`. */
void import_fix_formulas(imp *m, import_page *p, const char *s, size_t n, bool kramdown, buf *out)
{
    size_t flen = 0;
    char fch = 0, closer = 0; /* closer: in a display block, its closer */
    size_t block = 0;         /* where that block began */
    bool mathjax = page_mathjax(m, p);
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        size_t next = e + (e < n), k = i;
        while (k < e && (s[k] == ' ' || s[k] == '\t' || s[k] == '>'))
            k++;
        char ch = 0;
        size_t f = closer ? 0 : import_fence_at(s, n, i, &ch);
        bool was_code = flen != 0;
        import_fence_toggle(f, ch, &flen, &fch);
        if (f || was_code) {
            buf_put(out, s + i, next - i);
            i = next;
            continue;
        }
        size_t olen, tail;
        bool closed;
        char c;
        if (closer) {
            /* a display block is fixed whole, at its closing line (or the
             * text's end): a group may span its lines (\displaylines{…}) */
            bool last = md_math_block_closes(s + k, e - k, closer, &tail);
            if (!last && next < n) {
                i = next;
                continue;
            }
            import_tex_fix(m, p, s + block, e - block, m->math_escapes, out);
            closer = 0;
        } else if (md_math_block_open(s + k, e - k, &c, &olen, &closed)) {
            if (!closed && next < n) {
                closer = c;
                block = i;
                i = next;
                continue;
            }
            import_tex_fix(m, p, s + i, e - i, m->math_escapes, out);
        } else {
            /* inline formulas: in the paragraph, up to a blank line */
            const char *para = memmem(s + i, n - i, "\n\n", 2);
            size_t pn = para ? (size_t)(para - s) : n;
            size_t j = i;
            while (j < e) {
                if (s[j] == '`') {
                    size_t z = import_code_span_end(s, e, j);
                    size_t ticks = 0;
                    while (j + ticks < z && s[j + ticks] == '`')
                        ticks++;
                    size_t mark = out->len;
                    if (!m->math_code || z < j + 2 * ticks || !code_formula(m, s, j + ticks, z - ticks, out))
                        buf_put(out, s + j, z - j);
                    else
                        import_rewrite_add(m, p->src_rel, "TeX in code, which the old site's math-code.js made math",
                                           arena_strndup(m->a, s + j, z - j),
                                           arena_strndup(m->a, out->data + mark, out->len - mark));
                    j = z;
                    continue;
                }
                size_t close = (kramdown || m->math_escapes) && (j == 0 || s[j - 1] != '\\')
                                   ? escaped_display_close(s, pn, j)
                                   : 0;
                if (close) {
                    /* kramdown's: unescaped as kramdown did; Goldmark's
                     * (math_escapes): as written, since sheaf undoes the
                     * escapes of every formula then */
                    const char *tex = s + j + 3;
                    size_t tn = close - j - 3;
                    if (kramdown) {
                        char *u = arena_alloc(m->a, tn + 1);
                        tn = md_math_unescape(tex, tn, u);
                        tex = u;
                    }
                    buf_puts(out, "$$");
                    import_tex_fix(m, p, tex, tn, m->math_escapes, out);
                    buf_puts(out, "$$");
                    import_rewrite_add(m, p->src_rel, "display math written `\\\\[ … \\\\]` made `$$ … $$`", "\\\\[ … \\\\]",
                                       "$$ … $$");
                    j = close + 3;
                    past_line(s, n, j, &e, &next);
                    continue;
                }
                size_t mj = kramdown && mathjax ? mathjax_dollar_close(s, s[k] == '|' ? e : pn, j) : 0;
                if (mj) {
                    /* `{$ (x', y') $}`: MathJax's pair (within a table
                     * row's line), which sheaf's rule reads otherwise;
                     * as \(…\), trimmed */
                    size_t a = j + 1, z = mj;
                    while (a < z && isspace((unsigned char)s[a]))
                        a++;
                    while (z > a && isspace((unsigned char)s[z - 1]))
                        z--;
                    char *u = arena_alloc(m->a, z - a + 1);
                    size_t un = md_math_unescape(s + a, z - a, u);
                    buf fixed = BUF_INIT;
                    buf_puts(&fixed, "\\(");
                    import_tex_fix(m, p, u, un, m->math_escapes, &fixed);
                    buf_puts(&fixed, "\\)");
                    buf_put(out, fixed.data, fixed.len);
                    import_rewrite_add(m, p->src_rel, "MathJax's pairing of `$` (blanks inside) made `\\(…\\)`",
                                       arena_strndup(m->a, s + j, mj + 1 - j),
                                       arena_strndup(m->a, fixed.data, fixed.len));
                    buf_release(&fixed);
                    j = mj + 1;
                    past_line(s, n, j, &e, &next);
                    continue;
                }
                md_math_span sp;
                bool esc = j > 0 && s[j - 1] == '\\';
                bool found = false, text = false;
                if (s[j] == '\\' && (m->math_escapes || kramdown) && md_math_scan_escaped(s, pn, j, &sp)) {
                    /* \\(…\\): kramdown's was text; Goldmark's is math
                     * with its escapes, rewritten as such */
                    found = true;
                    text = kramdown;
                }
                else if (!esc && (s[j] == '$' || (s[j] == '\\' && j + 1 < e && s[j + 1] == '(')))
                    found = md_math_scan(s, pn, j, &sp);
                if (!found) {
                    buf_putc(out, s[j++]);
                    continue;
                }
                /* kramdown's $…$ and \\(…\\) were text, its escapes undone
                 * before MathJax saw them (`$\Sigma^{\*}$`): so here */
                text |= kramdown && s[j] == '$' && !sp.display;
                const char *tex = s + sp.tex;
                size_t tn = sp.tex_len;
                if (text) {
                    char *u = arena_alloc(m->a, tn + 1);
                    tn = md_math_unescape(tex, tn, u);
                    if (tn != sp.tex_len)
                        import_rewrite_add(m, p->src_rel, "kramdown's escapes undone (`\\_` → `_`), as before MathJax",
                                           arena_strndup(m->a, tex, sp.tex_len),
                                           arena_strndup(m->a, u, tn));
                    tex = u;
                }
                bool paren = text && s[j] == '\\';
                if (paren)
                    buf_puts(out, "\\(");
                else
                    buf_put(out, s + j, sp.tex - j);
                import_tex_fix(m, p, tex, tn, m->math_escapes, out);
                if (paren)
                    buf_puts(out, "\\)");
                else
                    buf_put(out, s + sp.tex + sp.tex_len, sp.end - sp.tex - sp.tex_len);
                j = sp.end;
                /* the formula ran over lines: go on from its end */
                past_line(s, n, j, &e, &next);
            }
            buf_put(out, s + e, next - e);
            i = next;
            continue;
        }
        buf_put(out, s + e, next - e);
        i = next;
    }
}
