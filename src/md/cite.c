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
 * bracketed or 'n' narrative, then '-' when the author is suppressed). */
#include <cmark-gfm/node.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "md/internal.h"
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
static void put_field(cmark_strbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cmark_strbuf_putc(b, s[i] == 0x1e || s[i] == 0x1f ? ' ' : s[i]);
}

static void put_item(cmark_strbuf *b, char mode, bool suppress, const char *key, size_t klen,
                     const char *prefix, size_t plen, const char *loc, size_t llen)
{
    if (b->size)
        cmark_strbuf_putc(b, 0x1e);
    cmark_strbuf_putc(b, mode);
    if (suppress)
        cmark_strbuf_putc(b, '-');
    cmark_strbuf_putc(b, 0x1f);
    put_field(b, key, klen);
    cmark_strbuf_putc(b, 0x1f);
    put_field(b, prefix, plen);
    cmark_strbuf_putc(b, 0x1f);
    put_field(b, loc, llen);
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
    cmark_chunk *chunk = cmark_inline_parser_get_chunk(ip);
    const char *s = (const char *)chunk->data + off + 1;
    size_t n = (size_t)(chunk->len - off - 1);
    const char *key;
    size_t klen;
    size_t len = md_cite_key_len(s, n, &key, &klen);
    bool label = len && md_label_kind_of(key, klen) >= 0;
    /* after a non-ASCII byte only a label: CJK text runs into its
     * references ("见@fig-a"), never into a citation's e-mail-like key */
    if (!len || (self == xref_ext && !label) || (before >= 0x80 && !label))
        return NULL;
    cmark_node *node = cmark_node_new_with_mem_and_ext(CITE, cmark_node_mem(parent), self);
    node->start_line = cmark_inline_parser_get_line(ip);
    node->start_column = cmark_inline_parser_get_column(ip);
    cmark_strbuf_init(cmark_node_mem(parent), &node->content, 0);
    put_item(&node->content, 'n', false, key, klen, "", 0, "", 0);
    cmark_inline_parser_set_offset(ip, off + 1 + (int)len);
    return node;
}

/* ---- grouping ---- */

static bool is_text(cmark_node *n) { return n && n->type == CMARK_NODE_TEXT; }
static bool is_cite(cmark_node *n) { return n && n->type == CITE; }

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
    const char *c = (const char *)n->content.ptr;
    const char *k = strchr(c, 0x1f) + 1;
    const char *e = strchr(k, 0x1f);
    *klen = (size_t)(e - k);
    return k;
}

/* Tries to make a bracketed group starting at CITE node c. */
static bool group(cmark_node *c)
{
    cmark_node *before = c->prev;
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
        cmark_node *after = cur->next;
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
        cur = after->next;
    }
    /* One node for the group: the first; the rest of the group goes. */
    cmark_strbuf content;
    cmark_strbuf_init(cmark_node_mem(c), &content, 0);
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
    for (cmark_node *x = c->next; x != close;) {
        cmark_node *nx = x->next;
        if (x->type == CITE)
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
    cmark_strbuf_free(&c->content);
    c->content = content;
    return true;
}

/* A narrative citation's ` [locator]` right after it. */
static void narrative_locator(cmark_node *c)
{
    cmark_node *after = c->next;
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
    cmark_strbuf content;
    cmark_strbuf_init(cmark_node_mem(c), &content, 0);
    put_item(&content, 'n', false, key, klen, "", 0, l, ll);
    cmark_strbuf_free(&c->content);
    c->content = content;
    if (k + 1 < alen)
        set_lit(after, a + k + 1, alen - k - 1);
    else
        cmark_node_free(after);
}

static bool in_link(cmark_node *n)
{
    for (cmark_node *p = n->parent; p; p = p->parent)
        if (p->type == CMARK_NODE_LINK || p->type == CMARK_NODE_IMAGE)
            return true;
    return false;
}

/* A CITE node back to its text, merged into the text around it. */
static void undo(cmark_node *c)
{
    size_t klen;
    const char *key = node_key(c, &klen);
    cmark_strbuf t;
    cmark_strbuf_init(cmark_node_mem(c), &t, 0);
    cmark_strbuf_putc(&t, '@');
    cmark_strbuf_put(&t, (const unsigned char *)key, (bufsize_t)klen);
    cmark_node *text = cmark_node_new_with_mem(CMARK_NODE_TEXT, cmark_node_mem(c));
    cmark_node_set_literal(text, (const char *)t.ptr);
    cmark_strbuf_free(&t);
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
        if (ev == CMARK_EVENT_ENTER && x->type == CITE) {
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
        if (!c->parent) /* taken into an earlier group */
            continue;
        if (!group(c))
            narrative_locator(c);
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] && !v[i]->parent)
            cmark_node_free(v[i]);
    free(v);
    return root;
}

static const char *type_string(cmark_syntax_extension *self, cmark_node *n)
{
    (void)self;
    return n->type == CITE ? "citation" : "<unknown>";
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

static bool owns(cmark_node *n) { return CITE && n->type == CITE; }

/* Unpacks the group and has md.c write it. */
static void render(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    if (!entering)
        return;
    md_cite items[64];
    size_t ni = 0;
    size_t len = (size_t)n->content.size;
    char *copy = xstrndup((const char *)n->content.ptr, len);
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
        c->line = n->start_line;
        c->col = n->start_column;
        s = end ? end + 1 : NULL;
    }
    md_cite_write(w, out, n, items, ni);
    free(copy);
}

const md_ext md_ext_citations = { .attach_walk = attach, .owns = owns, .render = render };
