/* import/tags.c: what Liquid (liquid.c) and Hugo's shortcodes
 * (shortcodes.c) share: a tag's words and arguments, a link to an imported
 * page, and the callout boxes both generators' themes write, as sheaf's
 * note, tip and warning. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "import/internal.h"

/* ---- reading tags ----------------------------------------------------- */

void import_tag_split(const char *s, size_t n, import_tag_args *t)
{
    t->count = 0;
    size_t i = 0;
    while (i < n && t->count < 16) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        size_t start = i;
        while (i < n && !isspace((unsigned char)s[i])) {
            if (s[i] == '"' || s[i] == '\'') {
                char q = s[i++];
                while (i < n && s[i] != q)
                    i++;
            }
            i++;
        }
        if (i > n)
            i = n;
        t->w[t->count] = s + start;
        t->n[t->count++] = i - start;
    }
}

bool import_tag_word_is(const import_tag_args *t, size_t i, const char *s)
{
    return i < t->count && t->n[i] == strlen(s) && !strncmp(t->w[i], s, t->n[i]);
}

/* A quoted argument's text ("x" or 'x'), or a bare word. */
const char *import_unquote(imp *m, const char *s, size_t n, bool *quoted)
{
    if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
        if (quoted)
            *quoted = true;
        return arena_strndup(m->a, s + 1, n - 2);
    }
    if (quoted)
        *quoted = false;
    return arena_strndup(m->a, s, n);
}

/* key="value" of an include: the key's value, or NULL */
const char *import_tag_arg(imp *m, const import_tag_args *t, size_t from, const char *key, bool *literal)
{
    size_t kn = strlen(key);
    for (size_t i = from; i < t->count; i++)
        if (t->n[i] > kn && !strncmp(t->w[i], key, kn) && t->w[i][kn] == '=')
            return import_unquote(m, t->w[i] + kn + 1, t->n[i] - kn - 1, literal);
    return NULL;
}

void import_put_link(imp *m, import_page *p, buf *out, import_page *to, const char *anchor)
{
    /* a page sheaf makes itself (not imported): its URL, which answers */
    if (to->dropped) {
        buf_puts(out, to->old_url ? to->old_url : "/");
        if (anchor)
            buf_puts(out, anchor);
        return;
    }
    /* a blank or a parenthesis would end the Markdown link: %-encoded
     * (`gradients%20for%20backprop.md`), as the build reads it */
    for (const char *c = import_relative(m, p, to->dest_rel); *c; c++)
        if (*c == ' ' || *c == '(' || *c == ')')
            buf_printf(out, "%%%02X", (unsigned char)*c);
        else
            buf_putc(out, *c);
    if (anchor)
        buf_puts(out, anchor);
    m->nlinks++;
}

/* ---- boxes ------------------------------------------------------------ */

/* sheaf's box for a kind of callout: tip, success → tip; warning, caution,
 * danger, error, bug, important → warning; any other (note, info,
 * question, example …) → note. */
const char *import_box_for(const char *kind)
{
    static const char *const tips[] = { "tip", "success", "hint", "check", "done", NULL };
    static const char *const warnings[] = { "warning", "caution", "danger", "error", "failure", "fail",
                                            "bug", "important", "attention", NULL };
    for (const char *const *k = tips; *k; k++)
        if (!strcasecmp(kind, *k))
            return "tip";
    for (const char *const *k = warnings; *k; k++)
        if (!strcasecmp(kind, *k))
            return "warning";
    return "note";
}

/* The title a box of kind (n bytes) gets when sheaf's box is another: the
 * kind's name, capitalised ("Danger" in a warning); else NULL. */
const char *import_box_title(imp *m, const char *kind, size_t n, const char *box)
{
    if (!n || (strlen(box) == n && !strncasecmp(kind, box, n)))
        return NULL;
    char *c = arena_strndup(m->a, kind, n);
    c[0] = (char)toupper((unsigned char)c[0]);
    return c;
}

/* Writes the opening tag of sheaf's box, {{% tip title="…" %}} (a title
 * holding both kinds of quote is left out). */
void import_box_open(buf *out, const char *box, const char *title)
{
    buf_printf(out, "{{%% %s", box);
    if (title && !strchr(title, '"'))
        buf_printf(out, " title=\"%s\"", title);
    else if (title && !strchr(title, '\''))
        buf_printf(out, " title='%s'", title);
    buf_puts(out, " %}}");
}

/* A theme's callout box — hugo-coder's {{< notice tip "Title" >}},
 * hugo-book's {{< hint danger >}}, Docsy's {{% alert title="T"
 * color="warning" %}}, LoveIt's {{< admonition type=tip title="T" >}},
 * Hextra's {{< callout type="error" >}}, a theme's own {{< note >}} — as
 * sheaf's note, tip or warning (NULL when name is none of them), written
 * {{% … %}}: the themes render the inner text as Markdown. *title: the
 * box's title, its own or its kind's name when sheaf's box is another
 * ("Danger"), or NULL. */
const char *import_callout(imp *m, const import_tag_args *t, const char *name, size_t nn, const char **title)
{
    static const char *const names[] = { "notice", "hint", "admonition", "callout", "alert",
                                         "note", "tip", "warning", NULL };
    const char *known = NULL;
    for (const char *const *k = names; *k && !known; k++)
        if (strlen(*k) == nn && !strncmp(*k, name, nn))
            known = *k;
    if (!known)
        return NULL;
    /* alert's bare word names an icon, not a kind; sheaf's own boxes keep
     * their kind and take only a title */
    bool own = !strcmp(known, "note") || !strcmp(known, "tip") || !strcmp(known, "warning");
    bool alert = !strcmp(known, "alert") || own;
    const char *kind = own ? known : NULL, *color = NULL;
    *title = NULL;
    size_t pos = 0;
    for (size_t k = 1; k < t->count; k++) {
        const char *w = t->w[k];
        size_t wn = t->n[k];
        const char *eq = memchr(w, '=', wn);
        if (eq && w[0] != '"' && w[0] != '\'') {
            size_t kn = (size_t)(eq - w);
            const char *v = import_unquote(m, eq + 1, wn - kn - 1, NULL);
            if (kn == 4 && !strncmp(w, "type", 4) && !own)
                kind = v;
            else if (kn == 5 && !strncmp(w, "title", 5))
                *title = v;
            else if (kn == 5 && !strncmp(w, "color", 5))
                color = v;
        } else if (!(wn == 1 && w[0] == '/') && !alert) {
            const char *v = import_unquote(m, w, wn, NULL);
            if (pos == 0)
                kind = v;
            else if (pos == 1)
                *title = v;
            pos++;
        }
    }
    const char *box = import_box_for(kind ? kind : color ? color : "note");
    if (!*title && kind)
        *title = import_box_title(m, kind, strlen(kind), box);
    return box;
}
