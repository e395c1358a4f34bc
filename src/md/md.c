/* md: Markdown → HTML with cmark, one parse per page.
 *
 * The AST is walked once before rendering:
 *  - each heading becomes a custom block holding its own HTML with an id
 *    (`<h2 id="llm-training">…</h2>`); ids are slugs of the heading's text,
 *    made unique within the page (x, x-1, x-2; an empty slug is "section");
 *  - each link and image destination goes to the resolver, which may
 *    rewrite it (cross-post links); cmark then escapes it as usual;
 *  - text and code spans are counted as words (each CJK character one word;
 *    code blocks and raw HTML do not count);
 *  - a `<!--more-->` (as its own HTML block, or inline) ends the summary,
 *    which is otherwise the first paragraph.
 * The document is then rendered one top-level block at a time, so the
 * summary is the concatenation of the blocks before the marker. Source
 * positions come from cmark (inline positions need cmark >= 0.30) and are
 * shifted by the body's first line in the file. */
#include <cmark.h>
#include <stdlib.h>
#include <string.h>

#include "md/md.h"
#include "util/buf.h"
#include "util/text.h"

typedef struct vec {
    void *v;
    size_t n, cap, size;
} vec;

static void *vec_push(arena *a, vec *x)
{
    if (x->n == x->cap) {
        size_t nc = x->cap ? x->cap * 2 : 16;
        void *nv = arena_alloc(a, nc * x->size);
        if (x->n)
            memcpy(nv, x->v, x->n * x->size);
        x->v = nv;
        x->cap = nc;
    }
    return (char *)x->v + x->size * x->n++;
}

/* Plain text of an inline subtree (for heading titles and link texts). */
static void plain_text(cmark_node *n, buf *b)
{
    for (cmark_node *c = cmark_node_first_child(n); c; c = cmark_node_next(c)) {
        switch (cmark_node_get_type(c)) {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_CODE:
            buf_puts(b, cmark_node_get_literal(c));
            break;
        case CMARK_NODE_SOFTBREAK:
        case CMARK_NODE_LINEBREAK:
            buf_putc(b, ' ');
            break;
        default:
            plain_text(c, b);
            break;
        }
    }
}

static bool id_taken(const md_heading *h, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(h[i].id, id))
            return true;
    return false;
}

/* Inline HTML of a heading's children: render them inside a throwaway
 * paragraph and strip <p> … </p>\n. */
static char *inline_html(cmark_node *heading, int opts, arena *a)
{
    cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
    cmark_node *c;
    while ((c = cmark_node_first_child(heading)))
        cmark_node_append_child(p, c);
    char *html = cmark_render_html(p, opts);
    size_t n = strlen(html);
    char *res;
    if (n >= 8 && !strncmp(html, "<p>", 3))
        res = arena_strndup(a, html + 3, n - 3 - 5);
    else
        res = arena_strdup(a, html);
    free(html);
    /* give the children back so the tree stays whole */
    while ((c = cmark_node_first_child(p)))
        cmark_node_append_child(heading, c);
    cmark_node_free(p);
    return res;
}

static bool is_more(cmark_node *n)
{
    cmark_node_type t = cmark_node_get_type(n);
    if (t != CMARK_NODE_HTML_BLOCK && t != CMARK_NODE_HTML_INLINE)
        return false;
    const char *lit = cmark_node_get_literal(n);
    return lit && strstr(lit, "<!--more-->") != NULL;
}

void md_render(str body, int first_line, const md_options *opt, md_link_fn resolve, void *ctx,
               arena *a, md_result *out)
{
    memset(out, 0, sizeof *out);
    int opts = CMARK_OPT_SOURCEPOS;
    if (opt && opt->unsafe)
        opts |= CMARK_OPT_UNSAFE;
    if (opt && opt->smart)
        opts |= CMARK_OPT_SMART;
    if (opt && opt->hard_breaks)
        opts |= CMARK_OPT_HARDBREAKS;
    int render_opts = opts & ~CMARK_OPT_SOURCEPOS;
    cmark_node *doc = cmark_parse_document(body.ptr, body.len, opts);
    int line0 = first_line - 1;

    vec heads = { .size = sizeof(md_heading) }, links = { .size = sizeof(md_link) };
    size_t words = 0;
    cmark_node *more_block = NULL; /* top-level block holding <!--more--> */

    cmark_iter *it = cmark_iter_new(doc);
    cmark_event_type ev;
    buf tmp = BUF_INIT;
    /* headings are replaced after the walk (replacing during it would
     * confuse the iterator) */
    vec to_replace = { .size = sizeof(cmark_node *) };
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(n);
        if (ev == CMARK_EVENT_ENTER && !more_block && is_more(n)) {
            cmark_node *top = n;
            while (cmark_node_parent(top) && cmark_node_parent(top) != doc)
                top = cmark_node_parent(top);
            more_block = top;
        }
        if (ev != CMARK_EVENT_ENTER)
            continue;
        switch (t) {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_CODE: {
            const char *lit = cmark_node_get_literal(n);
            words += text_word_count(lit, strlen(lit));
            break;
        }
        case CMARK_NODE_HEADING:
            *(cmark_node **)vec_push(a, &to_replace) = n;
            break;
        case CMARK_NODE_LINK:
        case CMARK_NODE_IMAGE: {
            md_link *l = vec_push(a, &links);
            l->dest = arena_strdup(a, cmark_node_get_url(n) ? cmark_node_get_url(n) : "");
            buf_reset(&tmp);
            plain_text(n, &tmp);
            l->text = arena_strndup(a, tmp.data, tmp.len);
            l->line = cmark_node_get_start_line(n) + line0;
            l->col = cmark_node_get_start_column(n);
            l->image = t == CMARK_NODE_IMAGE;
            if (resolve) {
                const char *nu = resolve(ctx, l);
                if (nu)
                    cmark_node_set_url(n, nu);
            }
            break;
        }
        default:
            break;
        }
    }
    cmark_iter_free(it);

    cmark_node **hs = to_replace.v;
    for (size_t i = 0; i < to_replace.n; i++) {
        cmark_node *h = hs[i];
        md_heading *mh = vec_push(a, &heads);
        mh->level = cmark_node_get_heading_level(h);
        mh->line = cmark_node_get_start_line(h) + line0;
        buf_reset(&tmp);
        plain_text(h, &tmp);
        mh->title = arena_strndup(a, tmp.data, tmp.len);
        buf slug = BUF_INIT;
        text_slugify(&slug, tmp.data, tmp.len);
        if (!slug.len)
            buf_puts(&slug, "section");
        const char *id = slug.data;
        char *uniq = NULL;
        for (int k = 1; id_taken(heads.v, heads.n - 1, id); k++) {
            free(uniq);
            buf u = BUF_INIT;
            buf_printf(&u, "%s-%d", slug.data, k);
            uniq = buf_detach(&u, NULL);
            id = uniq;
        }
        mh->id = arena_strdup(a, id);
        free(uniq);
        buf_release(&slug);
        mh->html = inline_html(h, render_opts, a);
        /* the heading becomes a custom block carrying its HTML */
        buf hb = BUF_INIT;
        buf_printf(&hb, "<h%d id=\"", mh->level);
        for (const char *p = mh->id; *p; p++) {
            if (*p == '"')
                buf_puts(&hb, "&quot;");
            else if (*p == '&')
                buf_puts(&hb, "&amp;");
            else if (*p == '<')
                buf_puts(&hb, "&lt;");
            else if (*p == '>')
                buf_puts(&hb, "&gt;");
            else
                buf_putc(&hb, *p);
        }
        buf_printf(&hb, "\">%s</h%d>", mh->html, mh->level);
        cmark_node *cb = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
        cmark_node_set_on_enter(cb, hb.data);
        cmark_node_set_on_exit(cb, "");
        buf_release(&hb);
        if (more_block == h)
            more_block = cb;
        cmark_node_replace(h, cb);
        cmark_node_free(h);
    }
    buf_release(&tmp);

    /* render block by block */
    buf html = BUF_INIT, summary = BUF_INIT;
    bool in_summary = true, first_para_done = false;
    cmark_node *first_para = NULL;
    for (cmark_node *c = cmark_node_first_child(doc); c; c = cmark_node_next(c))
        if (cmark_node_get_type(c) == CMARK_NODE_PARAGRAPH) {
            first_para = c;
            break;
        }
    for (cmark_node *c = cmark_node_first_child(doc); c; c = cmark_node_next(c)) {
        char *h = cmark_render_html(c, render_opts);
        size_t hl = strlen(h);
        buf_put(&html, h, hl);
        if (more_block) {
            if (in_summary && c != more_block)
                buf_put(&summary, h, hl);
            else if (in_summary && c == more_block && cmark_node_get_type(c) != CMARK_NODE_HTML_BLOCK)
                buf_put(&summary, h, hl); /* the marker was inline: keep its paragraph */
            if (c == more_block)
                in_summary = false;
        } else if (c == first_para && !first_para_done) {
            buf_put(&summary, h, hl);
            first_para_done = true;
        }
        free(h);
    }
    cmark_node_free(doc);

    out->html = arena_strndup(a, html.data, html.len);
    out->html_len = html.len;
    out->summary_html = arena_strndup(a, summary.data, summary.len);
    out->summary_len = summary.len;
    out->has_more = more_block != NULL;
    out->headings = heads.v;
    out->nheadings = heads.n;
    out->links = links.v;
    out->nlinks = links.n;
    out->word_count = words;
    buf_release(&html);
    buf_release(&summary);
}
