/* diagram/dot.c: one dot source → Graphviz → SVG (diagram/svg.c fixes it).
 *
 * One Graphviz context for the process, made on first use and kept (its
 * plugins are loaded once; Debian's libgvc finds them through its
 * config6a); every call into Graphviz holds `lock`, since Graphviz keeps
 * its parser, error stream and much else in globals. Graphviz's messages
 * are kept, not printed (agseterrf: `heard`); the first error among them
 * (not a warning that came after it) becomes the message, "syntax error in
 * line 3 near '->'" giving the line too.
 *
 * The bounds (dot.h) are checked before layout, the one step that can run
 * long. A graph that asks Graphviz to read files (image=, shapefile=, an
 * HTML label's <IMG>) is refused: a page's source should not make the
 * build read paths of the machine it runs on. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diagram/dot.h"

static atomic_size_t layouts;

size_t diagram_dot_layouts(void) { return atomic_load(&layouts); }

bool diagram_dot_engine_ok(const char *name, size_t n)
{
    static const char *const engines[] = { "dot", "neato", "fdp", "sfdp", "circo", "twopi", "osage", "patchwork" };
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++)
        if (strlen(engines[i]) == n && !memcmp(engines[i], name, n))
            return true;
    return false;
}

#define STR_(x) #x
#define STR(x) STR_(x)

#ifdef SHEAF_NO_GRAPHVIZ

const char *diagram_dot_version(void) { return "graphviz none svg-pass " STR(DIAGRAM_SVG_PASS); }

bool diagram_dot_render(const char *src, size_t len, const char *engine, buf *svg, buf *err,
                        int *err_line)
{
    (void)src, (void)len, (void)engine, (void)svg;
    *err_line = 0;
    buf_puts(err, "this sheaf was built without Graphviz (the static release binary has none: "
                  "use the Debian package or build sheaf with libgraphviz-dev)");
    return false;
}

#else

/* Under AddressSanitizer (SHEAF_SANITIZE, the fuzz targets), leaks that
 * are Graphviz 2.43's and its libraries', not sheaf's, are not reported:
 *  - fontconfig, which Graphviz's Pango text layout starts, keeps its
 *    configuration in blocks LeakSanitizer cannot reach from a root —
 *    about 150 KB, once, the same after 2 diagrams or 200 (measured);
 *  - HTML-like labels (`label=<…>`): the HTML parser and the Pango markup
 *    it measures leak a few hundred bytes a label (make_html_label);
 *    and when a graph's HTML-like label does not parse,
 *    make_label's copy of its text is replaced by the plain-text fallback
 *    and never freed (do_graph_label; `digraph { label=<<b>x</i>> }`);
 *  - the port names of record labels, a few bytes each, lost while dot
 *    sets its nodes up (dot_init_node_edge);
 *  - some of the virtual nodes and edges dot adds while it breaks cycles,
 *    ranks and orders (new_virtual_edge, make_aux_edge,
 *    named_virtual_node: 128 bytes an edge, for cycles and clusters);
 *  - neato's clusters' labels and boxes (neato_layout).
 * These are matched by function name, which needs the full unwinder:
 * fuzz_dot runs with it (fast_unwind_on_malloc=0), and then everything
 * else Graphviz allocates for sheaf is checked — the graph (agclose), the
 * layout (gvFreeLayout: leaving it out is reported), the SVG
 * (gvFreeRenderData). With the default fast
 * unwinder (the ASan pass of the test suite) a stack stops in libgvc's
 * allocator, so there all of libgvc's allocations go unreported. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHEAF_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(SHEAF_ASAN)
#define GRAPHVIZ_LEAKS                                                                                   \
    "leak:libfontconfig.so\nleak:make_html_label\nleak:do_graph_label\nleak:dot_init_node_edge\n"     \
    "leak:new_virtual_edge\nleak:make_aux_edge\nleak:named_virtual_node\nleak:neato_layout\n"
extern const char *__asan_default_options(void) __attribute__((weak));
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    static const char full[] = "fast_unwind_on_malloc=0";
    const char *env = getenv("ASAN_OPTIONS");
    bool slow = (env && strstr(env, full)) ||
                (__asan_default_options && __asan_default_options() && strstr(__asan_default_options(), full));
    return slow ? GRAPHVIZ_LEAKS : GRAPHVIZ_LEAKS "leak:libgvc.so\n";
}
/* The table of suppressions used, which LSan prints at exit, would be
 * stderr a build did not write (the site tests compare stderr exactly). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }
#endif

#include <graphviz_version.h>
#include <gvc.h>

/* The parser's flex scanner (libcgraph exports it; no header declares it).
 * Graphviz leaves the scanner's buffer in place after a parse: whatever
 * followed the graph (a second graph, a newline) is read by the next
 * read as the start of its input — another page's diagram. Destroying
 * the scanner after each parse drops it (the next parse makes a new one). */
extern int aaglex_destroy(void);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static GVC_t *gvc; /* under lock; kept for the process */

/* Graphviz's ID discipline but for the numbers of unnamed objects — an
 * unnamed graph, a node named "%…" — which Graphviz's own counts up for the
 * whole process: the same source was "%5" in one render and "%9" in the
 * next, in a node's label, a message, and so in a page that then depended
 * on which diagrams the build had laid out before (found by fuzz_dot).
 * Here they count from 1 for each diagram (odd, as Graphviz's: an even ID
 * is a name's string). Under lock. */
static IDTYPE unnamed_next;
static Agiddisc_t ids;

static long map_id(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
    if (str)
        return AgIdDisc.map(state, objtype, str, id, createflag);
    *id = unnamed_next;
    unnamed_next += 2;
    return 1;
}

const char *diagram_dot_version(void)
{
    return "graphviz " PACKAGE_VERSION " svg-pass " STR(DIAGRAM_SVG_PASS) " limits " STR(DIAGRAM_DOT_NSLIMIT) "/" STR(DIAGRAM_DOT_MCLIMIT) "/" STR(DIAGRAM_DOT_SEARCHSIZE) " fonts " DIAGRAM_DOT_FONTS;
}

/* The line of the source on which the n bytes at s first occur, when they
 * occur there once; else 0. */
static int line_of_once(const char *src, size_t len, const char *s, size_t n)
{
    const char *at = n ? memmem(src, len, s, n) : NULL;
    if (!at || memmem(at + 1, len - (size_t)(at + 1 - src), s, n))
        return 0;
    int line = 1;
    for (const char *p = src; p < at; p++)
        line += *p == '\n';
    return line;
}

/* Appends n bytes of Graphviz's message at m as one line (newlines become
 * spaces, as every message of a build is one line), with each unnamed
 * graph's name, "graph %7" (a number that changes from one parse to the
 * next), written "an unnamed graph". */
static void put_message(buf *err, const char *m, size_t n)
{
    const char *end = m + n;
    while (m < end) {
        const char *pct = memmem(m, (size_t)(end - m), "graph %", 7);
        const char *stop = pct ? pct : end;
        for (const char *p = m; p < stop; p++)
            buf_putc(err, *p == '\n' ? ' ' : *p);
        if (!pct)
            break;
        const char *digits = pct + 7, *d = digits;
        while (d < end && *d >= '0' && *d <= '9')
            d++;
        if (d > digits) {
            buf_puts(err, "an unnamed graph");
        } else {
            buf_put(err, pct, 7);
        }
        m = d;
    }
}

/* An HTML-like label's error, as Graphviz writes it over three lines:
 *   "WHAT in line N \n... NEAR ...\nin label of KIND NAME"
 * (N a line of the label, not of the source) → "the HTML-like label of
 * KIND NAME does not parse: WHAT near 'NEAR'", and *line the source's
 * line of NEAR when it is there once. False when m is not such an error. */
static bool label_error(buf *err, int *line, const char *m, size_t n, const char *src, size_t len)
{
    const char *near = memmem(m, n, "\n... ", 5);
    const char *of = near ? memmem(near, n - (size_t)(near - m), " ...\nin label of ", 17) : NULL;
    if (!of)
        return false;
    const char *what_end = near;
    const char *in_line = memmem(m, (size_t)(near - m), " in line ", 9);
    if (in_line)
        what_end = in_line;
    /* the text near the error, without the <HTML></HTML> Graphviz wraps
     * the label in to parse it */
    const char *at = near + 5, *at_end = of;
    if (at_end - at >= 6 && !strncmp(at, "<HTML>", 6))
        at += 6;
    if (at_end - at >= 7 && !strncmp(at_end - 7, "</HTML>", 7))
        at_end -= 7;
    buf_puts(err, "the HTML-like label of ");
    put_message(err, of + 17, (size_t)(m + n - (of + 17)));
    buf_puts(err, " does not parse: ");
    put_message(err, m, (size_t)(what_end - m));
    buf_puts(err, " near '");
    put_message(err, at, (size_t)(at_end - at));
    buf_putc(err, '\'');
    *line = line_of_once(src, len, at, (size_t)(at_end - at));
    return true;
}

/* What Graphviz said during one render (under lock): agerr hands a
 * message to `hear` as its level, "Error" or "Warning", then ": ", then its
 * text, and a continuation (AGPREV) as text alone. */
static struct {
    buf text;
    size_t last;                   /* where the last message starts */
    size_t error, error_end;       /* the first error's text; SIZE_MAX while none */
    bool colon;                    /* the ": " after a level is still to come */
} heard = { BUF_INIT, 0, SIZE_MAX, SIZE_MAX, false };

static void hear_reset(void)
{
    buf_reset(&heard.text);
    heard.last = 0;
    heard.error = heard.error_end = SIZE_MAX;
    heard.colon = false;
}

static int hear(char *s)
{
    bool error = !strcmp(s, "Error");
    if (error || !strcmp(s, "Warning")) {
        if (heard.error != SIZE_MAX && heard.error_end == SIZE_MAX)
            heard.error_end = heard.text.len;
        heard.last = heard.text.len;
        if (error && heard.error == SIZE_MAX)
            heard.error = heard.text.len;
        heard.colon = true;
    } else if (heard.colon && !strcmp(s, ": ")) {
        heard.colon = false;
    } else {
        heard.colon = false;
        buf_puts(&heard.text, s);
    }
    return 0;
}

/* Graphviz's first error (else its last message; else fallback), without
 * "<stdin>: " and the trailing newline; sets *line from "… in line N …"
 * (a line of src). */
static void last_error(buf *err, int *line, const char *fallback, const char *src, size_t len)
{
    size_t from = heard.error != SIZE_MAX ? heard.error : heard.last;
    size_t to = heard.error != SIZE_MAX && heard.error_end != SIZE_MAX ? heard.error_end : heard.text.len;
    const char *m = heard.text.len ? heard.text.data + from : "";
    size_t n = heard.text.len ? to - from : 0;
    while (n && (*m == ' ' || *m == '\n'))
        m++, n--;
    if (n >= 9 && !strncmp(m, "<stdin>: ", 9))
        m += 9, n -= 9;
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
        n--;
    if (!n) {
        m = fallback;
        n = strlen(m);
    }
    if (!label_error(err, line, m, n, src, len)) {
        size_t start = err->len;
        put_message(err, m, n);
        const char *l = strstr(err->data + start, "in line ");
        if (l)
            *line = atoi(l + 8);
    }
}

/* image=, shapefile=, imagepath= on anything, or <IMG in an HTML label */
static const char *reads_files(Agraph_t *g, const char *src, size_t len)
{
    static const char *const names[] = { "image", "shapefile", "imagepath", "fontpath" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        for (int kind = AGRAPH; kind <= AGEDGE; kind++)
            if (agattr(g, kind, (char *)names[i], NULL))
                return names[i];
    for (size_t i = 0; i + 4 <= len; i++)
        if (src[i] == '<' && !strncasecmp(src + i + 1, "img", 3))
            return "<IMG>";
    return NULL;
}

/* dot's iteration limits at most the bounds of dot.h, whatever the graph
 * says (a graph that names none gets them too: network simplex is
 * unbounded by default, and a few hundred random edges keep it busy for
 * minutes; a graph of usual size converges well within them, and lays out
 * the same). */
static void cap(Agraph_t *g, const char *name, double max, const char *text)
{
    const char *v = agget(g, (char *)name);
    if (!v || !*v || !(atof(v) <= max))
        agattr(g, AGRAPH, (char *)name, (char *)text);
}

/* The fonts of the graph, its nodes and edges, where the source names none. */
static void default_fonts(Agraph_t *g)
{
    for (int kind = AGRAPH; kind <= AGEDGE; kind++) {
        Agsym_t *s = agattr(g, kind, "fontname", NULL);
        if (!s || !s->defval || !*s->defval)
            agattr(g, kind, "fontname", DIAGRAM_DOT_FONTS);
    }
}

static bool render_locked(const char *src, size_t len, const char *engine, buf *svg, buf *err,
                          int *err_line)
{
    if (!gvc) {
        gvc = gvContext();
        if (!gvc) {
            buf_puts(err, "cannot start Graphviz");
            return false;
        }
        agseterrf(hear);
        ids = AgIdDisc;
        ids.map = map_id;
    }
    agseterr(AGWARN); /* every message to `hear`, none printed */
    agreseterrors();
    hear_reset();
    char *text = malloc(len + 1);
    if (!text)
        abort();
    memcpy(text, src, len);
    text[len] = 0;
    agreadline(1); /* the line count is the lexer's, and not reset by a read */
    unnamed_next = 1;
    Agdisc_t disc = { &AgMemDisc, &ids, &AgIoDisc };
    FILE *in = len ? fmemopen(text, len, "r") : NULL;
    Agraph_t *g = in ? agread(in, &disc) : NULL;
    if (in)
        fclose(in);
    aaglex_destroy();
    free(text);
    if (!g || agerrors()) {
        last_error(err, err_line, "no graph in it (write `digraph { a -> b }`)", src, len);
        if (g)
            agclose(g);
        return false;
    }
    bool ok = false;
    int nodes = agnnodes(g), edges = agnedges(g);
    const char *files = reads_files(g, src, len);
    if (nodes > DIAGRAM_DOT_MAX_NODES || edges > DIAGRAM_DOT_MAX_EDGES) {
        buf_printf(err, "the graph has %d nodes and %d edges: a diagram may have at most %d nodes and %d edges "
                        "(laying out more can take Graphviz minutes)",
                   nodes, edges, DIAGRAM_DOT_MAX_NODES, DIAGRAM_DOT_MAX_EDGES);
        goto close;
    }
    if (files) {
        buf_printf(err, "%s%s would make Graphviz read a file of the machine that builds the site: "
                        "sheaf does not let a diagram do that",
                   files, *files == '<' ? "" : "=");
        goto close;
    }
    const char *layout = agget(g, "layout");
    if (layout && !*layout) {
        /* set empty, or only inside a subgraph (the graph's own is then
         * ""): Graphviz takes it from the graph, finds no engine of that
         * name, and leaks the list of engines it says instead */
        buf_puts(err, "layout= is empty or set only inside a subgraph: Graphviz reads it from the graph "
                      "itself (write e.g. `layout=neato` at the top of the graph)");
        goto close;
    }
    if (layout && *layout && !diagram_dot_engine_ok(layout, strlen(layout))) {
        buf_printf(err, "layout=%s is not a layout engine sheaf runs (dot, neato, fdp, sfdp, circo, twopi, "
                        "osage, patchwork)", layout);
        goto close;
    }
    default_fonts(g);
    cap(g, "nslimit", DIAGRAM_DOT_NSLIMIT, STR(DIAGRAM_DOT_NSLIMIT));
    cap(g, "nslimit1", DIAGRAM_DOT_NSLIMIT, STR(DIAGRAM_DOT_NSLIMIT));
    cap(g, "mclimit", DIAGRAM_DOT_MCLIMIT, STR(DIAGRAM_DOT_MCLIMIT));
    cap(g, "searchsize", DIAGRAM_DOT_SEARCHSIZE, STR(DIAGRAM_DOT_SEARCHSIZE));
    atomic_fetch_add(&layouts, 1);
    if (gvLayout(gvc, g, engine ? engine : "dot") != 0 || agerrors()) {
        last_error(err, err_line, "Graphviz could not lay the graph out", src, len);
        gvFreeLayout(gvc, g);
        goto close;
    }
    char *out = NULL;
    unsigned int n = 0;
    if (gvRenderData(gvc, g, "svg", &out, &n) != 0 || !out) {
        last_error(err, err_line, "Graphviz could not write SVG", src, len);
    } else {
        ok = diagram_svg_fix(svg, out, n, err);
    }
    gvFreeRenderData(out);
    gvFreeLayout(gvc, g);
close:
    agclose(g);
    return ok;
}

bool diagram_dot_render(const char *src, size_t len, const char *engine, buf *svg, buf *err,
                        int *err_line)
{
    *err_line = 0;
    if (len > DIAGRAM_DOT_MAX_BYTES) {
        buf_printf(err, "this diagram has %zu bytes, more than the %d a diagram may have", len,
                   DIAGRAM_DOT_MAX_BYTES);
        return false;
    }
    if (memchr(src, 0, len)) {
        buf_puts(err, "the diagram holds a NUL byte");
        return false;
    }
    pthread_mutex_lock(&lock);
    bool ok = render_locked(src, len, engine, svg, err, err_line);
    pthread_mutex_unlock(&lock);
    return ok;
}

#endif
