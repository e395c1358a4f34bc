/* test_cmark_private: md/cmark_private.c reads cmark-gfm's private node
 * layout. Each accessor is checked here against what the public API says
 * of the same node, so a cmark-gfm whose layout moved fails this test
 * instead of writing wrong pages. */
#include "harness.h"

#include <cmark-gfm-core-extensions.h>
#include <stdlib.h>
#include <string.h>

#include "md/cmark_private.h"

static size_t allocations;
static void *count_calloc(size_t n, size_t size)
{
    allocations++;
    return calloc(n, size);
}
static void *count_realloc(void *p, size_t size) { return realloc(p, size); }
static cmark_mem counting = { count_calloc, count_realloc, free };

static cmark_node *parse(const char *text, int options)
{
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *p = cmark_parser_new_with_mem(options, &counting);
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table"));
    cmark_parser_feed(p, text, strlen(text));
    cmark_node *doc = cmark_parser_finish(p);
    cmark_parser_free(p);
    return doc;
}

/* The n-th node (0-based) of type t, in document order. */
static cmark_node *nth(cmark_node *doc, cmark_node_type t, const char *type_string, int n)
{
    cmark_iter *it = cmark_iter_new(doc);
    cmark_node *found = NULL;
    for (cmark_event_type ev; !found && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
        cmark_node *x = cmark_iter_get_node(it);
        if (ev == CMARK_EVENT_ENTER &&
            (type_string ? !strcmp(cmark_node_get_type_string(x), type_string) : cmark_node_get_type(x) == t) &&
            n-- == 0)
            found = x;
    }
    cmark_iter_free(it);
    return found;
}

TEST(allocator_and_position)
{
    cmark_node *doc = parse("one\n\ntwo *three*\n", 0);
    cmark_node *para = nth(doc, CMARK_NODE_PARAGRAPH, NULL, 1);
    OK(para != NULL);
    OK(md_node_mem(para) == &counting);
    size_t before = allocations;
    cmark_node *made = cmark_node_new_with_mem(CMARK_NODE_TEXT, md_node_mem(para));
    OK(allocations == before + 1);
    md_node_set_pos(made, 7, 3, 9, 12);
    EQ_INT(cmark_node_get_start_line(made), 7);
    EQ_INT(cmark_node_get_start_column(made), 3);
    EQ_INT(cmark_node_get_end_line(made), 9);
    EQ_INT(cmark_node_get_end_column(made), 12);
    /* and the neighbouring fields are untouched */
    OK(cmark_node_get_type(made) == CMARK_NODE_TEXT);
    OK(cmark_node_parent(made) == NULL && cmark_node_next(made) == NULL);
    cmark_node_free(made);
    cmark_node_free(doc);
}

TEST(footnotes)
{
    cmark_node *doc = parse("a[^Note] b[^note] c[^none]\n\n[^note]: the text\n", CMARK_OPT_FOOTNOTES);
    cmark_node *r1 = nth(doc, CMARK_NODE_FOOTNOTE_REFERENCE, NULL, 0);
    cmark_node *r2 = nth(doc, CMARK_NODE_FOOTNOTE_REFERENCE, NULL, 1);
    cmark_node *def = nth(doc, CMARK_NODE_FOOTNOTE_DEFINITION, NULL, 0);
    OK(r1 && r2 && def);
    OK(nth(doc, CMARK_NODE_FOOTNOTE_REFERENCE, NULL, 2) == NULL); /* [^none] is text */
    OK(md_node_footnote_def(r1) == def && md_node_footnote_def(r2) == def);
    OK(md_node_footnote_def(def) == NULL);
    size_t len;
    const char *label = md_node_footnote_label(def, &len);
    EQ_INT((int)len, 4);
    OK(!strncmp(label, "note", 4));
    label = md_node_footnote_label(r1, &len); /* the definition's, not "Note" */
    OK(len == 4 && !strncmp(label, "note", 4));
    /* a reference's own literal is its note's number, as cmark-gfm writes it */
    EQ_STR(cmark_node_get_literal(r1), "1");
    EQ_STR(cmark_node_get_literal(r2), "1");
    EQ_INT(md_node_footnote_ref_ix(r1), 1);
    EQ_INT(md_node_footnote_ref_ix(r2), 2);
    EQ_INT(md_node_footnote_def_count(def), 2);
    cmark_node_free(doc);
}

static char seen[64];
static int seen_at = -1;
static cmark_node *probe(cmark_syntax_extension *self, cmark_parser *parser, cmark_node *parent,
                         unsigned char c, cmark_inline_parser *ip)
{
    (void)self, (void)parser, (void)parent;
    if (c != '%' || seen_at >= 0)
        return NULL;
    size_t len;
    const char *s = md_inline_text(ip, &len);
    seen_at = cmark_inline_parser_get_offset(ip);
    snprintf(seen, sizeof seen, "%.*s", (int)len, s);
    return NULL;
}

TEST(inline_text_of_a_paragraph)
{
    cmark_syntax_extension *ext = cmark_syntax_extension_new("probe");
    cmark_syntax_extension_set_match_inline_func(ext, probe);
    cmark_syntax_extension_set_special_inline_chars(
        ext, cmark_llist_append(cmark_get_default_mem_allocator(), NULL, (void *)'%'));
    cmark_parser *p = cmark_parser_new(0);
    cmark_parser_attach_syntax_extension(p, ext);
    const char *text = "para\n\nab *c* 5% d\ne\n";
    cmark_parser_feed(p, text, strlen(text));
    cmark_node_free(cmark_parser_finish(p));
    cmark_parser_free(p);
    cmark_syntax_extension_free(cmark_get_default_mem_allocator(), ext); /* a parser does not own it */
    EQ_STR(seen, "ab *c* 5% d\ne");
    EQ_INT(seen_at, 8);
}

TEST(table_can_contain)
{
    cmark_node *doc = parse("| a | b |\n|---|---|\n| 1 | 2 |\n", 0);
    cmark_node *table = nth(doc, 0, "table", 0);
    cmark_node *row = nth(doc, 0, "table_row", 0);
    OK(table && row);
    cmark_syntax_extension *ext = cmark_find_syntax_extension("table");
    cmark_can_contain_func f = md_ext_can_contain(ext);
    OK(f != NULL);
    OK(f(ext, table, cmark_node_get_type(row)));
    OK(!f(ext, table, CMARK_NODE_PARAGRAPH));
    cmark_node_free(doc);
}

int main(void)
{
    RUN(allocator_and_position);
    RUN(footnotes);
    RUN(inline_text_of_a_paragraph);
    RUN(table_can_contain);
    return harness_done();
}
