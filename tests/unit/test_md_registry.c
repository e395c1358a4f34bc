/* Unit tests for md's extension registry (md/internal.h, md/extensions.h):
 * an extension brought in a registry of its own is called by the walk —
 * its code-block renderer in its place of the code-block chain, its hooks
 * for core nodes, its state and its end of the page — and sheaf's own
 * registry holds no empty descriptor and puts every code-block renderer in
 * the chain, math before diagrams before highlighting. */
#include "harness.h"

#include <stdlib.h>

#include "md/internal.h"
#include "util/arena.h"

/* ---- a made-up extension ---- */

static int code_calls; /* how many code blocks it was offered */

static bool info_is(cmark_node *n, const char *word)
{
    const char *info = cmark_node_get_fence_info(n);
    size_t k = strlen(word);
    return info && !strncmp(info, word, k) && (!info[k] || info[k] == ' ');
}

/* Takes ```made-up, and also ```math and ```dot, which math and diagrams
 * take first when they come before it in the chain. */
static bool made_up_code(md_walk *w, buf *out, cmark_node *n)
{
    (void)w;
    code_calls++;
    if (!info_is(n, "made-up") && !info_is(n, "math") && !info_is(n, "dot"))
        return false;
    md_cr(out);
    buf_puts(out, "<made-up>");
    md_put_escaped_cstr(out, cmark_node_get_literal(n));
    buf_puts(out, "</made-up>\n");
    return true;
}

/* A thematic break is written by the extension, and counted in its state;
 * a page with some ends with their count. */
static bool made_up_enter(md_walk *w, buf *out, cmark_node *n)
{
    (void)n;
    int *count = md_ext_state(w, MD_EXT_ALL);
    ++*count;
    md_cr(out);
    buf_puts(out, "<hr class=\"made-up\" />\n");
    return true;
}

static void made_up_finish(md_walk *w, buf *out)
{
    int count = *(int *)md_ext_state(w, MD_EXT_ALL);
    if (count)
        buf_printf(out, "<!-- %d -->\n", count);
}

static const md_ext made_up = {
    .state_size = sizeof(int),
    .nodes = MD_NODE(CMARK_NODE_THEMATIC_BREAK),
    .enter = made_up_enter,
    .code_block = made_up_code,
    .finish = made_up_finish,
};

/* sheaf's extensions and the made-up one (index MD_EXT_ALL, always on),
 * with the code-block chain `chain`. */
static const md_ext *all[MD_EXT_ALL + 1];

static md_registry with_made_up(const int *chain, size_t nchain)
{
    for (size_t i = 0; i < MD_EXT_ALL; i++)
        all[i] = md_registry_builtin.ext[i];
    all[MD_EXT_ALL] = &made_up;
    return (md_registry){ all, MD_EXT_ALL + 1, MD_EXT_COUNT, chain, nchain };
}

static const char *fake_diagram(void *ctx, const md_diagram *d, arena *a, const char **error, int *at)
{
    (void)ctx;
    (void)d;
    (void)error;
    (void)at;
    return arena_strdup(a, "<svg>drawn</svg>");
}

static const char *html(const md_registry *reg, md_options *o, const char *s, arena *a)
{
    md_result r;
    md_render_with(reg, str_from(s), 1, o, NULL, a, &r);
    return r.html;
}

TEST(code_block_chain)
{
    arena *a = arena_new();
    md_options o = { .diagram = fake_diagram };

    /* math, then the made-up one, then diagrams, then highlighting */
    static const int before_dot[] = { MD_EXT_MATH, MD_EXT_ALL, MD_EXT_DIAGRAMS, MD_EXT_HIGHLIGHT };
    md_registry reg = with_made_up(before_dot, 4);
    code_calls = 0;
    EQ_STR(html(&reg, &o, "```made-up\na < b\n```\n", a), "<made-up>a &lt; b\n</made-up>\n");
    EQ_INT(code_calls, 1);
    /* math comes first: the made-up renderer is not even asked */
    code_calls = 0;
    const char *math = html(&reg, &o, "```math\nx^2\n```\n", a);
    OK(!strstr(math, "made-up"));
    OK(strstr(math, "x^2") != NULL);
    EQ_INT(code_calls, 0);
    /* it comes before diagrams: ```dot is its */
    EQ_STR(html(&reg, &o, "```dot\ndigraph{}\n```\n", a), "<made-up>digraph{}\n</made-up>\n");
    /* what it declines goes on to highlighting */
    code_calls = 0;
    OK(strstr(html(&reg, &o, "```c\nint x;\n```\n", a), "class=\"hl\" data-lang=\"c\"") != NULL);
    EQ_INT(code_calls, 1);
    /* with math off, ```math comes to it */
    md_options no_math = { .off = md_extension_bit("math") };
    EQ_STR(html(&reg, &no_math, "```math\nx^2\n```\n", a), "<made-up>x^2\n</made-up>\n");

    /* after diagrams: ```dot is a diagram */
    static const int after_dot[] = { MD_EXT_MATH, MD_EXT_DIAGRAMS, MD_EXT_ALL, MD_EXT_HIGHLIGHT };
    reg = with_made_up(after_dot, 4);
    EQ_STR(html(&reg, &o, "```dot\ndigraph{}\n```\n", a),
           "<div class=\"diagram\"><div class=\"diagram-scroll\" tabindex=\"0\" role=\"group\" "
           "aria-label=\"Diagram\"><svg aria-label=\"Diagram\">drawn</svg></div></div>\n");

    /* last, after highlighting, which takes every block: never asked */
    static const int last[] = { MD_EXT_MATH, MD_EXT_DIAGRAMS, MD_EXT_HIGHLIGHT, MD_EXT_ALL };
    reg = with_made_up(last, 4);
    code_calls = 0;
    OK(strstr(html(&reg, &o, "```made-up\nx\n```\n", a), "<code class=\"language-made-up\">x\n</code>")
       != NULL);
    EQ_INT(code_calls, 0);
    /* with highlighting off, it is asked and takes its block */
    md_options no_hl = { .off = md_extension_bit("highlight") };
    EQ_STR(html(&reg, &no_hl, "```made-up\nx\n```\n", a), "<made-up>x\n</made-up>\n");
    /* what none takes is written as cmark-gfm writes it */
    EQ_STR(html(&reg, &no_hl, "```c\nint x;\n```\n", a),
           "<pre tabindex=\"0\"><code class=\"language-c\">int x;\n</code></pre>\n");
    arena_free(a);
}

TEST(node_hooks_and_state)
{
    arena *a = arena_new();
    static const int chain[] = { MD_EXT_ALL };
    md_registry reg = with_made_up(chain, 1);
    md_options o = { 0 };
    EQ_STR(html(&reg, &o, "a\n\n---\n\nb\n\n***\n", a),
           "<p>a</p>\n<hr class=\"made-up\" />\n<p>b</p>\n<hr class=\"made-up\" />\n<!-- 2 -->\n");
    /* a new page starts with its state zeroed */
    EQ_STR(html(&reg, &o, "---\n", a), "<hr class=\"made-up\" />\n<!-- 1 -->\n");
    arena_free(a);
}

/* sheaf's registry: each descriptor brings a hook; each code-block
 * renderer has its place in the chain, once; math, diagrams, highlighting. */
TEST(builtin_registry)
{
    const md_registry *reg = &md_registry_builtin;
    EQ_INT((long long)reg->n, MD_EXT_ALL);
    EQ_INT((long long)reg->nswitches, (long long)md_extension_count());
    for (size_t i = 0; i < reg->n; i++) {
        const md_ext *e = reg->ext[i];
        bool hooks = e->options || e->attach || e->attach_walk || e->prepare || e->render || e->enter
                     || e->leave || e->exit || e->text || e->code_block || e->finish;
        if (!hooks)
            FAILF("extension %zu (%s) brings no hook", i, i < reg->nswitches ? md_extension_name(i) : "");
        if ((e->owns != NULL) != (e->render != NULL))
            FAILF("extension %zu: owns and render go together", i);
        if ((e->enter || e->leave || e->exit) && !e->nodes)
            FAILF("extension %zu: node hooks but no node types", i);
        int in_chain = 0;
        for (size_t k = 0; k < reg->nchain; k++)
            in_chain += reg->chain[k] == (int)i;
        EQ_INT(in_chain, e->code_block ? 1 : 0);
    }
    EQ_INT((long long)reg->nchain, 3);
    EQ_INT(reg->chain[0], MD_EXT_MATH);
    EQ_INT(reg->chain[1], MD_EXT_DIAGRAMS);
    EQ_INT(reg->chain[2], MD_EXT_HIGHLIGHT);
}

int main(void)
{
    RUN(code_block_chain);
    RUN(node_hooks_and_state);
    RUN(builtin_registry);
    return harness_done();
}
