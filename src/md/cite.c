/* md/cite.c: Pandoc's citation syntax.
 *
 *   [@key]  [@key, p. 4]  [@a; @b]  [see @key, sec. 3]  [-@key]
 *   @key says …   @key [p. 33] says …   @{key with spaces}
 *
 * A key starts with a letter, digit or `_` and goes on with letters,
 * digits and the punctuation `:.#$%&-+?<>~/_` as long as a letter or digit
 * follows the punctuation (so "@lian2017." ends before the dot). An `@`
 * right after a letter, digit or `_` (or any non-ASCII byte) is not a
 * citation: e-mail addresses never are. (After a non-ASCII byte, a key
 * with a label's prefix, `@fig-a`, is a cross-reference: CJK text has no
 * spaces before it.) `\@` is a literal `@`; code is never looked at.
 *
 * Parsing is in two steps. While cmark-gfm parses inlines, `@` followed by
 * a key becomes a CITE node (so escapes, code spans and the like are
 * cmark's business). Then a post-processing pass looks at each CITE node's
 * neighbours: when the node sits in a `[ … ]` whose `;`-separated parts
 * each hold exactly one key, the brackets, prefixes and locators are taken
 * out of the text around and the citations of the bracket become one
 * group (one node); otherwise the citation is narrative, and a following
 * ` [locator]` without a key is its locator. A CITE node inside a link's
 * text becomes text again: `[@x](url)` is a link.
 *
 * A group is kept in its node's string content as items separated by RS
 * (0x1e), each "flags US key US prefix US locator" (US = 0x1f; flags: 'b'
 * bracketed or 'n' narrative, then '-' when the author is suppressed).
 *
 * Writing a group is the caller's (md_hooks.cite, the site's styles); this
 * file finds each key's place in the file, records the group, gives
 * summaries its form without links, and at the end of the page finds each
 * citation's sentence (md_cite.context) in the page's HTML. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "md/cmark_private.h"
#include "md/internal.h"
#include "util/html.h"
#include "util/xalloc.h"

static cmark_syntax_extension *ext, *xref_ext; /* every key; label keys only */
static cmark_node_type CITE;
static pthread_once_t made = PTHREAD_ONCE_INIT;

static bool word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
           || c >= 0x80;
}

static bool alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool key_punct(unsigned char c) { return c && strchr(":.#$%&-+?<>~/_", c) != NULL; }

/* The length of a key at s (s[0] is the byte after '@'), 0 when none;
 * for `{…}`, the key is what the braces hold; *key and *key_len give it. */
size_t md_cite_key_len(const char *s, size_t n, const char **key, size_t *key_len)
{
    if (n && s[0] == '{') {
        size_t i = 1;
        while (i < n && s[i] != '}' && s[i] != '{' && s[i] != '\n')
            i++;
        if (i >= n || s[i] != '}' || i == 1)
            return 0;
        *key = s + 1;
        *key_len = i - 1;
        return i + 1;
    }
    if (!n || !(alnum((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    size_t i = 1;
    for (;;) {
        if (i < n && (alnum((unsigned char)s[i]) || s[i] == '_')) {
            i++;
            continue;
        }
        /* punctuation counts only with a letter or digit after it */
        size_t j = i;
        while (j < n && key_punct((unsigned char)s[j]))
            j++;
        if (j > i && j < n && alnum((unsigned char)s[j])) {
            i = j;
            continue;
        }
        break;
    }
    *key = s;
    *key_len = i;
    return i;
}

/* One field of an item: the text, its RS and US (the group's separators,
 * never text anyone means) written as spaces, so a field can never split
 * the group wrongly. */
static void put_field(buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf_putc(b, s[i] == 0x1e || s[i] == 0x1f ? ' ' : s[i]);
}

static void put_item(buf *b, char mode, bool suppress, const char *key, size_t klen,
                     const char *prefix, size_t plen, const char *loc, size_t llen)
{
    if (b->len)
        buf_putc(b, 0x1e);
    buf_putc(b, mode);
    if (suppress)
        buf_putc(b, '-');
    buf_putc(b, 0x1f);
    put_field(b, key, klen);
    buf_putc(b, 0x1f);
    put_field(b, prefix, plen);
    buf_putc(b, 0x1f);
    put_field(b, loc, llen);
}

/* The node's items become `b` (which is emptied). Keys and text hold no
 * NUL (cmark-gfm reads one as U+FFFD), so the content is a C string. */
static void set_items(cmark_node *c, buf *b)
{
    cmark_node_set_string_content(c, b->len ? b->data : "");
    buf_release(b);
}

static cmark_node *match(cmark_syntax_extension *self, cmark_parser *parser, cmark_node *parent,
                         unsigned char c, cmark_inline_parser *ip)
{
    (void)parser;
    if (c != '@')
        return NULL;
    int off = cmark_inline_parser_get_offset(ip);
    unsigned char before = off > 0 ? cmark_inline_parser_peek_at(ip, off - 1) : ' ';
    if (word_byte(before) && before < 0x80)
        return NULL;
    size_t all;
    const char *s = md_inline_text(ip, &all) + off + 1;
    size_t n = all - (size_t)off - 1;
    const char *key;
    size_t klen;
    size_t len = md_cite_key_len(s, n, &key, &klen);
    bool label = len && md_label_kind_of(key, klen) >= 0;
    /* after a non-ASCII byte only a label: CJK text runs into its
     * references ("见@fig-a"), never into a citation's e-mail-like key */
    if (!len || (self == xref_ext && !label) || (before >= 0x80 && !label))
        return NULL;
    cmark_node *node = cmark_node_new_with_mem_and_ext(CITE, md_node_mem(parent), self);
    int line = cmark_inline_parser_get_line(ip), col = cmark_inline_parser_get_column(ip);
    md_node_set_pos(node, line, col, line, col);
    buf items = BUF_INIT;
    put_item(&items, 'n', false, key, klen, "", 0, "", 0);
    set_items(node, &items);
    cmark_inline_parser_set_offset(ip, off + 1 + (int)len);
    return node;
}

/* ---- grouping ---- */

static bool is_text(cmark_node *n) { return n && cmark_node_get_type(n) == CMARK_NODE_TEXT; }
static bool is_cite(cmark_node *n) { return n && cmark_node_get_type(n) == CITE; }

static const char *lit(cmark_node *n, size_t *len)
{
    const char *s = cmark_node_get_literal(n);
    *len = s ? strlen(s) : 0;
    return s ? s : "";
}

static void set_lit(cmark_node *n, const char *s, size_t len)
{
    char *t = xstrndup(s, len);
    cmark_node_set_literal(n, t);
    free(t);
}

static void trim(const char **s, size_t *n)
{
    while (*n && ((*s)[0] == ' ' || (*s)[0] == '\n' || (*s)[0] == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\n' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* The key of a one-item (fresh) CITE node. */
static const char *node_key(cmark_node *n, size_t *klen)
{
    const char *c = cmark_node_get_string_content(n);
    const char *k = strchr(c, 0x1f) + 1;
    const char *e = strchr(k, 0x1f);
    *klen = (size_t)(e - k);
    return k;
}

/* Tries to make a bracketed group starting at CITE node c. */
static bool group(cmark_node *c)
{
    cmark_node *before = cmark_node_previous(c);
    if (!is_text(before))
        return false;
    size_t blen;
    const char *b = lit(before, &blen);
    size_t open = blen;
    while (open > 0 && !strchr("[]@;", b[open - 1]))
        open--;
    if (open == 0 || b[open - 1] != '[')
        return false;
    /* walk the group: cite (text)? cite … until a ']' */
    typedef struct item {
        cmark_node *node;
        const char *prefix;
        size_t plen;
        const char *loc;
        size_t llen;
        bool suppress;
    } item;
    item items[64];
    size_t ni = 0;
    const char *prefix = b + open;
    size_t plen = blen - open;
    cmark_node *cur = c, *close = NULL;
    size_t close_at = 0;
    for (;;) {
        if (!is_cite(cur) || ni == sizeof items / sizeof *items)
            return false;
        item *it = &items[ni++];
        it->node = cur;
        it->suppress = plen && prefix[plen - 1] == '-';
        it->prefix = prefix;
        it->plen = plen - it->suppress;
        it->loc = "";
        it->llen = 0;
        cmark_node *after = cmark_node_next(cur);
        if (!is_text(after)) {
            if (is_cite(after)) /* "@a@b": not a group */
                return false;
            return false;
        }
        size_t alen;
        const char *a = lit(after, &alen);
        size_t k = 0;
        while (k < alen && !strchr("[]@;", a[k]))
            k++;
        if (k == alen || a[k] == '[' || a[k] == '@')
            return false;
        it->loc = a;
        it->llen = k;
        if (a[k] == ']') {
            close = after;
            close_at = k;
            break;
        }
        /* ';': the rest of this text is the next item's prefix */
        prefix = a + k + 1;
        plen = alen - k - 1;
        cur = cmark_node_next(after);
    }
    /* One node for the group: the first; the rest of the group goes. */
    buf content = BUF_INIT;
    for (size_t i = 0; i < ni; i++) {
        size_t klen;
        const char *key = node_key(items[i].node, &klen);
        const char *p = items[i].prefix, *l = items[i].loc;
        size_t pl = items[i].plen, ll = items[i].llen;
        trim(&p, &pl);
        /* a locator is written after a comma: "@key, p. 4" */
        trim(&l, &ll);
        if (ll && l[0] == ',') {
            l++;
            ll--;
            trim(&l, &ll);
        }
        put_item(&content, 'b', items[i].suppress, key, klen, p, pl, l, ll);
    }
    /* text after the ']' stays; text before the '[' stays */
    size_t rest_len;
    const char *rest = lit(close, &rest_len);
    size_t tail_len = rest_len - close_at - 1;
    for (cmark_node *x = cmark_node_next(c); x != close;) {
        cmark_node *nx = cmark_node_next(x);
        if (cmark_node_get_type(x) == CITE)
            cmark_node_unlink(x); /* freed by postprocess, which still lists it */
        else
            cmark_node_free(x);
        x = nx;
    }
    if (tail_len) /* set_lit copies before the old literal goes */
        set_lit(close, rest + close_at + 1, tail_len);
    else
        cmark_node_free(close);
    if (open - 1)
        set_lit(before, b, open - 1);
    else
        cmark_node_free(before);
    set_items(c, &content);
    return true;
}

/* A narrative citation's ` [locator]` right after it. */
static void narrative_locator(cmark_node *c)
{
    cmark_node *after = cmark_node_next(c);
    if (!is_text(after))
        return;
    size_t alen;
    const char *a = lit(after, &alen);
    if (alen < 3 || a[0] != ' ' || a[1] != '[')
        return;
    size_t k = 2;
    while (k < alen && !strchr("[]@;", a[k]))
        k++;
    if (k == alen || a[k] != ']')
        return;
    size_t klen;
    const char *key = node_key(c, &klen);
    const char *l = a + 2;
    size_t ll = k - 2;
    trim(&l, &ll);
    buf content = BUF_INIT;
    put_item(&content, 'n', false, key, klen, "", 0, l, ll);
    set_items(c, &content);
    if (k + 1 < alen)
        set_lit(after, a + k + 1, alen - k - 1);
    else
        cmark_node_free(after);
}

/* In a link's text. (An image's alt text keeps its citations: a figure's
 * caption is written from it; its alt attribute takes their source form,
 * md_cite_source.) */
static bool in_link(cmark_node *n)
{
    for (cmark_node *p = cmark_node_parent(n); p; p = cmark_node_parent(p))
        if (cmark_node_get_type(p) == CMARK_NODE_LINK)
            return true;
    return false;
}

/* A CITE node back to its text, merged into the text around it. */
static void undo(cmark_node *c)
{
    size_t klen;
    const char *key = node_key(c, &klen);
    buf t = BUF_INIT;
    buf_putc(&t, '@');
    buf_put(&t, key, klen);
    cmark_node *text = cmark_node_new_with_mem(CMARK_NODE_TEXT, md_node_mem(c));
    cmark_node_set_literal(text, t.data);
    buf_release(&t);
    cmark_node_replace(c, text);
    cmark_node_free(c);
}

static cmark_node *postprocess(cmark_syntax_extension *self, cmark_parser *parser, cmark_node *root)
{
    (void)self;
    (void)parser;
    /* the nodes first: grouping frees some of them */
    size_t n = 0, cap = 0;
    cmark_node **v = NULL;
    cmark_iter *it = cmark_iter_new(root);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *x = cmark_iter_get_node(it);
        if (ev == CMARK_EVENT_ENTER && cmark_node_get_type(x) == CITE) {
            if (n == cap)
                v = xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
            v[n++] = x;
        }
    }
    cmark_iter_free(it);
    for (size_t i = 0; i < n; i++) {
        cmark_node *c = v[i];
        if (!c)
            continue;
        if (in_link(c)) {
            undo(c); /* frees c */
            v[i] = NULL;
            continue;
        }
        if (!cmark_node_parent(c)) /* taken into an earlier group */
            continue;
        if (!group(c))
            narrative_locator(c);
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] && !cmark_node_parent(v[i]))
            cmark_node_free(v[i]);
    free(v);
    return root;
}

static const char *type_string(cmark_syntax_extension *self, cmark_node *n)
{
    (void)self;
    return cmark_node_get_type(n) == CITE ? "citation" : "<unknown>";
}

static cmark_node *no_match(cmark_syntax_extension *self, cmark_parser *parser, cmark_node *parent,
                            unsigned char c, cmark_inline_parser *ip)
{
    (void)self, (void)parser, (void)parent, (void)c, (void)ip;
    return NULL;
}

static void make(void)
{
    CITE = cmark_syntax_extension_add_node(1);
    ext = cmark_syntax_extension_new("sheaf-citations");
    cmark_syntax_extension_set_match_inline_func(ext, match);
    cmark_syntax_extension_set_postprocess_func(ext, postprocess);
    cmark_syntax_extension_set_get_type_string_func(ext, type_string);
    /* a page without a bibliography reads cross-references only */
    xref_ext = cmark_syntax_extension_new("sheaf-xrefs");
    cmark_syntax_extension_set_match_inline_func(xref_ext, match);
    cmark_syntax_extension_set_postprocess_func(xref_ext, postprocess);
    cmark_syntax_extension_set_get_type_string_func(xref_ext, type_string);
    /* cmark-gfm keeps one global table of special characters: each parser
     * adds its extensions' characters when it starts and clears them when
     * it finishes, so with pages parsed on several threads one page's end
     * could clear '@' in the middle of another's parse (a citation read as
     * text, now and then). '@' is made special once, for good, by a parser
     * that never finishes with it attached; our extension lists none. */
    static cmark_syntax_extension *pin;
    pin = cmark_syntax_extension_new("sheaf-citations-at");
    cmark_syntax_extension_set_match_inline_func(pin, no_match);
    cmark_syntax_extension_set_special_inline_chars(
        pin, cmark_llist_append(cmark_get_default_mem_allocator(), NULL, (void *)'@'));
    cmark_parser *p = cmark_parser_new(0);
    cmark_parser_attach_syntax_extension(p, pin);
    cmark_manage_extensions_special_characters(p, 1);
    cmark_parser_free(p);
}

static void attach(md_walk *w, cmark_parser *p)
{
    pthread_once(&made, make);
    cmark_parser_attach_syntax_extension(p, md_walk_cites(w) ? ext : xref_ext);
}

static bool owns(cmark_node *n) { return CITE && cmark_node_get_type(n) == CITE; }

bool md_cite_is(cmark_node *n) { return owns(n); }

void md_cite_source(cmark_node *n, buf *out)
{
    const char *s = cmark_node_get_string_content(n);
    bool bracketed = s && s[0] == 'b';
    if (bracketed)
        buf_putc(out, '[');
    for (int i = 0; s && *s; i++) {
        const char *end = strchr(s, 0x1e);
        size_t n_item = end ? (size_t)(end - s) : strlen(s);
        const char *k = (const char *)memchr(s, 0x1f, n_item) + 1;
        const char *p = memchr(k, 0x1f, (size_t)(s + n_item - k));
        const char *l = memchr(p + 1, 0x1f, (size_t)(s + n_item - p - 1));
        if (i)
            buf_puts(out, "; ");
        if (l > p + 1) {
            buf_put(out, p + 1, (size_t)(l - p - 1));
            buf_putc(out, ' ');
        }
        if (s[1] == '-')
            buf_putc(out, '-');
        buf_putc(out, '@');
        buf_put(out, k, (size_t)(p - k));
        if (s + n_item > l + 1) {
            buf_puts(out, bracketed ? ", " : " [");
            buf_put(out, l + 1, (size_t)(s + n_item - l - 1));
            if (!bracketed)
                buf_putc(out, ']');
        }
        s = end ? end + 1 : NULL;
    }
    if (bracketed)
        buf_putc(out, ']');
}

/* Unpacks the group and has md.c write it. */
static void render(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    if (!entering)
        return;
    md_cite items[64];
    size_t ni = 0;
    char *copy = xstrdup(cmark_node_get_string_content(n));
    char *s = copy;
    while (s && *s && ni < sizeof items / sizeof *items) {
        char *end = strchr(s, 0x1e);
        if (end)
            *end = 0;
        md_cite *c = &items[ni++];
        memset(c, 0, sizeof *c);
        c->narrative = s[0] == 'n';
        c->suppress_author = s[1] == '-';
        char *k = strchr(s, 0x1f) + 1;
        char *p = strchr(k, 0x1f);
        *p++ = 0;
        char *l = strchr(p, 0x1f);
        *l++ = 0;
        c->key = k;
        c->prefix = p;
        c->locator = l;
        c->line = cmark_node_get_start_line(n);
        c->col = cmark_node_get_start_column(n);
        s = end ? end + 1 : NULL;
    }
    md_cite_write(w, out, n, items, ni);
    free(copy);
}

/* ---- writing a group, and its sentence ---- */

/* The HTML without its <a …> and </a> tags. */
static void strip_links(const char *s, size_t n, buf *out)
{
    for (size_t i = 0; i < n;) {
        if (s[i] == '<' && ((i + 2 < n && s[i + 1] == 'a' && (s[i + 2] == ' ' || s[i + 2] == '>'))
                            || (i + 3 < n && !memcmp(s + i, "</a>", 4)))) {
            const char *e = memchr(s + i, '>', n - i);
            if (!e)
                break;
            i = (size_t)(e - s) + 1;
        } else {
            buf_putc(out, s[i++]);
        }
    }
}

void md_cite_write(md_walk *w, buf *out, cmark_node *n, md_cite *items, size_t k)
{
    /* keys with a label's prefix are cross-references (md/xref.c) */
    size_t nx = 0;
    for (size_t i = 0; i < k; i++)
        nx += md_label_kind_of(items[i].key, strlen(items[i].key)) >= 0;
    /* cmark gives the '@''s line within the paragraph's text; find it in
     * the file */
    cmark_node *leaf = md_leaf_of(n);
    int line = items[0].line, col = items[0].col;
    buf want = BUF_INIT;
    md_citing *citing = md_walk_citing(w);
    arena *a = md_walk_arena(w);
    int group = citing->groups++;
    int first_line = 0, first_col = 0;
    for (size_t i = 0; i < k; i++) {
        /* each key's '@', the next after the one before */
        buf_reset(&want);
        buf_printf(&want, "@%s", items[i].key);
        int l = cmark_node_get_start_line(leaf), c = cmark_node_get_start_column(leaf);
        if (md_find_in_leaf(md_walk_source(w), leaf, line, col, want.data, want.len, &l, &c)) {
            line = l;
            col = c;
        }
        if (i == 0) {
            first_line = line;
            first_col = col;
        }
        items[i].key = arena_strdup(a, items[i].key);
        items[i].prefix = arena_strdup(a, items[i].prefix);
        items[i].locator = arena_strdup(a, items[i].locator);
        items[i].group = group;
        items[i].line = md_file_line(w, line);
        items[i].col = col;
        items[i].context = "";
        col++; /* the next key comes after this one */
    }
    buf_release(&want);
    if (nx == k) {
        md_xref_write(w, out, items, k);
        return;
    }
    if (nx || !md_walk_cites(w)) {
        md_problem_at(w, true, first_line, first_col,
                      "this citation mixes cross-references (@fig-…, @tbl-…, @eq-…, @sec-…) with "
                      "citations: write them in brackets of their own");
        return;
    }
    size_t start = out->len;
    md_call_cite(w, items, k, out);
    for (size_t i = 0; i < k; i++)
        *(md_cite *)md_vec_push(&citing->items) = items[i];
    if (out != md_html(w))
        return;
    md_cite_span *sp = md_vec_push(&citing->spans);
    sp->start = start;
    sp->end = out->len;
    sp->group = group;
    buf plain = BUF_INIT;
    strip_links(out->data + start, out->len - start, &plain);
    md_summary_writes(w, start, arena_strndup(a, plain.data ? plain.data : "", plain.len), plain.len);
    buf_release(&plain);
}

static bool block_open(const char *p)
{
    if (*p != '<')
        return false;
    static const char *const tags[] = { "<p>", "<li>", "<td", "<th", "<h1", "<h2", "<h3",
                                        "<h4", "<h5", "<h6", "<blockquote>" };
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
        if (!strncmp(p, tags[i], strlen(tags[i])))
            return true;
    return false;
}

static bool block_close(const char *p)
{
    if (*p != '<')
        return false;
    static const char *const tags[] = { "</p>", "</li>", "</td>", "</th>", "</h", "<ul>", "<ol>",
                                        "</blockquote>" };
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
        if (!strncmp(p, tags[i], strlen(tags[i])))
            return true;
    return false;
}

/* Does a sentence end at t[i] (the byte after its punctuation)? */
static size_t sentence_end(const char *t, size_t n, size_t i)
{
    if ((t[i] == '.' || t[i] == '?' || t[i] == '!') && (i + 1 == n || t[i + 1] == ' '))
        return i + 1;
    static const char *const cjk[] = { "。", "？", "！" };
    for (size_t k = 0; k < 3; k++)
        if (i + 3 <= n && !memcmp(t + i, cjk[k], 3))
            return i + 3;
    return 0;
}

/* Each citation's sentence: from the page's HTML, within its block. */
void md_citing_contexts(md_citing *r, arena *a, const buf *html)
{
    const md_cite_span *sp = r->spans.v;
    md_cite *c = r->items.v;
    size_t ci = 0;
    const char *h = html->data;
    buf t = BUF_INIT;
    for (size_t g = 0; g < r->spans.n; g++) {
        size_t from = sp[g].start, to = sp[g].end;
        while (from > 0 && !block_open(h + from))
            from--;
        while (to < html->len && !block_close(h + to))
            to++;
        buf_reset(&t);
        size_t marks[2] = { sp[g].start - from, sp[g].end - from }, at_m[2];
        html_plain_text_marked(&t, h + from, to - from, false, marks, at_m, 2);
        size_t at = at_m[0], at_end = at_m[1];
        size_t s = 0, e = t.len;
        for (size_t i = 0; i < at; i++) {
            size_t x = sentence_end(t.data, t.len, i);
            if (x)
                s = x;
        }
        for (size_t i = at_end; i < t.len; i++) {
            size_t x = sentence_end(t.data, t.len, i);
            if (x) {
                e = x;
                break;
            }
        }
        while (s < e && t.data[s] == ' ')
            s++;
        while (e > s && t.data[e - 1] == ' ')
            e--;
        if (e - s > 400) { /* a runaway "sentence": keep the part around it */
            size_t a0 = at > 200 ? at - 200 : s;
            s = a0 > s ? a0 : s;
            if (e - s > 400)
                e = s + 400;
            while (s < e && ((unsigned char)t.data[s] & 0xC0) == 0x80)
                s++;
            while (e > s && e < t.len && ((unsigned char)t.data[e] & 0xC0) == 0x80)
                e--;
        }
        const char *ctx = arena_strndup(a, t.data ? t.data + s : "", e - s);
        while (ci < r->items.n && c[ci].group < sp[g].group)
            ci++;
        for (; ci < r->items.n && c[ci].group == sp[g].group; ci++)
            c[ci].context = ctx;
    }
    buf_release(&t);
}

void md_citing_shift(md_citing *c, size_t from, size_t by)
{
    md_cite_span *cs = c->spans.v;
    for (size_t i = 0; i < c->spans.n; i++)
        if (cs[i].start >= from) {
            cs[i].start += by;
            cs[i].end += by;
        }
}

bool md_citing_after(const md_citing *c, size_t from)
{
    const md_cite_span *cs = c->spans.v;
    return c->spans.n && cs[c->spans.n - 1].start >= from;
}

void md_citing_drop_after(md_citing *c, size_t from)
{
    while (md_citing_after(c, from))
        c->spans.n--;
}

void md_citing_free(md_citing *c) { free(c->spans.v); }

/* `@` is text in cmark-gfm: off with md_options.reference. */
const md_ext md_ext_citations = { .reference_off = true, .attach_walk = attach, .owns = owns, .render = render };
