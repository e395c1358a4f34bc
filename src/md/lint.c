/* md/lint.c: template syntax of other generators left in Markdown.
 *
 * A post moved over from Jekyll may still hold Liquid (`{% … %}`,
 * `{{ site.… }}`), which sheaf does not run, so the page would show it as
 * written, without a word; each one outside code is a warning at its
 * place. So is a Hugo shortcode (`{{< … >}}`, `{{% … %}}`) where sheaf
 * does not run it: inside raw HTML, or with the shortcodes extension off. Code spans and code blocks
 * are never looked at: that is how a post shows such syntax on purpose. */
#include <string.h>

#include "md/internal.h"

/* Liquid's objects in Jekyll: what `{{ NAME.… }}` starts with. */
static const char *const liquid_objects[] = { "site", "page", "post", "paginator", "include",
                                              "layout", "content", "jekyll", NULL };

typedef struct match {
    size_t len;       /* bytes of the construct */
    const char *what; /* "Liquid tag", … */
    const char *runs; /* what sheaf does not run */
} match;

static bool liquid_object(const char *s, size_t n)
{
    size_t i = 2;
    while (i < n && (s[i] == ' ' || s[i] == '-'))
        i++;
    for (const char *const *o = liquid_objects; *o; o++) {
        size_t k = strlen(*o);
        if (i + k < n && !strncmp(s + i, *o, k) && strchr(". |}", s[i + k]))
            return true;
    }
    return false;
}

/* Where the last search for each closing mark (>}} %}} %} }}) in one text
 * began and what it found (NULL: none): a later search from a place
 * between the two has the same answer, so a text of many unclosed `{%`
 * is read once, not once a construct. Zeroed for each text. */
typedef struct lint_memo {
    const char *from[4], *found[4];
} lint_memo;

static const char *find_close(lint_memo *mo, const char *s, const char *end, const char *close)
{
    static const char *const marks[] = { ">}}", "%}}", "%}", "}}" };
    size_t k = 0;
    while (strcmp(marks[k], close))
        k++;
    size_t cl = strlen(close);
    if (mo->from[k] && s >= mo->from[k] && (!mo->found[k] || s <= mo->found[k]))
        return mo->found[k];
    mo->from[k] = s;
    mo->found[k] = memmem(s, (size_t)(end - s), close, cl);
    return mo->found[k];
}

/* Is there a construct at s[0] (s holds n bytes from there)? */
static bool match_at(lint_memo *mo, const char *s, size_t n, match *m)
{
    const char *close;
    if (n >= 3 && s[0] == '{' && s[1] == '{' && (s[2] == '<' || s[2] == '%')) {
        close = s[2] == '<' ? ">}}" : "%}}";
        m->what = "Hugo shortcode";
        m->runs = NULL; /* see report() */
    } else if (n >= 2 && s[0] == '{' && s[1] == '%') {
        close = "%}";
        m->what = "Liquid tag";
        m->runs = "Liquid";
    } else if (n >= 2 && s[0] == '{' && s[1] == '{' && liquid_object(s, n)) {
        close = "}}";
        m->what = "Liquid variable";
        m->runs = "Liquid";
    } else {
        return false;
    }
    const char *e = find_close(mo, s + 2, s + n, close);
    if (!e)
        return false;
    m->len = (size_t)(e - s) + strlen(close);
    return true;
}

static void report(md_walk *w, const char *s, const match *m, int line, int col)
{
    /* the construct as written, on one line, cut short when long */
    char shown[72];
    size_t k = 0;
    for (size_t i = 0; i < m->len && k < sizeof shown - 4; i++)
        shown[k++] = s[i] == '\n' ? ' ' : s[i];
    if (k < m->len) {
        while (k > 0 && ((unsigned char)shown[k - 1] & 0xC0) == 0x80)
            k--; /* not in the middle of a UTF-8 character */
        if (k > 0 && ((unsigned char)shown[k - 1] & 0xC0) == 0xC0)
            k--;
        memcpy(shown + k, "…", 3);
        k += 3;
    }
    shown[k] = '\0';
    if (!m->runs) {
        if (md_ext_on(w, MD_EXT_SHORTCODES))
            md_problem_at(w, false, line, col,
                          "shortcode '%s' is shown as written: shortcodes run only in Markdown "
                          "text, not in raw HTML or a link's destination",
                          shown);
        else
            md_problem_at(w, false, line, col,
                          "shortcode '%s' is shown as written: shortcodes are off (markdown: "
                          "shortcodes: false)",
                          shown);
        return;
    }
    md_problem_at(w, false, line, col,
                  "%s '%s' is shown as written: sheaf does not run %s (rewrite it, or put it in `code`)",
                  m->what, shown, m->runs);
}

void md_lint_literal(md_walk *w, const char *s, int line, int col)
{
    size_t n = strlen(s), ls = 0;
    int k = 0;
    lint_memo mo = { { NULL }, { NULL } };
    for (size_t i = 0; i < n; i++) {
        match m;
        if (s[i] == '\n') {
            k++;
            ls = i + 1;
        } else if (s[i] == '{' && match_at(&mo, s + i, n - i, &m)) {
            report(w, s + i, &m, line + k, k ? (int)(i - ls) + 1 : col + (int)i);
            i += m.len - 1;
        }
    }
}

void md_lint_text(md_walk *w, cmark_node *n)
{
    const char *lit = cmark_node_get_literal(n);
    if (!strstr(lit, "{{") && !strstr(lit, "{%"))
        return;
    /* the construct may go on in the next inline nodes (`{{<figure …>}}`:
     * cmark reads `<figure …>` as raw HTML) */
    buf text = BUF_INIT;
    buf_puts(&text, lit);
    size_t own = text.len;
    for (cmark_node *c = cmark_node_next(n); c && text.len < 512; c = cmark_node_next(c)) {
        cmark_node_type t = cmark_node_get_type(c);
        if (t == CMARK_NODE_TEXT || t == CMARK_NODE_HTML_INLINE)
            buf_puts(&text, cmark_node_get_literal(c));
        else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK)
            buf_putc(&text, ' ');
        else
            break;
    }
    cmark_node *leaf = md_leaf_of(n);
    int hl = cmark_node_get_start_line(n), hc = cmark_node_get_start_column(n);
    if (hl <= 0 && leaf)
        hl = cmark_node_get_start_line(leaf);
    lint_memo mo = { { NULL }, { NULL } };
    for (size_t i = 0; i + 1 < own; i++) {
        match m;
        if (text.data[i] != '{' || !match_at(&mo, text.data + i, text.len - i, &m))
            continue;
        if (!m.runs && md_ext_on(w, MD_EXT_SHORTCODES))
            continue; /* in text, a shortcode was escaped (`\{{<`) on purpose */
        /* find it in the source near where cmark says the text is */
        int line = hl, col = hc > 0 ? hc + (int)i : 1;
        /* up to a backslash, '&' or line break (cmark's text differs from
         * the source there), and 64 bytes: enough to find it near the
         * hint, where a longer needle (read to the end of the text) made
         * many constructs in one text quadratic */
        size_t nk = 0;
        while (nk < 64 && i + nk < own && !strchr("\\&\n", text.data[i + nk]))
            nk++;
        if (nk < 2)
            nk = 2;
        md_find_in_leaf(md_walk_source(w), leaf, line, col, text.data + i, nk, &line, &col);
        report(w, text.data + i, &m, line, col);
        i += m.len - 1;
    }
    buf_release(&text);
}
