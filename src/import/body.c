/* body: the text of an imported page. Jekyll's Liquid and Hugo's
 * shortcodes are read tag by tag; what has a sheaf equivalent is
 * rewritten (links to pages as relative .md links that sheaf checks,
 * highlight blocks as fences, figures and videos as sheaf's shortcodes,
 * which use Hugo's syntax), and every other tag stays as written and is
 * noted with its place. Then Markdown links written root-relative to
 * another page's old URL become relative .md links too. Code blocks and
 * code spans are left alone in that last pass. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>

#include "embed/embed.h"
#include "import/internal.h"
#include "md/mathscan.h"
#include "render/build.h"
#include "site/site.h"
#include "util/text.h"

/* ---- places and paths ------------------------------------------------- */

/* The line and column of byte off of p's body, from a line index made once
 * a page (counting from the top for each note made a post with many
 * Liquid tags quadratic: 40,000 tags took 35 s). */
static void place(imp *m, const import_page *p, size_t off, int *line, int *col)
{
    if (m->lines_of != p->body_src) {
        lines_index(&m->body_lines, p->body_src, p->body_len);
        m->lines_of = p->body_src;
    }
    lines_place(&m->body_lines, off > p->body_len ? p->body_len : off, line, col);
    *line += p->body_line - 1;
}

static void note_at(imp *m, const import_page *p, size_t off, const char *what, size_t wn, const char *todo)
{
    int line, col;
    place(m, p, off, &line, &col);
    /* one line of the construct, at most 60 bytes */
    size_t n = strcspn(what, "\n");
    n = n < wn ? n : wn;
    if (n > 60) {
        n = 57;
        while (n && ((unsigned char)what[n] & 0xc0) == 0x80)
            n--;
    }
    import_note_add(m, p->src_rel, line, col,
                 arena_printf(m->a, "`%.*s%s`", (int)n, what, n < wn ? "…" : ""), todo);
}

const char *import_relative(imp *m, const import_page *from, const char *dest_rel)
{
    const char *a = from->dest_rel, *b = dest_rel;
    /* the common folders */
    size_t common = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/')
            common = i + 1;
    buf r = BUF_INIT;
    for (const char *q = a + common; *q; q++)
        if (*q == '/')
            buf_puts(&r, "../");
    buf_puts(&r, b + common);
    const char *s = arena_strdup(m->a, r.data);
    buf_release(&r);
    return s;
}

/* "/a/b/index.html" → "/a/b/"; the old base path and host taken off */
static size_t url_key(imp *m, const char *url, size_t n, buf *out)
{
    if (m->base_url) {
        size_t bn = strlen(m->base_url);
        if (n >= bn && !strncmp(url, m->base_url, bn)) {
            buf_putc(out, '/');
            buf_put(out, url + bn, n - bn);
            return out->len;
        }
    }
    if (!n || url[0] != '/' || (n > 1 && url[1] == '/'))
        return 0;
    size_t bp = strlen(m->base_path);
    if (bp > 1 && n >= bp && !strncmp(url, m->base_path, bp)) {
        url += bp - 1;
        n -= bp - 1;
    }
    buf_put(out, url, n);
    if (out->len >= 11 && !strcmp(out->data + out->len - 11, "/index.html"))
        buf_truncate(out, out->len - 10);
    return out->len;
}

import_page *import_page_by_url(imp *m, const char *url, size_t n)
{
    buf k = BUF_INIT;
    import_page *r = NULL;
    if (url_key(m, url, n, &k)) {
        for (size_t i = 0; i < m->npages && !r; i++) {
            const char *u = m->pages[i]->old_url;
            if (!u)
                continue;
            size_t un = strlen(u);
            /* "/a/b/" also as "/a/b" */
            if (!strcmp(u, k.data) || (un == k.len + 1 && u[un - 1] == '/' && !strncmp(u, k.data, k.len)))
                r = m->pages[i];
        }
    }
    buf_release(&k);
    return r;
}

import_page *import_page_by_src(imp *m, const char *src_rel, size_t n)
{
    for (size_t i = 0; i < m->npages; i++)
        if (strlen(m->pages[i]->src_rel) == n && !strncmp(m->pages[i]->src_rel, src_rel, n))
            return m->pages[i];
    return NULL;
}

import_file *import_file_by_url(imp *m, const char *url, size_t n)
{
    for (size_t i = 0; i < m->nfiles; i++)
        if (m->files[i].old_url && strlen(m->files[i].old_url) == n && !strncmp(m->files[i].old_url, url, n))
            return &m->files[i];
    return NULL;
}

/* ---- reading tags ----------------------------------------------------- */

/* The words of a tag's inside: name, then arguments (quoted or bare). */
typedef struct tag_args {
    const char *w[16];
    size_t n[16];
    size_t count;
} tag_args;

static void split_args(const char *s, size_t n, tag_args *t)
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

static bool word_is(const tag_args *t, size_t i, const char *s)
{
    return i < t->count && t->n[i] == strlen(s) && !strncmp(t->w[i], s, t->n[i]);
}

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
        tag_args c;
        split_args(s + j + 3, k - (j + 3), &c);
        /* Hugo also reads {{</ name >}} */
        if (word_is(&c, 0, close_name) || (word_is(&c, 0, "/") && word_is(&c, 1, close_name + 1))) {
            *end = s + k + 3;
            return s + j;
        }
    }
    return NULL;
}

/* A quoted argument's text ("x" or 'x'), or a bare word. */
static const char *unquote(imp *m, const char *s, size_t n, bool *quoted)
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
static const char *arg_value(imp *m, const tag_args *t, size_t from, const char *key, bool *literal)
{
    size_t kn = strlen(key);
    for (size_t i = from; i < t->count; i++)
        if (t->n[i] > kn && !strncmp(t->w[i], key, kn) && t->w[i][kn] == '=')
            return unquote(m, t->w[i] + kn + 1, t->n[i] - kn - 1, literal);
    return NULL;
}

static void put_link(imp *m, import_page *p, buf *out, import_page *to, const char *anchor)
{
    /* a page sheaf makes itself (not imported): its URL, which answers */
    if (to->dropped) {
        buf_puts(out, to->old_url ? to->old_url : "/");
        if (anchor)
            buf_puts(out, anchor);
        return;
    }
    buf_puts(out, import_relative(m, p, to->dest_rel));
    if (anchor)
        buf_puts(out, anchor);
    m->nlinks++;
}

/* ---- Jekyll: Liquid --------------------------------------------------- */

static const char *figure_keys[][2] = { { "src", "src" }, { "image", "src" }, { "image_path", "src" },
                                        { "url", "src" }, { "path", "src" }, { "file", "src" },
                                        { "alt", "alt" }, { "caption", "caption" }, { "title", "title" },
                                        { "link", "link" }, { "href", "link" }, { "class", "class" },
                                        { "width", "width" }, { "height", "height" } };

/* {% include figure.html src="…" caption="…" %} → {{< figure … >}}; false
 * when an argument is not a literal (Liquid) */
static bool include_figure(imp *m, const tag_args *t, buf *out)
{
    buf b = BUF_INIT;
    buf_puts(&b, "{{< figure");
    bool any = false;
    for (size_t i = 2; i < t->count; i++) {
        const char *eq = memchr(t->w[i], '=', t->n[i]);
        if (!eq)
            goto no;
        size_t kn = (size_t)(eq - t->w[i]);
        const char *to = NULL;
        for (size_t k = 0; k < sizeof figure_keys / sizeof *figure_keys; k++)
            if (strlen(figure_keys[k][0]) == kn && !strncmp(figure_keys[k][0], t->w[i], kn))
                to = figure_keys[k][1];
        bool lit;
        const char *v = unquote(m, eq + 1, t->n[i] - kn - 1, &lit);
        if (!to || !lit || strchr(v, '"') || strstr(v, "{{"))
            goto no;
        any |= !strcmp(to, "src");
        buf_printf(&b, " %s=\"%s\"", to, v);
    }
    if (!any)
        goto no;
    buf_puts(&b, " >}}");
    buf_put(out, b.data, b.len);
    buf_release(&b);
    return true;
no:
    buf_release(&b);
    return false;
}

/* An include's name is `base` or `base.html`. */
static bool name_is(const char *name, size_t n, const char *base)
{
    /* in a folder of _includes too: Chirpy's embed/youtube.html */
    for (size_t i = n; i-- > 0;)
        if (name[i] == '/') {
            n -= i + 1;
            name += i + 1;
            break;
        }
    size_t b = strlen(base);
    return n >= b && !strncmp(name, base, b) && (n == b || (n == b + 5 && !strncmp(name + b, ".html", 5)));
}

static bool include_youtube(imp *m, const tag_args *t, buf *out)
{
    bool lit = true;
    const char *provider = arg_value(m, t, 2, "provider", &lit);
    if (provider && (!lit || strcmp(provider, "youtube")))
        return false; /* vimeo, … */
    const char *id = NULL;
    static const char *const keys[] = { "id", "video", "youtube_id", "video_id" };
    for (size_t k = 0; k < 4 && !id; k++)
        id = arg_value(m, t, 2, keys[k], &lit);
    if (!id && t->count == 3 && !memchr(t->w[2], '=', t->n[2]))
        id = unquote(m, t->w[2], t->n[2], &lit);
    if (!id || !lit || !*id || strpbrk(id, " \"{}"))
        return false;
    buf_printf(out, "{{< youtube %s >}}", id);
    return true;
}

/* One Liquid tag or output (inner: between the delimiters). Returns true
 * when it wrote its replacement to out. */
static bool liquid(imp *m, import_page *p, const char *inner, size_t n, bool output, buf *out,
                   bool *fence_open)
{
    tag_args t;
    split_args(inner, n, &t);
    if (!t.count)
        return false;
    if (output) {
        /* {{ site.baseurl }}, {{ site.url }}, {{ "/x" | relative_url }} */
        if (t.count == 1 && (word_is(&t, 0, "site.baseurl") || word_is(&t, 0, "site.url"))) {
            m->nvars++;
            return true;
        }
        if (t.count == 3 && t.w[1][0] == '|' && t.n[1] == 1 &&
            (word_is(&t, 2, "relative_url") || word_is(&t, 2, "absolute_url"))) {
            bool lit;
            const char *v = unquote(m, t.w[0], t.n[0], &lit);
            if (lit) {
                buf_puts(out, v);
                m->nvars++;
                return true;
            }
        }
        return false;
    }
    /* a Liquid comment writes nothing: an HTML comment hides it as well */
    if (t.count == 1 && (word_is(&t, 0, "comment") || word_is(&t, 0, "endcomment"))) {
        buf_puts(out, word_is(&t, 0, "comment") ? "<!--" : "-->");
        m->ncomments++;
        return true;
    }
    /* jekyll-youtube and the like: {% youtube ID %} */
    if (word_is(&t, 0, "youtube") && t.count == 2) {
        bool lit;
        const char *id = unquote(m, t.w[1], t.n[1], &lit);
        if (*id && !strpbrk(id, " \"{}")) {
            buf_printf(out, "{{< youtube %s >}}", id);
            m->nshortcodes++;
            return true;
        }
    }
    if (word_is(&t, 0, "highlight") && t.count >= 2) {
        /* {% highlight ruby linenos hl_lines="2 3" %}: sheaf's fence options */
        buf opts = BUF_INIT;
        for (size_t k = 2; k < t.count; k++) {
            if (word_is(&t, k, "linenos") || (t.n[k] > 8 && !strncmp(t.w[k], "linenos=", 8)))
                buf_printf(&opts, "%slinenos=true", opts.len ? ", " : "");
            else if (t.n[k] > 9 && !strncmp(t.w[k], "hl_lines=", 9)) {
                const char *v = unquote(m, t.w[k] + 9, t.n[k] - 9, NULL);
                buf_printf(&opts, "%shl_lines=[", opts.len ? ", " : "");
                tag_args l;
                split_args(v, strlen(v), &l);
                for (size_t q = 0; q < l.count; q++)
                    buf_printf(&opts, "%s\"%.*s\"", q ? ", " : "", (int)l.n[q], l.w[q]);
                buf_putc(&opts, ']');
            }
        }
        buf_printf(out, "```%.*s", (int)t.n[1], t.w[1]);
        if (opts.len)
            buf_printf(out, " {%s}", opts.data);
        buf_release(&opts);
        *fence_open = true;
        m->nhighlight++;
        return true;
    }
    if (word_is(&t, 0, "endhighlight") && *fence_open) {
        buf_puts(out, "```");
        *fence_open = false;
        return true;
    }
    if (word_is(&t, 0, "post_url") && t.count == 2) {
        const char *name = t.w[1];
        size_t nn = t.n[1];
        /* "/2010/2010-07-21-name" (a folder of _posts, as Jekyll 4.3
         * resolves it), "name.md" */
        while (nn && *name == '/')
            name++, nn--;
        size_t ext = site_markdown_ext(arena_strndup(m->a, name, nn));
        nn -= ext;
        import_page *to = import_jekyll_post_url(m, name, nn);
        for (size_t q = nn; !to && q-- > 0;)
            if (name[q] == '/') {
                to = import_jekyll_post_url(m, name + q + 1, nn - q - 1);
                break;
            }
        if (to) {
            put_link(m, p, out, to, NULL);
            return true;
        }
        return false;
    }
    if (word_is(&t, 0, "link") && t.count == 2) {
        import_page *to = import_page_by_src(m, t.w[1], t.n[1]);
        if (to) {
            put_link(m, p, out, to, NULL);
            return true;
        }
        for (size_t i = 0; i < m->nfiles; i++)
            if (strlen(m->files[i].src_rel) == t.n[1] && !strncmp(m->files[i].src_rel, t.w[1], t.n[1]) &&
                m->files[i].old_url) {
                buf_puts(out, m->files[i].old_url);
                m->nlinks++;
                return true;
            }
        return false;
    }
    if ((word_is(&t, 0, "include") || word_is(&t, 0, "include_cached")) && t.count >= 2) {
        const char *name = t.w[1];
        size_t nn = t.n[1];
        /* figure.html, or "figure" as Minimal Mistakes names its includes */
        if (name_is(name, nn, "figure") || name_is(name, nn, "image")) {
            if (include_figure(m, &t, out)) {
                m->nshortcodes++;
                return true;
            }
        } else if (name_is(name, nn, "youtube") || name_is(name, nn, "video")) {
            if (include_youtube(m, &t, out)) {
                m->nshortcodes++;
                return true;
            }
        }
    }
    return false;
}

static const char *liquid_todo(const char *inner, size_t n, bool output)
{
    while (n && isspace((unsigned char)*inner))
        inner++, n--;
    if (output)
        return "a Liquid value: sheaf does not run templates in pages; write the value out";
    if (n >= 8 && !strncmp(inner, "post_url", 8))
        return "no such post: link to its file (`../posts/…md`)";
    if (n >= 4 && !strncmp(inner, "link", 4))
        return "no such file in the site: write the link by hand";
    if (n >= 7 && !strncmp(inner, "include", 7))
        return "a Liquid include: sheaf does not run templates in pages; paste its HTML, or write a "
               "shortcode (templates/shortcodes/NAME.html) and call it as {{< NAME >}}";
    return "a Liquid tag: sheaf does not run templates in pages; write out what it made";
}

static const char *box_for(const char *kind);
static const char *box_title(imp *m, const char *kind, size_t n, const char *box);
static void open_box(buf *out, const char *box, const char *title);

/* The Liquid block tag {% endNAME %} after s[from]: where it starts, *end
 * past it; NULL when there is none. */
static const char *liquid_end(const char *s, size_t n, size_t from, const char *name, size_t nn,
                              const char **end)
{
    for (size_t j = from; j + 1 < n; j++) {
        if (s[j] != '{' || s[j + 1] != '%')
            continue;
        const char *c = memmem(s + j + 2, n - j - 2, "%}", 2);
        if (!c)
            return NULL;
        tag_args t;
        const char *in = s + j + 2;
        size_t inn = (size_t)(c - in);
        if (inn && *in == '-')
            in++, inn--;
        if (inn && in[inn - 1] == '-')
            inn--;
        split_args(in, inn, &t);
        if (t.count == 1 && t.n[0] == nn + 3 && !strncmp(t.w[0], "end", 3) && !strncmp(t.w[0] + 3, name, nn)) {
            *end = c + 2;
            return s + j;
        }
    }
    return NULL;
}

/* jekyll-figure: {% figure caption:"…" %}![alt](src){% endfigure %} →
 * sheaf's figure, when its inside is one image; false otherwise. */
static bool liquid_figure(imp *m, const tag_args *t, const char *in, size_t n, buf *out)
{
    while (n && isspace((unsigned char)*in))
        in++, n--;
    while (n && isspace((unsigned char)in[n - 1]))
        n--;
    if (n < 6 || in[0] != '!' || in[1] != '[' || in[n - 1] != ')')
        return false;
    const char *cb = memchr(in, ']', n);
    if (!cb || cb[1] != '(' || memchr(in, '\n', n) || memchr(in, '"', (size_t)(cb - in)))
        return false;
    const char *src = cb + 2;
    size_t sn = strcspn(src, " )");
    const char *caption = NULL, *cls = NULL;
    for (size_t k = 1; k < t->count; k++) {
        if (t->n[k] > 8 && !strncmp(t->w[k], "caption:", 8))
            caption = unquote(m, t->w[k] + 8, t->n[k] - 8, NULL);
        else if (t->n[k] > 6 && !strncmp(t->w[k], "class:", 6))
            cls = unquote(m, t->w[k] + 6, t->n[k] - 6, NULL);
    }
    if ((caption && strchr(caption, '"')) || (cls && strchr(cls, '"')) || memchr(src, '"', sn))
        return false;
    buf_printf(out, "{{< figure src=\"%.*s\"", (int)sn, src);
    if (cb > in + 2)
        buf_printf(out, " alt=\"%.*s\"", (int)(cb - in - 2), in + 2);
    if (caption)
        buf_printf(out, " caption=\"%s\"", caption);
    if (cls)
        buf_printf(out, " class=\"%s\"", cls);
    buf_puts(out, " >}}");
    return true;
}

/* A box plugin's tag ({% notice info %}, {% alert warning %}, {% callout
 * tip %}, {% admonition note "Title" %}, …): sheaf's box and its title. */
/* The box plugins' tags ({% notice %}…{% endnotice %} and the like). */
static const char *const box_tags[] = { "notice", "alert", "callout", "admonition", "note", "tip",
                                        "warning", "info", "danger", "important", "caution", NULL };

/* Is t a block tag the import converts (a figure or a box), so that its
 * end tag is worth looking for? */
static bool liquid_block(const tag_args *t)
{
    if (word_is(t, 0, "figure"))
        return true;
    for (const char *const *k = box_tags; *k; k++)
        if (word_is(t, 0, *k))
            return true;
    return false;
}

/* The last end-tag search for each name: the first {% endNAME %} at or
 * after `from` is `pair` (NULL: none), so a later search from a place
 * before `pair` has the same answer, and after a NULL one none has — a
 * body of many unclosed block tags is read once, not once a tag. */
typedef struct end_memo {
    const char *name;
    size_t nn, from;
    const char *pair, *pe;
} end_memo;

static const char *liquid_end_memo(end_memo *memo, size_t nmemo, const char *s, size_t n, size_t from,
                                   const char *name, size_t nn, const char **end)
{
    end_memo *slot = NULL;
    for (size_t k = 0; k < nmemo && !slot; k++)
        if (memo[k].name && memo[k].nn == nn && !strncmp(memo[k].name, name, nn))
            slot = &memo[k];
    if (slot && slot->from <= from && (!slot->pair || slot->pair >= s + from)) {
        *end = slot->pe;
        return slot->pair;
    }
    if (!slot) { /* a free slot, else the first (names are few) */
        slot = &memo[0];
        for (size_t k = 0; k < nmemo; k++)
            if (!memo[k].name) {
                slot = &memo[k];
                break;
            }
    }
    const char *pe = NULL, *pair = liquid_end(s, n, from, name, nn, &pe);
    *slot = (end_memo){ name, nn, from, pair, pe };
    *end = pe;
    return pair;
}

static const char *liquid_box(imp *m, const tag_args *t, const char **title)
{
    bool known = false;
    for (const char *const *k = box_tags; *k && !known; k++)
        known = word_is(t, 0, *k);
    if (!known || t->count > 3)
        return NULL;
    const char *kind = t->count >= 2 ? unquote(m, t->w[1], t->n[1], NULL)
                                     : arena_strndup(m->a, t->w[0], t->n[0]);
    if (strchr(kind, '=') || strchr(kind, ':'))
        return NULL;
    const char *box = box_for(kind);
    *title = t->count == 3 ? unquote(m, t->w[2], t->n[2], NULL) : box_title(m, kind, strlen(kind), box);
    return box;
}

static void convert_jekyll(imp *m, import_page *p, buf *out)
{
    const char *s = p->body_src;
    size_t n = p->body_len, i = 0;
    bool raw = false, fence = false;
    /* the boxes open: where each one's end tag starts, and its closing */
    struct {
        size_t at, after;
        const char *box;
    } boxes[16];
    size_t nboxes = 0;
    end_memo memo[8] = { { 0 } };
    while (i < n) {
        bool tag = i + 1 < n && s[i] == '{' && s[i + 1] == '%';
        bool val = i + 1 < n && s[i] == '{' && s[i + 1] == '{';
        if (!tag && !val) {
            buf_putc(out, s[i++]);
            continue;
        }
        const char *close = tag ? "%}" : "}}";
        const char *end = NULL;
        for (size_t j = i + 2; j + 1 < n && !end; j++)
            if (s[j] == close[0] && s[j + 1] == close[1])
                end = s + j;
        if (!end) {
            buf_putc(out, s[i++]);
            continue;
        }
        const char *inner = s + i + 2;
        size_t inn = (size_t)(end - inner);
        /* whitespace control: {%- … -%} */
        if (inn && *inner == '-')
            inner++, inn--;
        if (inn && inner[inn - 1] == '-')
            inn--;
        size_t after = (size_t)(end - s) + 2;
        tag_args t;
        split_args(inner, inn, &t);
        if (tag && (word_is(&t, 0, "raw") || word_is(&t, 0, "endraw"))) {
            raw = word_is(&t, 0, "raw");
            m->nraw++;
            /* the tag alone on its line goes with its line */
            bool bol = i == 0 || s[i - 1] == '\n';
            if (bol && after < n && s[after] == '\n')
                after++;
            i = after;
            continue;
        }
        if (raw) {
            buf_put(out, s + i, after - i);
            i = after;
            continue;
        }
        if (tag && nboxes && boxes[nboxes - 1].at == i) {
            nboxes--;
            buf_printf(out, "{{%% /%s %%}}", boxes[nboxes].box);
            i = boxes[nboxes].after;
            continue;
        }
        const char *pe = NULL, *pair = NULL;
        if (tag && t.count && liquid_block(&t) && (word_is(&t, 0, "figure") || nboxes < 16))
            pair = liquid_end_memo(memo, sizeof memo / sizeof *memo, s, n, after, t.w[0], t.n[0], &pe);
        if (pair && word_is(&t, 0, "figure") && liquid_figure(m, &t, s + after, (size_t)(pair - s) - after, out)) {
            m->nshortcodes++;
            i = (size_t)(pe - s);
            continue;
        }
        const char *title = NULL, *box = pair && nboxes < 16 ? liquid_box(m, &t, &title) : NULL;
        if (box && (!nboxes || boxes[nboxes - 1].at > (size_t)(pair - s))) {
            open_box(out, box, title);
            boxes[nboxes].at = (size_t)(pair - s);
            boxes[nboxes].after = (size_t)(pe - s);
            boxes[nboxes++].box = box;
            m->nshortcodes++;
            i = after;
            continue;
        }
        if (!liquid(m, p, inner, inn, val, out, &fence)) {
            note_at(m, p, i, s + i, after - i, liquid_todo(inner, inn, val));
            buf_put(out, s + i, after - i);
        }
        i = after;
    }
}

/* ---- Hugo: shortcodes ------------------------------------------------- */

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

static size_t fence_at(const char *s, size_t n, size_t i, char *ch);
static size_t code_span_end(const char *s, size_t n, size_t i);

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
static bool sheaf_args(imp *m, import_page *p, size_t at, const tag_args *given, char open, char close,
                       buf *out)
{
    const embed_file *tpl =
        embed_find(arena_printf(m->a, "templates/shortcodes/%.*s.html", (int)given->n[0], given->w[0]));
    if (!tpl)
        return false;
    bool drop[16] = { false }, any = false;
    /* hugo-book's details: title="…" is sheaf's summary, a bare `open` its open=true */
    tag_args u = *given;
    const tag_args *t = &u;
    if (word_is(t, 0, "details"))
        for (size_t k = 1; k < u.count; k++) {
            if (u.n[k] > 6 && !strncmp(u.w[k], "title=", 6)) {
                u.w[k] = arena_printf(m->a, "summary=%.*s", (int)u.n[k] - 6, u.w[k] + 6);
                u.n[k] += 2;
                any = true;
            } else if (word_is(t, k, "open")) {
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
            note_at(m, p, at, t->w[k], t->n[k],
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

/* sheaf's box for a kind of callout: tip, success → tip; warning, caution,
 * danger, error, bug, important → warning; any other (note, info,
 * question, example …) → note. */
static const char *box_for(const char *kind)
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
static const char *box_title(imp *m, const char *kind, size_t n, const char *box)
{
    if (!n || (strlen(box) == n && !strncasecmp(kind, box, n)))
        return NULL;
    char *c = arena_strndup(m->a, kind, n);
    c[0] = (char)toupper((unsigned char)c[0]);
    return c;
}

/* Writes the opening tag of sheaf's box, {{% tip title="…" %}} (a title
 * holding both kinds of quote is left out). */
static void open_box(buf *out, const char *box, const char *title)
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
static const char *callout(imp *m, const tag_args *t, const char *name, size_t nn, const char **title)
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
            const char *v = unquote(m, eq + 1, wn - kn - 1, NULL);
            if (kn == 4 && !strncmp(w, "type", 4) && !own)
                kind = v;
            else if (kn == 5 && !strncmp(w, "title", 5))
                *title = v;
            else if (kn == 5 && !strncmp(w, "color", 5))
                color = v;
        } else if (!(wn == 1 && w[0] == '/') && !alert) {
            const char *v = unquote(m, w, wn, NULL);
            if (pos == 0)
                kind = v;
            else if (pos == 1)
                *title = v;
            pos++;
        }
    }
    const char *box = box_for(kind ? kind : color ? color : "note");
    if (!*title && kind)
        *title = box_title(m, kind, strlen(kind), box);
    return box;
}

/* Past a line's indent of up to three spaces. */
static size_t indent_end(const char *s, size_t i, size_t e)
{
    size_t k = i;
    while (k < e && k - i < 3 && s[k] == ' ')
        k++;
    return k;
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
        size_t g = fence_at(s, n, i, &c);
        if (g && c == ch && g >= f) {
            while (i < n && s[i] != '\n')
                i++;
            return i + (i < n);
        }
    }
}

static void convert_hugo(imp *m, import_page *p, buf *out)
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
                size_t ls = indent_end(s, i, le), lz = le;
                while (lz > ls && (s[lz - 1] == ' ' || s[lz - 1] == '\r'))
                    lz--;
                if (lz - ls == 5 && !strncmp(s + ls, "<--->", 5)) {
                    i = le + (le < n);
                    continue;
                }
            }
            char ch = 0;
            size_t f = fence_at(s, n, i, &ch);
            if (f) {
                size_t e = fence_block_end(s, n, i, ch, f);
                code_text(s + i, e - i, out);
                i = e;
                continue;
            }
        }
        if (s[i] == '`') {
            size_t e = code_span_end(s, n, i);
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
        tag_args t;
        split_args(inner, inn, &t);
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
        bool self_closing = inn && (inner[inn - 1] == '/' || (t.count > 1 && word_is(&t, t.count - 1, "/")));
        if (closing && nrenamed && renamed[nrenamed - 1].at == i) {
            nrenamed--;
            buf_puts(out, renamed[nrenamed].text);
            ncolumns -= renamed[nrenamed].columns;
            i = after;
            continue;
        }
        const char *box_title = NULL;
        const char *box = closing || self_closing ? NULL : callout(m, &t, name, nn, &box_title);
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
            const char *target = unquote(m, t.w[1], t.n[1], &lit);
            const char *hash = strchr(target, '#');
            size_t tn = hash ? (size_t)(hash - target) : strlen(target);
            /* "#anchor" alone: this page */
            import_page *to = tn ? import_hugo_ref(m, p, target, tn) : hash ? p : NULL;
            if (to) {
                if (to == p && !tn)
                    buf_puts(out, hash);
                else
                    put_link(m, p, out, to, hash);
                i = after;
                continue;
            }
            note_at(m, p, i, s + i, after - i, "no such page: write the link by hand");
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
            note_at(m, p, i, s + i, after - i, "no closing {{< /highlight >}}: write a fenced code block");
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
                display |= word_is(&t, k, "display") || word_is(&t, k, "block") ||
                           word_is(&t, k, "display=true") || word_is(&t, k, "display=\"true\"");
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
            open_box(out, box, box_title);
            renamed[nrenamed].at = (size_t)(box_close - s);
            renamed[nrenamed].columns = false;
            renamed[nrenamed++].text = arena_printf(m->a, "{{%% /%s %%}}", box);
            m->nshortcodes++;
            i = after;
            continue;
        } else if (wrap_close && nn == 6 && !strncmp(name, "button", 6)) {
            /* hugo-book's button: a link, its text the button's */
            const char *href = arg_value(m, &t, 1, "href", NULL);
            const char *ref = arg_value(m, &t, 1, "relref", NULL);
            ref = ref ? ref : arg_value(m, &t, 1, "ref", NULL);
            buf_putc(out, '[');
            buf_put(out, s + after, (size_t)(wrap_close - s) - after);
            buf_puts(out, "](");
            import_page *to = ref && *ref ? import_hugo_ref(m, p, ref, strcspn(ref, "#")) : NULL;
            if (to)
                put_link(m, p, out, to, strchr(ref, '#'));
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
            const char *label = tab ? arg_value(m, &t, 1, "name", NULL) : NULL;
            label = label || !tab ? label : arg_value(m, &t, 1, "header", NULL);
            label = label || !tab || t.count < 2 || memchr(t.w[1], '=', t.n[1]) ? label
                                                                               : unquote(m, t.w[1], t.n[1], NULL);
            const char *lang = tab ? arg_value(m, &t, 1, "lang", NULL) : NULL;
            if (label && *label)
                buf_printf(out, "**%s**\n", label);
            if (lang && *lang)
                buf_printf(out, "\n```%s\n", lang);
            renamed[nrenamed].at = (size_t)(wrap_close - s);
            renamed[nrenamed].columns = nn == 7 && !strncmp(name, "columns", 7);
            renamed[nrenamed++].text = lang && *lang ? "\n```\n" : "";
            ncolumns += nn == 7 && !strncmp(name, "columns", 7);
            if (!tab) /* noted once, at its tabs */
                note_at(m, p, i, s + i, after - i,
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
            note_at(m, p, i, s + i, after - i,
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
                note_at(m, p, i, s + i, after - i,
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

/* ---- root-relative links ---------------------------------------------- */

/* Whether i starts a fenced code block line; its fence char and length. */
static size_t fence_at(const char *s, size_t n, size_t i, char *ch)
{
    size_t k = i;
    while (k < n && k - i < 3 && s[k] == ' ')
        k++;
    if (k < n && (s[k] == '`' || s[k] == '~')) {
        size_t r = k;
        while (r < n && s[r] == s[k])
            r++;
        if (r - k >= 3) {
            *ch = s[k];
            return r - k;
        }
    }
    return 0;
}

/* A fence line (f chars ch) opens a code block, or closes the open one
 * (*flen chars *fch; 0 when none is open): whether it did, with the state
 * updated. */
static bool fence_toggle(size_t f, char ch, size_t *flen, char *fch)
{
    if (!f || (*flen && (ch != *fch || f < *flen)))
        return false;
    *flen = *flen ? 0 : f;
    *fch = ch;
    return true;
}

/* The end of the code span opening at s[i] (a run of backticks): past
 * its closing run, or past the opening run when there is none. */
static size_t code_span_end(const char *s, size_t n, size_t i)
{
    size_t r = i;
    while (r < n && s[r] == '`')
        r++;
    size_t run = r - i, j = r;
    while (j < n) {
        if (s[j] == '`') {
            size_t q = j;
            while (q < n && s[q] == '`')
                q++;
            if (q - j == run)
                return q;
            j = q;
        } else {
            j++;
        }
    }
    return r;
}

/* A URL relative to the page's old one ("../b/" in /posts/a/ is
 * /posts/b/), resolved as a browser does; NULL for one with a scheme, a
 * fragment or query alone, a Markdown file (sheaf reads that relative to
 * the source itself), or one climbing above the root. */
static const char *resolve_relative(imp *m, const import_page *p, const char *u, size_t n)
{
    if (!n || !p->old_url || strchr("/#?", u[0]) || site_markdown_ext(arena_strndup(m->a, u, n)))
        return NULL;
    size_t colon = strcspn(arena_strndup(m->a, u, n), ":/");
    if (colon < n && u[colon] == ':')
        return NULL;
    const char *base = p->old_url;
    size_t dir = (size_t)(strrchr(base, '/') - base); /* old URLs start with '/' */
    buf b = BUF_INIT;
    buf_put(&b, base, dir);
    size_t at = 0;
    while (at < n) {
        size_t k = at;
        while (k < n && u[k] != '/')
            k++;
        size_t sn = k - at;
        if (sn == 2 && u[at] == '.' && u[at + 1] == '.') {
            if (!b.len) {
                buf_release(&b);
                return NULL;
            }
            while (b.len && b.data[b.len - 1] != '/')
                b.len--;
            b.len--; /* the '/' */
        } else if (!(sn == 1 && u[at] == '.') && sn) {
            buf_putc(&b, '/');
            buf_put(&b, u + at, sn);
        }
        at = k + 1;
    }
    /* "x/", "x/." and "x/.." name a folder */
    if (u[n - 1] == '/' || u[n - 1] == '.' || !b.len)
        buf_putc(&b, '/');
    const char *r = arena_strndup(m->a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* A link destination starting at s[i] (after "](" or "]: "): rewritten when
 * it is an old URL of a page, root-relative, absolute or relative to the
 * page's old URL. */
static size_t link_dest(imp *m, import_page *p, const char *s, size_t n, size_t i, buf *out)
{
    size_t e = i;
    while (e < n && !isspace((unsigned char)s[e]) && s[e] != ')')
        e++;
    size_t un = e - i;
    const char *hash = memchr(s + i, '#', un);
    size_t pn = hash ? (size_t)(hash - (s + i)) : un;
    import_page *to = NULL;
    if (pn && (s[i] == '/' || (m->base_url && !strncmp(s + i, m->base_url, strlen(m->base_url))))) {
        to = import_page_by_url(m, s + i, pn);
    } else if (pn && !memchr(s + i, '?', pn)) {
        const char *abs = resolve_relative(m, p, s + i, pn);
        to = abs ? import_page_by_url(m, abs, strlen(abs)) : NULL;
    }
    if (!to)
        return 0;
    put_link(m, p, out, to, hash ? arena_strndup(m->a, hash, un - pn) : NULL);
    return un;
}

static void relink(imp *m, import_page *p, const char *s, size_t n, buf *out)
{
    size_t i = 0;
    char fch = 0;
    size_t flen = 0;
    bool bol = true;
    while (i < n) {
        if (bol) {
            char ch = 0;
            size_t f = fence_at(s, n, i, &ch);
            if (!fence_toggle(f, ch, &flen, &fch) && !flen) {
                /* [label]: /url */
                size_t k = indent_end(s, i, n);
                if (k < n && s[k] == '[') {
                    const char *c = memchr(s + k, ']', n - k);
                    if (c && (size_t)(c - s) + 2 < n && c[1] == ':' && c[2] == ' ') {
                        size_t d = (size_t)(c - s) + 3;
                        while (d < n && s[d] == ' ')
                            d++;
                        buf_put(out, s + i, d - i);
                        size_t used = link_dest(m, p, s, n, d, out);
                        i = d + used;
                        bol = false;
                        continue;
                    }
                }
            }
        }
        bol = s[i] == '\n';
        if (flen) {
            buf_putc(out, s[i++]);
            continue;
        }
        if (s[i] == '`') {
            /* a code span: as written */
            size_t stop = code_span_end(s, n, i);
            buf_put(out, s + i, stop - i);
            i = stop;
            continue;
        }
        if (s[i] == ']' && i + 1 < n && s[i + 1] == '(') {
            buf_puts(out, "](");
            i += 2;
            i += link_dest(m, p, s, n, i, out);
            continue;
        }
        buf_putc(out, s[i++]);
    }
}

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

static void kramdown_notes(imp *m, import_page *p)
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
        size_t f = fence_at(s, n, i, &ch);
        size_t k = indent_end(s, i, e);
        const char *kind = NULL;
        size_t nkind = 0;
        ial_kind t = flen || f ? IAL_NONE : block_ial(s, k, e, &kind, &nkind);
        fence_toggle(f, ch, &flen, &fch);
        if (t == IAL_TOC) {
            note_at(m, p, k, s + k, e - k,
                    "removed (with the list item above it): sheaf's theme shows a table of contents on a page "
                    "with three headings or more");
        } else if (t == IAL_ATTRS ||
                   (t == IAL_PROMPT && !(have_prev && (quote_line(s, indent_end(s, prev, i), i) ||
                                                       para_line(s, indent_end(s, prev, i), i - 1))))) {
            note_at(m, p, k, s + k, e - k,
                    "removed: a kramdown attribute list (classes and attributes of the element above), which "
                    "sheaf's Markdown has no syntax for; write the element as HTML where they matter");
        } else if (!flen && !f && t == IAL_NONE) {
            for (size_t j = k; j < e; j++) {
                if (s[j] == '`') {
                    j = code_span_end(s, e, j) - 1;
                    continue;
                }
                size_t z = span_ial(s, j, e);
                bool sized = z && s[j - 1] == ')' && memmem(s + k, j - k, "![", 2) &&
                             (ial_value(m, s + j, z - j, "width") || ial_value(m, s + j, z - j, "height"));
                if (z && !sized) {
                    note_at(m, p, j, s + j, z - j,
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
            i = code_span_end(s, z, i) - 1;
        else if (s[i] == '|')
            cells++;
    }
    return cells;
}

/* Whether s[a..z) is a separator row: pipes, dashes, colons, '+' and
 * spaces, with a dash ("|---|:-:|", kramdown's "|---+---"). */
static bool separator_row(const char *s, size_t a, size_t z)
{
    bool dash = false;
    for (size_t i = a; i < z; i++) {
        if (s[i] == '-')
            dash = true;
        else if (!strchr("|:+ \t\r", s[i]))
            return false;
    }
    return dash && s[a] == '|';
}

/* The lines of text s with what kramdown reads and CommonMark would not
 * made CommonMark: a display `$$` block in a list item whose lines sit
 * less indented than its opener (or on tabs) indented as its opener; a
 * table without a separator row (given an empty header) or with one of
 * fewer cells than its first row (completed), separators between body
 * rows dropped; a line holding only `<br/>` before Markdown given a blank
 * line (else it opens an HTML block that swallows the Markdown after it). */
static void kramdown_blocks(imp *m, const char *s, size_t n, buf *out)
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
        size_t f = fence_at(s, n, i, &ch);
        bool code = flen || f;
        fence_toggle(f, ch, &flen, &fch);
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
                /* the body rows; kramdown's separators between them go */
                for (size_t a = sep2 ? se + (se < n) : next; a < rows_end;) {
                    size_t b = a, bt;
                    while (b < n && s[b] != '\n')
                        b++;
                    line_indent(s, a, b, &bt);
                    if (!separator_row(s, bt, b))
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
                        import_rewrite_add(m, p->src_rel, arena_printf(m->a, "%s%s}", w, envs[k][0]),
                                           arena_printf(m->a, "%s%s} (in inline math)", w, envs[k][1]));
                    i += wn + en;
                    done = true;
                }
            }
        if (!done)
            buf_putc(out, tex[i]);
    }
}

static void kramdown_convert(imp *m, const import_page *p, const char *s, size_t n, buf *out)
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
        size_t f = fence_at(s, n, i, &ch);
        size_t k = indent_end(s, i, e);
        const char *kind = NULL;
        size_t nkind = 0;
        bool code = flen || f;
        ial_kind t = code ? IAL_NONE : block_ial(s, k, e, &kind, &nkind);
        fence_toggle(f, ch, &flen, &fch);
        size_t line_start = out->len;
        if (t == IAL_PROMPT && (quote != SIZE_MAX || para != SIZE_MAX)) {
            /* > text … {: .prompt-tip } (Chirpy), text … {: .notice--info }
             * (Minimal Mistakes) → {{% tip %}} text … {{% /tip %}} */
            size_t from = quote != SIZE_MAX ? quote : para;
            buf q = BUF_INIT;
            buf_put(&q, out->data + from, out->len - from);
            buf_truncate(out, from);
            const char *box = box_for(arena_strndup(m->a, kind, nkind));
            const char *title = box_title(m, kind, nkind, box);
            open_box(out, box, title);
            buf_putc(out, '\n');
            for (size_t a = 0; a < q.len;) {
                size_t b = a;
                while (b < q.len && q.data[b] != '\n')
                    b++;
                size_t c = indent_end(q.data, a, b);
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
                    size_t z = code_span_end(s, e, j);
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

/* ---- kramdown's heading ids ------------------------------------------- */

/* kramdown's automatic id of a heading's raw text (its converter's
 * basic_generate_id: leading characters up to the first ASCII letter go,
 * then all but ASCII letters, digits, spaces and '-', spaces become '-',
 * lower case), or with `input: GFM` kramdown-parser-gfm's (lower case,
 * all but word characters, '-', spaces and tabs go, spaces and tabs become
 * '-'). Empty: "section". */
static void kramdown_id(const char *t, size_t n, bool gfm, buf *out)
{
    size_t i = 0;
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

/* Every ATX heading whose kramdown id differs from the one sheaf gives it
 * written `## Title {#sheaf-id #kramdown-id}`: links written for the old
 * id still land on it. */
static void kramdown_heading_ids(imp *m, const char *s, size_t n, buf *out)
{
    const tpl_map *c = m->old_config;
    tpl_value k = c ? import_get(c, "kramdown") : tpl_undefined();
    const tpl_map *km = k.kind == TPL_MAP ? k.u.map : NULL;
    tpl_value auto_ids = km ? import_get(km, "auto_ids") : tpl_undefined();
    const char *input = km ? import_get_str(km, "input") : NULL;
    bool gfm = input && !strcasecmp(input, "GFM");
    if (auto_ids.kind == TPL_BOOL && !auto_ids.u.b) {
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
        size_t f = fence_at(s, n, i, &ch);
        bool code = flen || f;
        fence_toggle(f, ch, &flen, &fch);
        size_t h = indent_end(s, i, e), level = 0;
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
        /* kramdown's id, made unique as kramdown does (x, x-1, …) */
        buf_reset(&kid);
        kramdown_id(s + a, z - a, gfm, &kid);
        size_t seen = id_count(&kids, kid.data, kid.len);
        buf_printf(&kids, "%s\n", kid.data);
        if (seen)
            buf_printf(&kid, "-%zu", seen);
        /* sheaf's: the slug of the plain text (links' text, no markup) */
        buf_reset(&plain);
        for (size_t q = a; q < z; q++) {
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
            plain_id &= kid.data[q] > ' ' && !strchr("{}#", kid.data[q]);
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

/* ---- formulas --------------------------------------------------------- */

/* The TeX of every formula (sheaf's delimiters, md/mathscan.h; code left
 * alone) through import_tex_fix: what MathJax read and KaTeX would not. */
static void fix_formulas(imp *m, import_page *p, const char *s, size_t n, bool kramdown, buf *out)
{
    size_t flen = 0;
    char fch = 0, closer = 0; /* closer: in a display block, its closer */
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '\n')
            e++;
        size_t next = e + (e < n), k = i;
        while (k < e && (s[k] == ' ' || s[k] == '\t' || s[k] == '>'))
            k++;
        char ch = 0;
        size_t f = closer ? 0 : fence_at(s, n, i, &ch);
        bool was_code = flen != 0;
        fence_toggle(f, ch, &flen, &fch);
        if (f || was_code) {
            buf_put(out, s + i, next - i);
            i = next;
            continue;
        }
        size_t olen, tail;
        bool closed;
        char c;
        if (closer) {
            import_tex_fix(m, p, s + i, e - i, m->math_escapes, out);
            if (md_math_block_closes(s + k, e - k, closer, &tail))
                closer = 0;
        } else if (md_math_block_open(s + k, e - k, &c, &olen, &closed)) {
            import_tex_fix(m, p, s + i, e - i, m->math_escapes, out);
            closer = closed ? 0 : c;
        } else {
            /* inline formulas: in the paragraph, up to a blank line */
            const char *para = memmem(s + i, n - i, "\n\n", 2);
            size_t pn = para ? (size_t)(para - s) : n;
            size_t j = i;
            while (j < e) {
                if (s[j] == '`') {
                    size_t z = code_span_end(s, e, j);
                    buf_put(out, s + j, z - j);
                    j = z;
                    continue;
                }
                md_math_span sp;
                bool esc = j > 0 && s[j - 1] == '\\';
                bool found = false, text = false;
                if (s[j] == '\\' && (m->math_escapes || kramdown) && md_math_scan_escaped(s, pn, j, &sp))
                    found = text = kramdown;
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
                        import_rewrite_add(m, p->src_rel, arena_strndup(m->a, tex, sp.tex_len),
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
                if (j > e) {
                    /* the formula ran over lines: go on from its end */
                    e = j;
                    while (e < n && s[e] != '\n')
                        e++;
                    next = e + (e < n);
                }
            }
            buf_put(out, s + e, next - e);
            i = next;
            continue;
        }
        buf_put(out, s + e, next - e);
        i = next;
    }
}

void import_convert_body(imp *m, import_page *p, bool jekyll)
{
    buf mid = BUF_INIT;
    if (jekyll && p->no_liquid)
        buf_put(&mid, p->body_src, p->body_len);
    else if (jekyll)
        convert_jekyll(m, p, &mid);
    else
        convert_hugo(m, p, &mid);
    if (jekyll) {
        kramdown_notes(m, p);
        buf linked = BUF_INIT;
        relink(m, p, mid.data, mid.len, &linked);
        buf blocks = BUF_INIT;
        kramdown_blocks(m, linked.data, linked.len, &blocks);
        buf_release(&linked);
        buf kd = BUF_INIT;
        kramdown_convert(m, p, blocks.data, blocks.len, &kd);
        buf_release(&blocks);
        buf_reset(&blocks);
        kramdown_heading_ids(m, kd.data, kd.len, &blocks);
        buf_release(&kd);
        kd = blocks;
        buf_release(&mid);
        mid = kd;
    } else {
        buf linked = BUF_INIT;
        relink(m, p, mid.data, mid.len, &linked);
        buf_release(&mid);
        mid = linked;
    }
    if (m->math_on)
        fix_formulas(m, p, mid.data, mid.len, jekyll, &p->body);
    else
        buf_put(&p->body, mid.data, mid.len);
    buf_release(&mid);
}
