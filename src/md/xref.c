/* md/xref.c: numbered figures, tables, equations and sections, the
 * references to them, and GitHub's and Obsidian's alerts.
 *
 * Labels use Pandoc's and Quarto's syntax, and a label's key says what it
 * names by its prefix: `fig-`, `tbl-`, `eq-`, `sec-`.
 *
 *   ![The system](arch.png){#fig-arch}        a figure (caption: the alt
 *                                              text, or caption="…")
 *   : Results per run {#tbl-results}           a table's caption, on the
 *                                              paragraph before or after it
 *   $$ … $$ {#eq-rate}                         an equation (md/math.c)
 *   ## Results {#sec-results}                  a section
 *
 * References use the citation syntax (md/cite.c reads it; keys with these
 * prefixes are never citations): `@fig-arch` is "Figure 2", `[@fig-a;
 * @fig-b]` "Figures 2 and 3", `[-@fig-a]` "2", each number a link to its
 * label. A link with no text to a label, `[](#fig-a)`, is the same as
 * `@fig-a`; to another page's label, `[](other.md#fig-a)`, its text is
 * that page's (md_xlink: the site fills it in once every page is
 * rendered).
 *
 * THE REGISTRY. Every labelled thing registers with md_label_add, in the
 * order the walk writes it: that call checks the key is new on the page
 * (a duplicate is an error naming both places), claims the key as an id
 * of the page (so `#links` to it are checked like headings'), and gives
 * the next number of its kind. A new kind of figure (a diagram, say) is
 * one call to md_label_add where it is written, then md_label_caption for
 * its caption's "Figure 2: ". Equations are numbered by md/math.c before
 * the walk (`\label` and `{#eq-}` share the numbers) and join the registry
 * at the end.
 *
 * References are written as holes in the page's HTML (md.c's id holes)
 * and filled once the walk has seen every label, so a reference may come
 * before its figure; an unknown key is an error at the `@` with the
 * closest label suggested.
 *
 * Before the walk, md_xref_prepare finds figures, table captions and
 * alerts in the tree, marks their nodes (user data) and takes the syntax
 * out of their text, so the walk only writes them. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md/internal.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/xalloc.h"

static const char *const prefixes[MD_LABEL_KINDS] = { "fig-", "tbl-", "eq-", "sec-" };

int md_label_kind_of(const char *key, size_t len)
{
    for (int k = 0; k < MD_LABEL_KINDS; k++) {
        size_t n = strlen(prefixes[k]);
        if (len > n && !memcmp(key, prefixes[k], n))
            return k;
    }
    return -1;
}

static const md_words english = {
    .one = { "Figure {n}", "Table {n}", "Equation {n}", "Section {n}" },
    .many = { "Figures {n}", "Tables {n}", "Equations {n}", "Sections {n}" },
    .list_sep = ", ",
    .list_and = " and ",
    .caption_sep = ": ",
    .alert = { "Note", "Tip", "Important", "Warning", "Caution" },
};

/* A word of the options', else the English one: WORD(w, list_sep),
 * WORD(w, one[kind]). */
static const char *pick(const char *given, const char *english) { return given ? given : english; }
#define WORD(w, field)                                                                           \
    pick(md_walk_options(w)->words ? md_walk_options(w)->words->field : NULL, english.field)

/* ---- the page's state ---- */

typedef struct xref_item {
    const char *key;
    bool suppress;
    int line, col; /* cmark's lines */
} xref_item;

typedef struct xref {
    xref_item *items;
    size_t n;
    const char *html, *plain; /* filled by md_xref_finish */
} xref;

struct md_xrefs {
    md_vec labels; /* md_label */
    md_vec refs;   /* xref */
    md_vec xlinks; /* md_xlink */
    strmap *index; /* label id → its index in labels */
    size_t count[MD_LABEL_KINDS];
    int sec_base;         /* the level numbered sections count from (0: none) */
    int sec_num[7];       /* the section counters, by depth */
};

static md_xrefs *state(md_walk *w)
{
    md_xrefs **p = md_walk_xrefs(w);
    if (!*p) {
        *p = xcalloc(1, sizeof **p);
        (*p)->labels.size = sizeof(md_label);
        (*p)->refs.size = sizeof(xref);
        (*p)->xlinks.size = sizeof(md_xlink);
        (*p)->index = strmap_new(16);
    }
    return *p;
}

/* ---- the registry ---- */

/* claim: make the key an id of the page (a heading's `{#sec-…}` is one
 * already, and a duplicate of it was reported as one). */
static const char *label_add(md_walk *w, const char *id, int line, int col, const char *number,
                             const char *text, bool claim)
{
    int kind = md_label_kind_of(id, strlen(id));
    if (kind < 0)
        return NULL;
    md_xrefs *x = state(w);
    long old = strmap_get(x->index, id);
    if (old >= 0) {
        const md_label *o = (const md_label *)x->labels.v + old;
        if (claim)
            md_problem_at(w, true, line, col,
                          "duplicate label '%s': line %d, column %d has it already (a label names one thing)",
                          id, o->line, o->col);
        return NULL;
    }
    if (claim)
        md_claim_id(w, id, strlen(id), line, col, true);
    arena *a = md_walk_arena(w);
    if (!number)
        number = arena_printf(a, "%zu", ++x->count[kind]);
    md_label *l = md_vec_push(&x->labels);
    l->id = arena_strdup(a, id);
    l->kind = (md_label_kind)kind;
    l->number = number;
    l->text = text ? arena_strdup(a, text) : "";
    l->line = md_file_line(w, line);
    l->col = col;
    strmap_put(x->index, l->id, (long)(x->labels.n - 1));
    return number;
}

const char *md_label_add(md_walk *w, const char *id, int line, int col, const char *number,
                         const char *text)
{
    return label_add(w, id, line, col, number, text, true);
}


/* The space that joins a label's word to its number: U+00A0, so that a
 * line never ends between "Figure" and "2" (nor "Fig." and "2"). Not an
 * entity: the text also goes into feeds, where XML knows no &nbsp;. */
#define NBSP "\xC2\xA0"

void md_label_form(buf *out, const char *fmt, const char *inner, size_t inner_len, bool escape)
{
    const char *at = strstr(fmt, "{n}");
    size_t pre = at ? (size_t)(at - fmt) : strlen(fmt);
    bool sp_before = !at || (pre && fmt[pre - 1] == ' '), sp_after = at && at[3] == ' ';
    size_t keep = at ? pre - (pre && fmt[pre - 1] == ' ') : pre;
    if (escape)
        md_put_escaped(out, fmt, keep);
    else
        buf_put(out, fmt, keep);
    if (sp_before)
        buf_puts(out, NBSP);
    buf_put(out, inner, inner_len);
    if (!at)
        return;
    if (sp_after)
        buf_puts(out, NBSP);
    if (escape)
        md_put_escaped_cstr(out, at + 3 + sp_after);
    else
        buf_puts(out, at + 3 + sp_after);
}

static void put_form(buf *out, const char *fmt, const char *inner, size_t inner_len)
{
    md_label_form(out, fmt, inner, inner_len, true);
}

const char *md_xref_label_words(md_walk *w, const char *id, int line, int col, const char **words,
                                const char **sep)
{
    if (md_label_kind_of(id, strlen(id)) != MD_LABEL_FIG)
        return NULL;
    const char *num = label_add(w, id, line, col, NULL, NULL, false);
    md_xrefs *x = state(w);
    if (!num) { /* a duplicate: say so (label_add does not, unclaimed) */
        const md_label *o = (const md_label *)x->labels.v + strmap_get(x->index, id);
        md_problem_at(w, true, line, col,
                      "duplicate label '%s': line %d, column %d has it already (a label names one thing)",
                      id, o->line, o->col);
        return NULL;
    }
    buf b = BUF_INIT;
    md_label_form(&b, WORD(w, one[MD_LABEL_FIG]), num, strlen(num), false);
    *words = arena_strndup(md_walk_arena(w), b.data, b.len);
    buf_release(&b);
    *sep = WORD(w, caption_sep);
    return num;
}

void md_label_caption(md_walk *w, buf *out, md_label_kind kind, const char *number)
{
    buf n = BUF_INIT;
    md_put_escaped_cstr(&n, number);
    buf_puts(out, "<span class=\"caption-number\">");
    put_form(out, WORD(w, one[kind]), n.data, n.len);
    buf_puts(out, "</span>");
    md_put_escaped_cstr(out, WORD(w, caption_sep));
    buf_release(&n);
}

/* ---- attribute lists: {#fig-a caption="…" width=50%} ---- */

typedef struct attrs {
    const char *id;      /* arena */
    const char *caption; /* arena, or NULL */
    const char *ignored; /* the first other key (arena), or NULL */
} attrs;

static bool id_char(unsigned char c) { return c > ' ' && c != '{' && c != '}' && c != '"' && c != '\''; }

/* Reads t[0..n) (braces included); false when it is no attribute list
 * with an id. Quotes may be straight or curly (smart punctuation). */
static bool read_attrs(arena *a, const char *t, size_t n, attrs *out)
{
    memset(out, 0, sizeof *out);
    if (n < 3 || t[0] != '{' || t[n - 1] != '}')
        return false;
    size_t i = 1, end = n - 1;
    while (i < end) {
        if (t[i] == ' ' || t[i] == '\t' || t[i] == '\n') {
            i++;
            continue;
        }
        size_t k = i + 1;
        if (t[i] == '#') {
            while (k < end && id_char((unsigned char)t[k]))
                k++;
            if (k == i + 1 || out->id)
                return false;
            out->id = arena_strndup(a, t + i + 1, k - i - 1);
        } else if (t[i] == '.') {
            while (k < end && id_char((unsigned char)t[k]))
                k++;
        } else if (isalpha((unsigned char)t[i])) {
            while (k < end && (isalnum((unsigned char)t[k]) || t[k] == '-' || t[k] == '_'))
                k++;
            if (k >= end || t[k] != '=')
                return false;
            const char *key = t + i;
            size_t klen = k - i;
            k++;
            const char *v = t + k;
            size_t vlen;
            static const char *const opens[] = { "\"", "'", "\xE2\x80\x9C", "\xE2\x80\x98" };
            static const char *const closes[] = { "\"", "'", "\xE2\x80\x9D", "\xE2\x80\x99" };
            /* t is not NUL-terminated (a line of the source): bounded */
            size_t q = 0, left = end - k;
            while (q < 4 && (left < strlen(opens[q]) || memcmp(v, opens[q], strlen(opens[q]))))
                q++;
            if (q < 4) {
                v += strlen(opens[q]);
                const char *e = memmem(v, (size_t)(t + end - v), closes[q], strlen(closes[q]));
                if (!e)
                    return false;
                vlen = (size_t)(e - v);
                k = (size_t)(e - t) + strlen(closes[q]);
            } else {
                while (k < end && t[k] != ' ' && t[k] != '\t')
                    k++;
                vlen = (size_t)(t + k - v);
            }
            if (klen == 7 && !memcmp(key, "caption", 7))
                out->caption = arena_strndup(a, v, vlen);
            else if (!out->ignored)
                out->ignored = arena_strndup(a, key, klen);
        } else {
            return false;
        }
        if (k < end && t[k] != ' ' && t[k] != '\t' && t[k] != '\n')
            return false;
        i = k;
    }
    return out->id != NULL;
}

/* The text of the trailing text nodes of p (from `first` on) joined. */
static cmark_node *trailing_text(cmark_node *p, buf *t)
{
    cmark_node *first = cmark_node_last_child(p);
    if (!first || cmark_node_get_type(first) != CMARK_NODE_TEXT)
        return NULL;
    while (cmark_node_previous(first) && cmark_node_get_type(cmark_node_previous(first)) == CMARK_NODE_TEXT)
        first = cmark_node_previous(first);
    buf_reset(t);
    for (cmark_node *c = first; c; c = cmark_node_next(c))
        buf_puts(t, cmark_node_get_literal(c));
    return first;
}

/* Cuts the text nodes from `first` on down to `keep` bytes in all (the
 * ones left empty go). */
static void cut_text(cmark_node *first, size_t keep)
{
    size_t at = 0;
    buf lit = BUF_INIT;
    for (cmark_node *c = first; c;) {
        cmark_node *next = cmark_node_next(c);
        const char *s = cmark_node_get_literal(c);
        size_t len = strlen(s);
        if (at >= keep) {
            cmark_node_free(c);
        } else if (at + len > keep) {
            buf_reset(&lit);
            buf_put(&lit, s, keep - at);
            cmark_node_set_literal(c, lit.data);
        }
        at += len;
        c = next;
    }
    buf_release(&lit);
}

/* Where `want` is among the lines of block n (its last occurrence), in
 * cmark's lines; the block's start when not found. */
static void place_of(md_walk *w, cmark_node *n, const char *want, int *line, int *col)
{
    *line = cmark_node_get_start_line(n);
    *col = cmark_node_get_start_column(n);
    size_t wn = strlen(want);
    for (int ln = cmark_node_get_start_line(n); ln <= cmark_node_get_end_line(n); ln++) {
        const char *p, *q;
        size_t len;
        if (!md_source_line(md_walk_source(w), ln, &p, &len))
            break;
        for (q = p; wn && (q = memmem(q, len - (size_t)(q - p), want, wn)) != NULL; q++) {
            *line = ln;
            *col = (int)(q - p) + 1;
        }
    }
}

/* Takes a trailing `{#kind-… …}` off paragraph p: its attributes at *at,
 * its place at line:col; false (p unchanged) when p ends in none with an
 * id of that kind. */
static bool take_label(md_walk *w, cmark_node *p, int kind, attrs *at, int *line, int *col)
{
    buf t = BUF_INIT;
    cmark_node *first = trailing_text(p, &t);
    bool ok = false;
    size_t e = t.len;
    while (e && (t.data[e - 1] == ' ' || t.data[e - 1] == '\t'))
        e--;
    if (first && e && t.data[e - 1] == '}') {
        size_t open = e - 1;
        while (open > 0 && t.data[open] != '{')
            open--;
        if (t.data[open] == '{' && read_attrs(md_walk_arena(w), t.data + open, e - open, at)
            && md_label_kind_of(at->id, strlen(at->id)) == kind) {
            char *want = arena_strndup(md_walk_arena(w), t.data + open, strcspn(t.data + open, "\n"));
            place_of(w, p, want, line, col);
            size_t keep = open;
            while (keep && (t.data[keep - 1] == ' ' || t.data[keep - 1] == '\t'))
                keep--;
            cut_text(first, keep);
            ok = true;
        }
    }
    buf_release(&t);
    return ok;
}

/* ---- marks on nodes ---- */

enum { MARK_FIGURE = 1, MARK_CAPTION, MARK_TABLE, MARK_ALERT };

typedef struct mark {
    int kind;
    const char *id;       /* a figure's, a table's label */
    const char *caption;  /* a figure's caption= (NULL: its alt text) */
    cmark_node *para;     /* a table's caption paragraph */
    int line, col;        /* the label's place (cmark's lines) */
    int alert;            /* 0 note … 4 caution */
    char fold;            /* '-' folded, '+' open, 0 a plain callout */
    const char *title;    /* an alert's own title, or NULL */
    const char *number;   /* a figure's, once the walk has entered it */
} mark;

static const mark *mark_of(cmark_node *n, int kind)
{
    const mark *m = n ? cmark_node_get_user_data(n) : NULL;
    return m && m->kind == kind ? m : NULL;
}

static mark *new_mark(md_walk *w, cmark_node *n, int kind)
{
    mark *m = arena_alloc(md_walk_arena(w), sizeof *m);
    memset(m, 0, sizeof *m);
    m->kind = kind;
    cmark_node_set_user_data(n, m);
    return m;
}

/* An image alone in a paragraph, then `{#fig-…}` (read from the source:
 * a caption="…" may hold what cmark reads as markup). */
static void prepare_figure(md_walk *w, cmark_node *p)
{
    cmark_node *img = cmark_node_first_child(p);
    if (!img || cmark_node_get_type(img) != CMARK_NODE_IMAGE || !cmark_node_next(img))
        return;
    buf t = BUF_INIT;
    for (cmark_node *c = cmark_node_next(img); c; c = cmark_node_next(c)) {
        cmark_node_type ty = cmark_node_get_type(c);
        if (ty == CMARK_NODE_SOFTBREAK || ty == CMARK_NODE_LINEBREAK || ty == CMARK_NODE_IMAGE
            || ty == CMARK_NODE_LINK) {
            buf_release(&t);
            return;
        }
        if (ty == CMARK_NODE_TEXT || ty == CMARK_NODE_CODE)
            buf_puts(&t, cmark_node_get_literal(c));
        else
            md_plain_text(c, &t);
    }
    const char *s = t.data + strspn(t.data, " \t");
    bool looks = !strncmp(s, "{#fig-", 6) && t.len && t.data[t.len - 1] == '}';
    buf_release(&t);
    /* the source's last line of the paragraph ends with the list */
    const char *line;
    size_t len;
    int ln = cmark_node_get_end_line(p);
    if (!looks || !md_source_line(md_walk_source(w), ln, &line, &len))
        return;
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--;
    const char *open = NULL;
    for (size_t i = len; i-- > 0 && !open;)
        if (len - i >= 6 && !memcmp(line + i, "{#fig-", 6))
            open = line + i;
    attrs at;
    if (!open || !read_attrs(md_walk_arena(w), open, (size_t)(line + len - open), &at)
        || md_label_kind_of(at.id, strlen(at.id)) != MD_LABEL_FIG)
        return;
    for (cmark_node *c = cmark_node_next(img); c;) {
        cmark_node *next = cmark_node_next(c);
        cmark_node_free(c);
        c = next;
    }
    mark *m = new_mark(w, p, MARK_FIGURE);
    m->id = at.id;
    m->caption = at.caption;
    m->line = ln;
    m->col = (int)(open - line) + 1;
    if (at.ignored)
        md_problem_at(w, false, m->line, m->col,
                      "figure attribute '%s' is ignored: sheaf reads a figure's #id and caption only",
                      at.ignored);
}

static bool is_table(cmark_node *n)
{
    return n && cmark_node_get_syntax_extension(n) && !strcmp(cmark_node_get_type_string(n), "table");
}

/* A paragraph `: Caption {#tbl-…}` (or `Table: …`) next to a table. */
static bool prepare_caption(md_walk *w, cmark_node *table, cmark_node *p)
{
    if (!p || cmark_node_get_type(p) != CMARK_NODE_PARAGRAPH || cmark_node_get_user_data(p))
        return false;
    cmark_node *first = cmark_node_first_child(p);
    if (!first || cmark_node_get_type(first) != CMARK_NODE_TEXT)
        return false;
    const char *s = cmark_node_get_literal(first);
    size_t skip = !strncmp(s, ": ", 2) ? 2 : !strncmp(s, "Table: ", 7) ? 7 : 0;
    if (!skip)
        return false;
    attrs at;
    int line, col;
    if (!take_label(w, p, MD_LABEL_TBL, &at, &line, &col))
        return false;
    first = cmark_node_first_child(p);
    if (first && cmark_node_get_type(first) == CMARK_NODE_TEXT) {
        s = cmark_node_get_literal(first);
        char *rest = xstrdup(s + (strlen(s) >= skip ? skip : strlen(s)));
        cmark_node_set_literal(first, rest);
        free(rest);
    }
    mark *t = new_mark(w, table, MARK_TABLE);
    t->id = at.id;
    t->para = p;
    t->line = line;
    t->col = col;
    new_mark(w, p, MARK_CAPTION);
    if (at.ignored)
        md_problem_at(w, false, line, col,
                      "table attribute '%s' is ignored: sheaf reads a table's #id only", at.ignored);
    return true;
}

static const char *const alert_kinds[5] = { "note", "tip", "important", "warning", "caution" };

/* `> [!NOTE]`, `> [!tip]- Title`: the first line of the quote's first
 * paragraph. */
static void prepare_alert(md_walk *w, cmark_node *q)
{
    cmark_node *p = cmark_node_first_child(q);
    if (!p || cmark_node_get_type(p) != CMARK_NODE_PARAGRAPH)
        return;
    /* the first line's text nodes ('[' and ']' are nodes of their own) */
    buf t = BUF_INIT;
    cmark_node *c = cmark_node_first_child(p), *stop = NULL;
    for (; c; c = cmark_node_next(c)) {
        cmark_node_type ty = cmark_node_get_type(c);
        if (ty == CMARK_NODE_SOFTBREAK || ty == CMARK_NODE_LINEBREAK) {
            stop = c;
            break;
        }
        if (ty != CMARK_NODE_TEXT) {
            buf_release(&t);
            return; /* a title with markup: not read as an alert */
        }
        buf_puts(&t, cmark_node_get_literal(c));
    }
    const char *s = t.data;
    int kind = -1;
    size_t k = 0;
    if (!strncmp(s, "[!", 2)) {
        const char *e = strchr(s + 2, ']');
        for (int i = 0; e && i < 5; i++)
            if ((size_t)(e - s - 2) == strlen(alert_kinds[i]) && !strncasecmp(s + 2, alert_kinds[i], strlen(alert_kinds[i])))
                kind = i;
        if (kind >= 0)
            k = (size_t)(e - s) + 1;
    }
    if (kind < 0) {
        buf_release(&t);
        return;
    }
    mark *m = new_mark(w, q, MARK_ALERT);
    m->alert = kind;
    if (s[k] == '-' || s[k] == '+')
        m->fold = s[k++];
    while (s[k] == ' ' || s[k] == '\t')
        k++;
    size_t tl = t.len - k;
    while (tl && (s[k + tl - 1] == ' ' || s[k + tl - 1] == '\t'))
        tl--;
    if (tl)
        m->title = arena_strndup(md_walk_arena(w), s + k, tl);
    buf_release(&t);
    /* the marker's line goes */
    for (c = cmark_node_first_child(p); c && c != stop;) {
        cmark_node *next = cmark_node_next(c);
        cmark_node_free(c);
        c = next;
    }
    if (stop)
        cmark_node_free(stop);
    if (!cmark_node_first_child(p))
        cmark_node_free(p);
}

void md_xref_prepare(md_walk *w, cmark_node *doc)
{
    md_vec nodes = { .size = sizeof(cmark_node *) };
    cmark_iter *it = cmark_iter_new(doc);
    cmark_event_type ev;
    bool alerts = !md_reference(w);
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER)
            continue;
        cmark_node_type t = cmark_node_get_type(n);
        bool table = is_table(n);
        if (t == CMARK_NODE_PARAGRAPH || (t == CMARK_NODE_BLOCK_QUOTE && alerts) || table)
            *(cmark_node **)md_vec_push(&nodes) = n;
        if (t == CMARK_NODE_PARAGRAPH || t == CMARK_NODE_HEADING || table)
            cmark_iter_reset(it, n, CMARK_EVENT_EXIT); /* inlines only below */
    }
    cmark_iter_free(it);
    cmark_node **v = nodes.v;
    for (size_t i = 0; i < nodes.n; i++) {
        cmark_node *n = v[i];
        if (is_table(n)) {
            if (!prepare_caption(w, n, cmark_node_previous(n)))
                prepare_caption(w, n, cmark_node_next(n));
        } else if (cmark_node_get_type(n) == CMARK_NODE_BLOCK_QUOTE) {
            prepare_alert(w, n);
        }
    }
    /* figures after captions and alerts: an alert may have freed a
     * paragraph of the list, so look again */
    free(nodes.v);
    it = cmark_iter_new(doc);
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER)
            continue;
        cmark_node_type t = cmark_node_get_type(n);
        if (t != CMARK_NODE_PARAGRAPH && t != CMARK_NODE_HEADING && !is_table(n))
            continue;
        /* past its inlines before prepare_figure takes some of them out */
        cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
        if (t == CMARK_NODE_PARAGRAPH && !cmark_node_get_user_data(n))
            prepare_figure(w, n);
    }
    cmark_iter_free(it);
    /* numbered sections count from the highest level of the page's own
     * headings */
    if (md_walk_options(w)->numbered_sections) {
        int base = 0;
        for (cmark_node *c = cmark_node_first_child(doc); c; c = cmark_node_next(c))
            if (cmark_node_get_type(c) == CMARK_NODE_HEADING
                && (!base || cmark_node_get_heading_level(c) < base))
                base = cmark_node_get_heading_level(c);
        state(w)->sec_base = base;
    }
}

/* ---- what the walk asks ---- */

bool md_xref_caption_para(cmark_node *n) { return mark_of(n, MARK_CAPTION) != NULL; }

bool md_xref_block(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    const mark *m = cmark_node_get_user_data(n);
    cmark_node_type t = cmark_node_get_type(n);
    if (!m || (t != CMARK_NODE_PARAGRAPH && t != CMARK_NODE_BLOCK_QUOTE))
        return false;
    if (m->kind == MARK_FIGURE) {
        if (entering) {
            md_cr(out);
            buf_puts(out, "<figure id=\"");
            md_put_escaped_cstr(out, m->id);
            buf_puts(out, "\" class=\"figure\">\n");
            ((mark *)m)->number = md_label_add(w, m->id, m->line, m->col, NULL, NULL);
        } else {
            buf_puts(out, "\n<figcaption>");
            if (m->number)
                md_label_caption(w, out, MD_LABEL_FIG, m->number);
            cmark_node *img = cmark_node_first_child(n);
            if (m->caption && out == md_html(w)) {
                md_write_markdown(w, m->caption, m->line, m->col); /* its Markdown, as the alt text's */
            } else if (m->caption) {
                md_put_escaped_cstr(out, m->caption);
            } else if (out == md_html(w) && img && cmark_node_get_type(img) == CMARK_NODE_IMAGE) {
                /* the alt text's Markdown, as HTML: emphasis, code, math,
                 * links and citations, through the page's own renderer
                 * (and its rules for raw HTML) */
                md_write_inlines(w, img);
            } else {
                buf *b = md_tmp(w);
                buf_reset(b);
                md_plain_text(cmark_node_first_child(n), b);
                md_put_escaped(out, b->data, b->len);
            }
            buf_puts(out, "</figcaption>\n</figure>\n");
        }
        return true;
    }
    if (m->kind == MARK_ALERT) {
        const char *title = m->title ? m->title : WORD(w, alert[m->alert]);
        if (entering) {
            md_cr(out);
            buf_puts(out, m->fold ? "<details class=\"callout callout-" : "<div class=\"callout callout-");
            buf_puts(out, alert_kinds[m->alert]);
            if (m->fold) {
                buf_puts(out, m->fold == '+' ? "\" open>\n" : "\">\n");
                buf_puts(out, "<summary class=\"callout-title\">");
                md_put_escaped_cstr(out, title);
                buf_puts(out, "</summary>\n");
            } else {
                buf_puts(out, "\" role=\"note\" aria-label=\"");
                md_put_escaped_cstr(out, title);
                buf_puts(out, "\">\n<p class=\"callout-title\">");
                md_put_escaped_cstr(out, title);
                buf_puts(out, "</p>\n");
            }
        } else {
            md_cr(out);
            buf_puts(out, m->fold ? "</details>\n" : "</div>\n");
        }
        return true;
    }
    return false;
}


void md_xref_table(md_walk *w, buf *out, cmark_node *table)
{
    const mark *m = mark_of(table, MARK_TABLE);
    if (!m) {
        buf_putc(out, '>');
        return;
    }
    const char *num = md_label_add(w, m->id, m->line, m->col, NULL, NULL);
    buf_puts(out, " id=\"");
    md_put_escaped_cstr(out, m->id);
    buf_puts(out, "\">\n<caption>");
    if (num)
        md_label_caption(w, out, MD_LABEL_TBL, num);
    if (out == md_html(w)) {
        md_write_inlines(w, m->para);
    } else {
        buf *b = md_tmp(w);
        buf_reset(b);
        md_plain_text(m->para, b);
        md_put_escaped(out, b->data, b->len);
    }
    buf_puts(out, "</caption>");
}

void md_xref_heading(md_walk *w, buf *out, cmark_node *h, const char *id, const char *title, int line)
{
    md_xrefs *x = md_walk_options(w)->numbered_sections ? state(w) : *md_walk_xrefs(w);
    const char *number = NULL;
    int level = cmark_node_get_heading_level(h);
    if (x && x->sec_base && cmark_node_get_type(cmark_node_parent(h)) == CMARK_NODE_DOCUMENT
        && level >= x->sec_base) {
        int depth = level - x->sec_base;
        x->sec_num[depth]++;
        for (int d = depth + 1; d < 7; d++)
            x->sec_num[d] = 0;
        buf b = BUF_INIT;
        for (int d = 0; d <= depth; d++)
            buf_printf(&b, "%s%d", d ? "." : "", x->sec_num[d]);
        number = arena_strndup(md_walk_arena(w), b.data, b.len);
        buf_release(&b);
        buf_puts(out, "<span class=\"section-number\">");
        buf_puts(out, number);
        buf_puts(out, "</span> ");
    }
    if (id && md_label_kind_of(id, strlen(id)) == MD_LABEL_SEC)
        label_add(w, id, line, cmark_node_get_start_column(h), number ? number : "", title, false);
}

/* ---- references ---- */

static void push_ref(md_walk *w, buf *out, xref_item *items, size_t n, bool nolink)
{
    md_xrefs *x = state(w);
    xref *r = md_vec_push(&x->refs);
    r->items = items;
    r->n = n;
    r->html = nolink ? "" : NULL; /* "" until filled: the text only */
    if (out == md_html(w)) {
        md_hole(w, MD_HOLE_XREF, x->refs.n - 1);
        return;
    }
    /* not the page's HTML (no hole can go there): the keys as written */
    for (size_t i = 0; i < n; i++) {
        buf_puts(out, i ? "; @" : "@");
        md_put_escaped_cstr(out, items[i].key);
    }
}

void md_xref_write(md_walk *w, buf *out, const md_cite *c, size_t n)
{
    arena *a = md_walk_arena(w);
    xref_item *items = arena_alloc(a, n * sizeof *items);
    for (size_t i = 0; i < n; i++) {
        items[i].key = arena_strdup(a, c[i].key);
        items[i].suppress = c[i].suppress_author;
        items[i].line = c[i].line - md_file_line(w, 0);
        items[i].col = c[i].col;
    }
    push_ref(w, out, items, n, false);
}

bool md_xref_empty_link(md_walk *w, buf *out, const char *url, size_t link, int line, int col)
{
    const char *hash = strchr(url, '#');
    if (!hash || md_label_kind_of(hash + 1, strlen(hash + 1)) < 0 || out != md_html(w)
        || strchr(hash + 1, '%'))
        return false;
    if (hash == url) { /* this page's: like @key, inside the link */
        xref_item *it = arena_alloc(md_walk_arena(w), sizeof *it);
        *it = (xref_item){ .key = arena_strdup(md_walk_arena(w), hash + 1), .line = line, .col = col };
        push_ref(w, out, it, 1, true);
        return true;
    }
    md_xrefs *x = state(w);
    md_xlink *l = md_vec_push(&x->xlinks);
    l->link = link;
    l->at = l->summary_at = SIZE_MAX;
    md_hole(w, MD_HOLE_XLINK, x->xlinks.n - 1);
    return true;
}

/* Each number of a run (or a section's title) as a link, joined. */
static void put_list(md_walk *w, buf *out, const md_label *const *ls, size_t n, bool links, bool titles)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            md_put_escaped_cstr(out, i + 1 == n ? WORD(w, list_and) : WORD(w, list_sep));
        if (links) {
            buf_puts(out, "<a class=\"xref\" href=\"#");
            md_put_href(out, ls[i]->id, strlen(ls[i]->id));
            buf_puts(out, "\">");
        }
        md_put_escaped_cstr(out, titles ? ls[i]->text : ls[i]->number);
        if (links)
            buf_puts(out, "</a>");
    }
}

/* One run of labels of one kind: "Figure 2", "Figures 2 and 3", "2". */
static void put_run(md_walk *w, buf *out, const md_label *const *ls, size_t n, bool suppress, bool links)
{
    md_label_kind k = ls[0]->kind;
    if (k == MD_LABEL_SEC && !*ls[0]->number) { /* sections not numbered: their titles */
        put_list(w, out, ls, n, links, true);
        return;
    }
    if (suppress) {
        put_list(w, out, ls, n, links, false);
        return;
    }
    if (n == 1) {
        buf num = BUF_INIT;
        md_put_escaped_cstr(&num, ls[0]->number);
        if (links) {
            buf_puts(out, "<a class=\"xref\" href=\"#");
            md_put_href(out, ls[0]->id, strlen(ls[0]->id));
            buf_puts(out, "\">");
        }
        put_form(out, WORD(w, one[k]), num.data, num.len);
        if (links)
            buf_puts(out, "</a>");
        buf_release(&num);
        return;
    }
    buf list = BUF_INIT;
    put_list(w, &list, ls, n, links, false);
    put_form(out, WORD(w, many[k]), list.data, list.len);
    buf_release(&list);
}

static const char *closest(md_xrefs *x, const char *key)
{
    text_near near = TEXT_NEAR(key);
    for (size_t i = 0; i < x->labels.n; i++)
        text_near_try(&near, ((const md_label *)x->labels.v)[i].id);
    return text_near_best(&near);
}

/* The text of reference r, with links or (plain) without. */
static void put_ref(md_walk *w, md_xrefs *x, const xref *r, bool links, buf *out)
{
    const md_label **ls = xcalloc(r->n, sizeof *ls);
    for (size_t i = 0; i < r->n; i++) {
        long at = strmap_get(x->index, r->items[i].key);
        ls[i] = at >= 0 ? (const md_label *)x->labels.v + at : NULL;
    }
    /* runs of one kind, joined as a list is */
    size_t nruns = 0;
    for (size_t i = 0; i < r->n; i++)
        if (!i || !ls[i] || !ls[i - 1] || ls[i]->kind != ls[i - 1]->kind)
            nruns++;
    size_t run = 0;
    for (size_t i = 0; i < r->n;) {
        size_t j = i + 1;
        while (ls[i] && j < r->n && ls[j] && ls[j]->kind == ls[i]->kind)
            j++;
        if (run)
            md_put_escaped_cstr(out, run + 1 == nruns ? WORD(w, list_and) : WORD(w, list_sep));
        if (ls[i])
            put_run(w, out, ls + i, j - i, r->items[i].suppress, links);
        else
            buf_puts(out, "??");
        run++;
        i = j;
    }
    free(ls);
}

void md_xref_finish(md_walk *w)
{
    md_xrefs *x = *md_walk_xrefs(w);
    md_vec *eq = md_walk_eqlabels(w);
    if (!x && !eq->n)
        return;
    x = state(w);
    /* the equations (numbered by md/math.c) */
    for (size_t i = 0; i < eq->n; i++) {
        const md_eqlabel *e = (const md_eqlabel *)eq->v + i;
        if (md_label_kind_of(e->key, e->len) != MD_LABEL_EQ)
            continue;
        char *key = arena_strndup(md_walk_arena(w), e->key, e->len);
        label_add(w, key, 0, 0, arena_printf(md_walk_arena(w), "%zu", e->num), NULL, false);
    }
    buf b = BUF_INIT;
    for (size_t i = 0; i < x->refs.n; i++) {
        xref *r = (xref *)x->refs.v + i;
        /* a link `[](#fig-x)` is checked (and reported) as a link is */
        for (size_t k = 0; k < r->n && !r->html; k++) {
            if (strmap_get(x->index, r->items[k].key) >= 0)
                continue;
            const char *sug = closest(x, r->items[k].key);
            md_problem_at(w, true, r->items[k].line, r->items[k].col,
                          "@%s: no label '%s' on this page%s%s%s", r->items[k].key, r->items[k].key,
                          sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
        }
        bool nolink = r->html != NULL;
        buf_reset(&b);
        put_ref(w, x, r, false, &b);
        r->plain = arena_strndup(md_walk_arena(w), b.data, b.len);
        if (nolink) {
            r->html = r->plain;
        } else {
            buf_reset(&b);
            put_ref(w, x, r, true, &b);
            r->html = arena_strndup(md_walk_arena(w), b.data, b.len);
        }
    }
    buf_release(&b);
}

void md_xref_hole(md_walk *w, int kind, size_t index, bool summary, buf *out)
{
    md_xrefs *x = *md_walk_xrefs(w);
    if (kind == MD_HOLE_XREF) {
        const xref *r = (const xref *)x->refs.v + index;
        buf_puts(out, summary ? r->plain : r->html);
    } else {
        md_xlink *l = (md_xlink *)x->xlinks.v + index;
        if (summary)
            l->summary_at = out->len;
        else
            l->at = out->len;
    }
}

void md_xref_result(md_walk *w, md_result *out)
{
    md_xrefs *x = *md_walk_xrefs(w);
    if (!x)
        return;
    out->nlabels = x->labels.n;
    out->labels = md_vec_to_arena(&x->labels, md_walk_arena(w));
    out->nxlinks = x->xlinks.n;
    out->xlinks = md_vec_to_arena(&x->xlinks, md_walk_arena(w));
    free(x->refs.v);
    strmap_free(x->index);
    free(x);
    *md_walk_xrefs(w) = NULL;
}
