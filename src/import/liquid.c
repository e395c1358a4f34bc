/* import/liquid.c: a Jekyll page's Liquid, tag by tag. What has a sheaf
 * equivalent is rewritten (post_url and link as relative .md links,
 * highlight blocks as fences, figure and video includes and plugin tags as
 * sheaf's shortcodes, box plugins as sheaf's boxes, raw as its text); every
 * other tag stays as written and is noted with its place. kramdown's own
 * syntax is kramdown.c's. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "import/internal.h"
#include "site/site.h"

static const char *figure_keys[][2] = { { "src", "src" }, { "image", "src" }, { "image_path", "src" },
                                        { "url", "src" }, { "path", "src" }, { "file", "src" },
                                        { "alt", "alt" }, { "caption", "caption" }, { "title", "title" },
                                        { "link", "link" }, { "href", "link" }, { "class", "class" },
                                        { "width", "width" }, { "height", "height" } };

/* {% include figure.html src="…" caption="…" %} → {{< figure … >}}; false
 * when an argument is not a literal (Liquid) */
static bool include_figure(imp *m, const import_tag_args *t, buf *out)
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
        const char *v = import_unquote(m, eq + 1, t->n[i] - kn - 1, &lit);
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

static bool include_youtube(imp *m, const import_tag_args *t, buf *out)
{
    bool lit = true;
    const char *provider = import_tag_arg(m, t, 2, "provider", &lit);
    if (provider && (!lit || strcmp(provider, "youtube")))
        return false; /* vimeo, … */
    const char *id = NULL;
    static const char *const keys[] = { "id", "video", "youtube_id", "video_id" };
    for (size_t k = 0; k < 4 && !id; k++)
        id = import_tag_arg(m, t, 2, keys[k], &lit);
    if (!id && t->count == 3 && !memchr(t->w[2], '=', t->n[2]))
        id = import_unquote(m, t->w[2], t->n[2], &lit);
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
    import_tag_args t;
    import_tag_split(inner, n, &t);
    if (!t.count)
        return false;
    if (output) {
        /* {{ site.baseurl }}, {{ site.url }}, {{ "/x" | relative_url }} */
        if (t.count == 1 && (import_tag_word_is(&t, 0, "site.baseurl") || import_tag_word_is(&t, 0, "site.url"))) {
            m->nvars++;
            return true;
        }
        if (t.count == 3 && t.w[1][0] == '|' && t.n[1] == 1 &&
            (import_tag_word_is(&t, 2, "relative_url") || import_tag_word_is(&t, 2, "absolute_url"))) {
            bool lit;
            const char *v = import_unquote(m, t.w[0], t.n[0], &lit);
            if (lit) {
                buf_puts(out, v);
                m->nvars++;
                return true;
            }
        }
        return false;
    }
    /* a Liquid comment writes nothing: an HTML comment hides it as well */
    if (t.count == 1 && (import_tag_word_is(&t, 0, "comment") || import_tag_word_is(&t, 0, "endcomment"))) {
        buf_puts(out, import_tag_word_is(&t, 0, "comment") ? "<!--" : "-->");
        m->ncomments++;
        return true;
    }
    /* jekyll-youtube and the like: {% youtube ID %} */
    if (import_tag_word_is(&t, 0, "youtube") && t.count == 2) {
        bool lit;
        const char *id = import_unquote(m, t.w[1], t.n[1], &lit);
        if (*id && !strpbrk(id, " \"{}")) {
            buf_printf(out, "{{< youtube %s >}}", id);
            m->nshortcodes++;
            return true;
        }
    }
    if (import_tag_word_is(&t, 0, "highlight") && t.count >= 2) {
        /* {% highlight ruby linenos hl_lines="2 3" %}: sheaf's fence options */
        buf opts = BUF_INIT;
        for (size_t k = 2; k < t.count; k++) {
            if (import_tag_word_is(&t, k, "linenos") || (t.n[k] > 8 && !strncmp(t.w[k], "linenos=", 8)))
                buf_printf(&opts, "%slinenos=true", opts.len ? ", " : "");
            else if (t.n[k] > 9 && !strncmp(t.w[k], "hl_lines=", 9)) {
                const char *v = import_unquote(m, t.w[k] + 9, t.n[k] - 9, NULL);
                buf_printf(&opts, "%shl_lines=[", opts.len ? ", " : "");
                import_tag_args l;
                import_tag_split(v, strlen(v), &l);
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
    if (import_tag_word_is(&t, 0, "endhighlight") && *fence_open) {
        buf_puts(out, "```");
        *fence_open = false;
        return true;
    }
    if (import_tag_word_is(&t, 0, "post_url") && t.count == 2) {
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
            import_put_link(m, p, out, to, NULL);
            return true;
        }
        return false;
    }
    if (import_tag_word_is(&t, 0, "link") && t.count >= 2) {
        /* Jekyll's link takes the rest of the tag as the path, blanks
         * and all: {% link _tabs/gradients for backprop.md %} */
        const char *path = t.w[1];
        size_t pn = (size_t)(t.w[t.count - 1] + t.n[t.count - 1] - path);
        import_page *to = import_page_by_src(m, path, pn);
        if (to) {
            import_put_link(m, p, out, to, NULL);
            return true;
        }
        for (size_t i = 0; i < m->nfiles; i++)
            if (strlen(m->files[i].src_rel) == pn && !strncmp(m->files[i].src_rel, path, pn) &&
                m->files[i].old_url) {
                buf_puts(out, m->files[i].old_url);
                m->nlinks++;
                return true;
            }
        return false;
    }
    if ((import_tag_word_is(&t, 0, "include") || import_tag_word_is(&t, 0, "include_cached")) && t.count >= 2) {
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
        import_tag_args t;
        const char *in = s + j + 2;
        size_t inn = (size_t)(c - in);
        if (inn && *in == '-')
            in++, inn--;
        if (inn && in[inn - 1] == '-')
            inn--;
        import_tag_split(in, inn, &t);
        if (t.count == 1 && t.n[0] == nn + 3 && !strncmp(t.w[0], "end", 3) && !strncmp(t.w[0] + 3, name, nn)) {
            *end = c + 2;
            return s + j;
        }
    }
    return NULL;
}

/* jekyll-figure: {% figure caption:"…" %}![alt](src){% endfigure %} →
 * sheaf's figure, when its inside is one image; false otherwise. */
static bool liquid_figure(imp *m, const import_tag_args *t, const char *in, size_t n, buf *out)
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
            caption = import_unquote(m, t->w[k] + 8, t->n[k] - 8, NULL);
        else if (t->n[k] > 6 && !strncmp(t->w[k], "class:", 6))
            cls = import_unquote(m, t->w[k] + 6, t->n[k] - 6, NULL);
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
static bool liquid_block(const import_tag_args *t)
{
    if (import_tag_word_is(t, 0, "figure"))
        return true;
    for (const char *const *k = box_tags; *k; k++)
        if (import_tag_word_is(t, 0, *k))
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

static const char *liquid_box(imp *m, const import_tag_args *t, const char **title)
{
    bool known = false;
    for (const char *const *k = box_tags; *k && !known; k++)
        known = import_tag_word_is(t, 0, *k);
    if (!known || t->count > 3)
        return NULL;
    const char *kind = t->count >= 2 ? import_unquote(m, t->w[1], t->n[1], NULL)
                                     : arena_strndup(m->a, t->w[0], t->n[0]);
    if (strchr(kind, '=') || strchr(kind, ':'))
        return NULL;
    const char *box = import_box_for(kind);
    *title = t->count == 3 ? import_unquote(m, t->w[2], t->n[2], NULL) : import_box_title(m, kind, strlen(kind), box);
    return box;
}

void import_liquid_convert(imp *m, import_page *p, buf *out)
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
        import_tag_args t;
        import_tag_split(inner, inn, &t);
        if (tag && (import_tag_word_is(&t, 0, "raw") || import_tag_word_is(&t, 0, "endraw"))) {
            raw = import_tag_word_is(&t, 0, "raw");
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
        if (tag && t.count && liquid_block(&t) && (import_tag_word_is(&t, 0, "figure") || nboxes < 16))
            pair = liquid_end_memo(memo, sizeof memo / sizeof *memo, s, n, after, t.w[0], t.n[0], &pe);
        if (pair && import_tag_word_is(&t, 0, "figure") && liquid_figure(m, &t, s + after, (size_t)(pair - s) - after, out)) {
            m->nshortcodes++;
            i = (size_t)(pe - s);
            continue;
        }
        const char *title = NULL, *box = pair && nboxes < 16 ? liquid_box(m, &t, &title) : NULL;
        if (box && (!nboxes || boxes[nboxes - 1].at > (size_t)(pair - s))) {
            import_box_open(out, box, title);
            boxes[nboxes].at = (size_t)(pair - s);
            boxes[nboxes].after = (size_t)(pe - s);
            boxes[nboxes++].box = box;
            m->nshortcodes++;
            i = after;
            continue;
        }
        if (!liquid(m, p, inner, inn, val, out, &fence)) {
            import_note_at(m, p, i, s + i, after - i, liquid_todo(inner, inn, val));
            buf_put(out, s + i, after - i);
        }
        i = after;
    }
}
