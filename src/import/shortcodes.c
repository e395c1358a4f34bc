/* import/shortcodes.c: a Hugo page's shortcodes. ref and relref become
 * relative .md links, highlight a fence, a theme's callouts sheaf's boxes,
 * its layout shortcodes are unwrapped, and sheaf's own shortcodes (which
 * read Hugo's syntax) stay; any other is noted with its place. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "embed/embed.h"
#include "import/internal.h"
#include "render/build.h"

/* The closing {{< /name >}} (or {{% /name %}}) of a paired shortcode that
 * opened before s[from]: where it starts, and *end just past it; NULL when
 * there is none. close_name is "/name". */
static const char *closing_tag(const char *s, size_t n, size_t from, const char *close_name,
                               const char **end)
{
    for (size_t j = from; j + 2 < n; j++) {
        if (s[j] != '{' || s[j + 1] != '{' || (s[j + 2] != '<' && s[j + 2] != '%'))
            continue;
        char delim = s[j + 2] == '<' ? '>' : '%';
        size_t k = j + 3;
        if (k + 1 < n && s[k] == '/' && s[k + 1] == '*') {
            /* escaped (a C comment inside the delimiters, maybe over
             * lines): text, whatever it holds */
            for (k += 2; k + 3 < n && !(s[k] == '*' && s[k + 1] == '/' && s[k + 2] == delim && s[k + 3] == '}');)
                k++;
            j = k;
            continue;
        }
        while (k + 2 < n && !(s[k] == delim && s[k + 1] == '}' && s[k + 2] == '}'))
            k++;
        if (k + 2 >= n)
            return NULL;
        import_tag_args c;
        import_tag_split(s + j + 3, k - (j + 3), &c);
        /* Hugo also reads {{</ name >}} */
        if (import_tag_word_is(&c, 0, close_name) || (import_tag_word_is(&c, 0, "/") && import_tag_word_is(&c, 1, close_name + 1))) {
            *end = s + k + 3;
            return s + j;
        }
    }
    return NULL;
}

/* sheaf's own shortcodes, which read Hugo's syntax as it is */
static const char *const sheaf_shortcodes[] = { "figure", "youtube", "note", "tip", "warning", "details",
                                                NULL };

static bool is_sheaf_shortcode(const char *w, size_t n)
{
    for (const char *const *k = sheaf_shortcodes; *k; k++)
        if (strlen(*k) == n && !strncmp(*k, w, n))
            return true;
    return false;
}


/* Code as Hugo showed it: there a shortcode escaped with a C comment
 * inside its delimiters is the shortcode's text, which sheaf (leaving code
 * alone) shows only when written without the comment. */
static void code_text(const char *s, size_t n, buf *out)
{
    for (size_t i = 0; i < n;) {
        if (i + 4 < n && s[i] == '{' && s[i + 1] == '{' && (s[i + 2] == '<' || s[i + 2] == '%') &&
            s[i + 3] == '/' && s[i + 4] == '*') {
            char d = s[i + 2] == '<' ? '>' : '%';
            const char *e = NULL;
            for (size_t j = i + 5; j + 4 < n && !e; j++)
                if (s[j] == '*' && s[j + 1] == '/' && s[j + 2] == d && s[j + 3] == '}' && s[j + 4] == '}')
                    e = s + j;
            if (e) {
                buf_printf(out, "{{%c", s[i + 2]);
                buf_put(out, s + i + 5, (size_t)(e - s) - i - 5);
                buf_printf(out, "%c}}", d);
                i = (size_t)(e - s) + 5;
                continue;
            }
        }
        buf_putc(out, s[i++]);
    }
}

/* A built-in shortcode's arguments that sheaf's template takes (its
 * `args:` line, render_shortcode_takes): when one is not taken (figure's
 * attr, youtube's autoplay), the tag is written without it, which is
 * noted, and true is returned. */
static bool sheaf_args(imp *m, import_page *p, size_t at, const import_tag_args *given, char open, char close,
                       buf *out)
{
    const embed_file *tpl =
        embed_find(arena_printf(m->a, "templates/shortcodes/%.*s.html", (int)given->n[0], given->w[0]));
    if (!tpl)
        return false;
    bool drop[16] = { false }, any = false;
    /* hugo-book's details: title="…" is sheaf's summary, a bare `open` its open=true */
    import_tag_args u = *given;
    const import_tag_args *t = &u;
    if (import_tag_word_is(t, 0, "details"))
        for (size_t k = 1; k < u.count; k++) {
            if (u.n[k] > 6 && !strncmp(u.w[k], "title=", 6)) {
                u.w[k] = arena_printf(m->a, "summary=%.*s", (int)u.n[k] - 6, u.w[k] + 6);
                u.n[k] += 2;
                any = true;
            } else if (import_tag_word_is(t, k, "open")) {
                u.w[k] = "open=true";
                u.n[k] = 9;
                any = true;
            }
        }
    size_t pos = 0;
    for (size_t k = 1; k < t->count; k++) {
        if (t->n[k] == 1 && t->w[k][0] == '/')
            continue; /* self-closing */
        const char *eq = memchr(t->w[k], '=', t->n[k]);
        bool named = eq && t->w[k][0] != '"' && t->w[k][0] != '\'' && t->w[k][0] != '`';
        const char *arg = named ? arena_strndup(m->a, t->w[k], (size_t)(eq - t->w[k]))
                                : arena_printf(m->a, "%zu", pos++);
        if (!render_shortcode_takes((const char *)tpl->data, tpl->len, arg)) {
            drop[k] = any = true;
            import_note_at(m, p, at, t->w[k], t->n[k],
                    arena_printf(m->a, "sheaf's %.*s takes no argument '%s': dropped (see its "
                                 "arguments in docs/templates.md)", (int)t->n[0], t->w[0], arg));
        }
    }
    if (!any)
        return false;
    buf_printf(out, "{{%c ", open);
    for (size_t k = 0; k < t->count; k++)
        if (!drop[k])
            buf_printf(out, "%s%.*s", k ? " " : "", (int)t->n[k], t->w[k]);
    buf_printf(out, " %c}}", close);
    return true;
}

/* A theme's layout shortcode, which sheaf unwraps: hugo-book's columns,
 * tabs, tab, steps and button, Docsy's tabpane. */
static bool is_layout(const char *name, size_t n)
{
    static const char *const names[] = { "columns", "tabs", "tab", "tabpane", "steps", "button", NULL };
    for (const char *const *k = names; *k; k++)
        if (strlen(*k) == n && !strncmp(*k, name, n))
            return true;
    return false;
}

/* Past the fenced code block whose opening fence (f chars ch) starts the
 * line at i: past its closing fence's line, or n. */
static size_t fence_block_end(const char *s, size_t n, size_t i, char ch, size_t f)
{
    for (;;) {
        while (i < n && s[i] != '\n')
            i++;
        if (i >= n)
            return n;
        i++;
        char c;
        size_t g = import_fence_at(s, n, i, &c);
        if (g && c == ch && g >= f) {
            while (i < n && s[i] != '\n')
                i++;
            return i + (i < n);
        }
    }
}

void import_shortcodes_convert(imp *m, import_page *p, buf *out)
{
    const char *s = p->body_src;
    size_t n = p->body_len, i = 0;
    /* closing tags to write otherwise: a callout's (renamed), an unwrapped
     * layout's (nothing, or a fence's end) */
    struct {
        size_t at;
        const char *text;
        bool columns;
    } renamed[32];
    size_t nrenamed = 0, ncolumns = 0;
    while (i < n) {
        /* fenced code and code spans: only Hugo's escaped form is undone,
         * in the block as a whole (an escape may span its lines) */
        if (i == 0 || s[i - 1] == '\n') {
            /* hugo-book's column separator, in unwrapped columns */
            if (ncolumns) {
                size_t le = i;
                while (le < n && s[le] != '\n')
                    le++;
                size_t ls = import_indent_end(s, i, le), lz = le;
                while (lz > ls && (s[lz - 1] == ' ' || s[lz - 1] == '\r'))
                    lz--;
                if (lz - ls == 5 && !strncmp(s + ls, "<--->", 5)) {
                    i = le + (le < n);
                    continue;
                }
            }
            char ch = 0;
            size_t f = import_fence_at(s, n, i, &ch);
            if (f) {
                size_t e = fence_block_end(s, n, i, ch, f);
                code_text(s + i, e - i, out);
                i = e;
                continue;
            }
        }
        if (s[i] == '`') {
            size_t e = import_code_span_end(s, n, i);
            code_text(s + i, e - i, out);
            i = e;
            continue;
        }
        bool open = i + 2 < n && s[i] == '{' && s[i + 1] == '{' && (s[i + 2] == '<' || s[i + 2] == '%');
        if (!open) {
            buf_putc(out, s[i++]);
            continue;
        }
        char delim = s[i + 2] == '<' ? '>' : '%';
        const char *end = NULL;
        for (size_t j = i + 3; j + 2 < n && !end; j++)
            if (s[j] == delim && s[j + 1] == '}' && s[j + 2] == '}')
                end = s + j;
        if (!end) {
            buf_putc(out, s[i++]);
            continue;
        }
        size_t after = (size_t)(end - s) + 3;
        const char *inner = s + i + 3;
        size_t inn = (size_t)(end - inner);
        import_tag_args t;
        import_tag_split(inner, inn, &t);
        /* a shortcode escaped as Hugo writes it (a C comment inside the delimiters) is text */
        if (!t.count || (inn && (inner[0] == '/' && inn > 1 && inner[1] == '*'))) {
            /* up to the comment's end and the delimiter, which may be
             * lines on: what it holds is text too */
            const char *ce = NULL;
            for (size_t k = i + 5; k + 2 < n && !ce; k++)
                if (s[k - 2] == '*' && s[k - 1] == '/' && s[k] == delim && s[k + 1] == '}' && s[k + 2] == '}')
                    ce = s + k + 3;
            size_t stop = ce ? (size_t)(ce - s) : after;
            buf_put(out, s + i, stop - i);
            i = stop;
            continue;
        }
        const char *name = t.w[0];
        size_t nn = t.n[0];
        bool closing = name[0] == '/';
        if (closing && nn == 1 && t.count > 1) /* {{</ name >}} */
            name = t.w[1], nn = t.n[1];
        else if (closing)
            name++, nn--;
        bool inline_sc = nn > 7 && !strncmp(name + nn - 7, ".inline", 7);
        bool self_closing = inn && (inner[inn - 1] == '/' || (t.count > 1 && import_tag_word_is(&t, t.count - 1, "/")));
        if (closing && nrenamed && renamed[nrenamed - 1].at == i) {
            nrenamed--;
            buf_puts(out, renamed[nrenamed].text);
            ncolumns -= renamed[nrenamed].columns;
            i = after;
            continue;
        }
        const char *box_title = NULL;
        const char *box = closing || self_closing ? NULL : import_callout(m, &t, name, nn, &box_title);
        bool katex = nn == 5 && !strncmp(name, "katex", 5), math = nn == 4 && !strncmp(name, "math", 4);
        bool layout = is_layout(name, nn);
        /* the closing tag of a pair this tag opens: a callout, a layout,
         * an inline shortcode, a theme's katex or math */
        const char *pair_end = NULL;
        const char *pair = !closing && !self_closing && (box || layout || inline_sc || katex || math)
                               ? closing_tag(s, n, after, arena_printf(m->a, "/%.*s", (int)nn, name), &pair_end)
                               : NULL;
        bool room = nrenamed < sizeof renamed / sizeof *renamed;
        const char *math_stop = katex || math ? pair : NULL, *math_end = pair_end;
        const char *box_close = box && room ? pair : NULL;
        /* a layout is unwrapped only when it closes inside its parent */
        bool inside = pair && (!nrenamed || renamed[nrenamed - 1].at >= (size_t)(pair - s));
        const char *wrap_close = layout && room && inside ? pair : NULL;
        const char *wrap_end = pair_end;
        if (!closing && ((nn == 3 && !strncmp(name, "ref", 3)) || (nn == 6 && !strncmp(name, "relref", 6))) &&
            t.count >= 2) {
            bool lit;
            const char *target = import_unquote(m, t.w[1], t.n[1], &lit);
            const char *hash = strchr(target, '#');
            size_t tn = hash ? (size_t)(hash - target) : strlen(target);
            /* "#anchor" alone: this page */
            import_page *to = tn ? import_hugo_ref(m, p, target, tn) : hash ? p : NULL;
            if (to) {
                if (to == p && !tn)
                    buf_puts(out, hash);
                else
                    import_put_link(m, p, out, to, hash);
                i = after;
                continue;
            }
            import_note_at(m, p, i, s + i, after - i, "no such page: write the link by hand");
        } else if (!closing && nn == 9 && !strncmp(name, "highlight", 9) && t.count >= 2) {
            /* {{< highlight go "opts" >}} … {{< /highlight >}} → a fence */
            const char *ce;
            const char *stop = closing_tag(s, n, after, "/highlight", &ce);
            if (stop) {
                buf_printf(out, "```%.*s", (int)t.n[1], t.w[1]);
                size_t body = after;
                if (body < n && s[body] != '\n')
                    buf_putc(out, '\n');
                buf_put(out, s + body, (size_t)(stop - s) - body);
                if (out->len && out->data[out->len - 1] != '\n')
                    buf_putc(out, '\n');
                buf_puts(out, "```");
                m->nhighlight++;
                i = (size_t)(ce - s);
                continue;
            }
            import_note_at(m, p, i, s + i, after - i, "no closing {{< /highlight >}}: write a fenced code block");
        } else if (self_closing && (katex || math)) {
            /* hugo-book's {{< katex />}}: it loads KaTeX for the page's
             * delimiters; sheaf renders math on every page */
            i = after;
            continue;
        } else if (math_stop) {
            /* a theme's {{< katex [display] >}}TeX{{< /katex >}} (hugo-book's,
             * and `math` alike) → sheaf's own math, \(…\) or \[…\] */
            const char *stop = math_stop, *ce = math_end;
            bool display = false;
            for (size_t k = 1; k < t.count; k++)
                display |= import_tag_word_is(&t, k, "display") || import_tag_word_is(&t, k, "block") ||
                           import_tag_word_is(&t, k, "display=true") || import_tag_word_is(&t, k, "display=\"true\"");
            size_t a = after, z = (size_t)(stop - s);
            while (a < z && isspace((unsigned char)s[a]))
                a++;
            while (z > a && isspace((unsigned char)s[z - 1]))
                z--;
            buf_puts(out, display ? "\\[" : "\\(");
            /* a shortcode's TeX was no Markdown: where the site's is
             * (math_escapes), a backslash before punctuation is doubled so
             * that undoing the escapes gives it back */
            for (size_t k = a; k < z; k++) {
                if (m->math_escapes && s[k] == '\\' && k + 1 < z && ispunct((unsigned char)s[k + 1]))
                    buf_putc(out, '\\');
                buf_putc(out, s[k]);
            }
            buf_puts(out, display ? "\\]" : "\\)");
            m->nmath++;
            i = (size_t)(ce - s);
            continue;
        } else if (box_close && (!nrenamed || renamed[nrenamed - 1].at > (size_t)(box_close - s))) {
            /* a theme's callout → sheaf's; its closing tag renamed when reached */
            import_box_open(out, box, box_title);
            renamed[nrenamed].at = (size_t)(box_close - s);
            renamed[nrenamed].columns = false;
            renamed[nrenamed++].text = arena_printf(m->a, "{{%% /%s %%}}", box);
            m->nshortcodes++;
            i = after;
            continue;
        } else if (wrap_close && nn == 6 && !strncmp(name, "button", 6)) {
            /* hugo-book's button: a link, its text the button's */
            const char *href = import_tag_arg(m, &t, 1, "href", NULL);
            const char *ref = import_tag_arg(m, &t, 1, "relref", NULL);
            ref = ref ? ref : import_tag_arg(m, &t, 1, "ref", NULL);
            buf_putc(out, '[');
            buf_put(out, s + after, (size_t)(wrap_close - s) - after);
            buf_puts(out, "](");
            import_page *to = ref && *ref ? import_hugo_ref(m, p, ref, strcspn(ref, "#")) : NULL;
            if (to)
                import_put_link(m, p, out, to, strchr(ref, '#'));
            else
                buf_puts(out, href ? href : ref ? ref : "");
            buf_putc(out, ')');
            i = (size_t)(wrap_end - s);
            continue;
        } else if (wrap_close) {
            /* columns, tabs, steps: sheaf lays text out one block after
             * another; a tab's name becomes a bold line, Docsy's lang= a
             * fence around its code */
            bool tab = nn == 3 && !strncmp(name, "tab", 3);
            const char *label = tab ? import_tag_arg(m, &t, 1, "name", NULL) : NULL;
            label = label || !tab ? label : import_tag_arg(m, &t, 1, "header", NULL);
            label = label || !tab || t.count < 2 || memchr(t.w[1], '=', t.n[1]) ? label
                                                                               : import_unquote(m, t.w[1], t.n[1], NULL);
            const char *lang = tab ? import_tag_arg(m, &t, 1, "lang", NULL) : NULL;
            if (label && *label)
                buf_printf(out, "**%s**\n", label);
            if (lang && *lang)
                buf_printf(out, "\n```%s\n", lang);
            renamed[nrenamed].at = (size_t)(wrap_close - s);
            renamed[nrenamed].columns = nn == 7 && !strncmp(name, "columns", 7);
            renamed[nrenamed++].text = lang && *lang ? "\n```\n" : "";
            ncolumns += nn == 7 && !strncmp(name, "columns", 7);
            if (!tab) /* noted once, at its tabs */
                import_note_at(m, p, i, s + i, after - i,
                        arena_printf(m->a, "unwrapped: sheaf has no %.*s; the text is kept, one block after "
                                           "another", (int)nn, name));
            i = after;
            continue;
        } else if (inline_sc && !closing) {
            /* Hugo's inline shortcode: a Go template written in the page.
             * One that only holds text (no {{ action }}) prints it: kept,
             * unwrapped; one with actions is code sheaf cannot run:
             * removed, and said */
            const char *ce = pair_end, *stop = pair;
            size_t z = stop ? (size_t)(stop - s) : after;
            bool actions = false;
            for (size_t k = after; k + 2 < z && !actions; k++)
                actions = s[k] == '{' && s[k + 1] == '{' && s[k + 2] != '<' && s[k + 2] != '%';
            if (stop && !actions) {
                buf_put(out, s + after, z - after);
                i = (size_t)(ce - s);
                continue;
            }
            import_note_at(m, p, i, s + i, after - i,
                    "removed: a Hugo inline shortcode is a Go template, which sheaf cannot run; write "
                    "what it did in a template (templates/shortcodes/NAME.html)");
            i = stop ? (size_t)(ce - s) : after;
            continue;
        } else if (is_sheaf_shortcode(name, nn)) {
            if (!closing) {
                m->nshortcodes++;
                if (sheaf_args(m, p, i, &t, s[i + 2], delim, out)) {
                    i = after;
                    continue;
                }
            }
        } else {
            /* sheaf has no such shortcode, and an unknown one is an error:
             * escaped as Hugo escapes one (a C comment inside the delimiters),
             * it shows as written */
            size_t a = 0, z = inn;
            while (a < z && isspace((unsigned char)inner[a]))
                a++;
            while (z > a && isspace((unsigned char)inner[z - 1]))
                z--;
            bool can = !memmem(inner, inn, "*/", 2);
            if (!closing)
                import_note_at(m, p, i, s + i, after - i,
                        arena_printf(m->a, "sheaf has no shortcode '%.*s'%s: write "
                                     "templates/shortcodes/%.*s.html (Hugo's is a Go template)%s, or replace it",
                                     (int)nn, name, can ? " (kept as text: {{</* … */>}})" : "", (int)nn, name,
                                     can ? " and take the /* */ away" : ""));
            if (can) {
                buf_printf(out, "{{%c/* %.*s */%c}}", s[i + 2], (int)(z - a), inner + a, delim);
                i = after;
                continue;
            }
        }
        buf_put(out, s + i, after - i);
        i = after;
    }
}
