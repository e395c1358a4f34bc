/* import/body.c: the text of an imported page, pass by pass
 * (import_convert_body, at the end): a Jekyll page's Liquid (liquid.c) or
 * a Hugo page's shortcodes (shortcodes.c); links to other pages' old URLs
 * (relink.c); for Jekyll, kramdown's own syntax (kramdown.c); then the
 * formulas (math.c). Here too what the passes share: a note at a place in
 * the body, and the Markdown they step over (code fences, code spans). */
#include <string.h>

#include "import/internal.h"

/* ---- places in the body ---------------------------------------------- */

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

void import_note_at(imp *m, const import_page *p, size_t off, const char *what, size_t wn, const char *todo)
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

/* ---- Markdown the passes step over ------------------------------------ */

/* Past a line's indent of up to three spaces. */
size_t import_indent_end(const char *s, size_t i, size_t e)
{
    size_t k = i;
    while (k < e && k - i < 3 && s[k] == ' ')
        k++;
    return k;
}

/* Whether i starts a fenced code block line; its fence char and length. */
size_t import_fence_at(const char *s, size_t n, size_t i, char *ch)
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
bool import_fence_toggle(size_t f, char ch, size_t *flen, char *fch)
{
    if (!f || (*flen && (ch != *fch || f < *flen)))
        return false;
    *flen = *flen ? 0 : f;
    *fch = ch;
    return true;
}

/* The end of the code span opening at s[i] (a run of backticks): past
 * its closing run, or past the opening run when there is none. */
size_t import_code_span_end(const char *s, size_t n, size_t i)
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

/* ---- the passes, in order ---------------------------------------------- */

void import_convert_body(imp *m, import_page *p, bool jekyll)
{
    buf mid = BUF_INIT;
    if (jekyll && p->no_liquid)
        buf_put(&mid, p->body_src, p->body_len);
    else if (jekyll)
        import_liquid_convert(m, p, &mid);
    else
        import_shortcodes_convert(m, p, &mid);
    if (jekyll) {
        import_kramdown_notes(m, p);
        buf linked = BUF_INIT;
        import_relink(m, p, mid.data, mid.len, &linked);
        buf blocks = BUF_INIT;
        import_kramdown_blocks(m, linked.data, linked.len, &blocks);
        buf_release(&linked);
        buf kd = BUF_INIT;
        import_kramdown_convert(m, p, blocks.data, blocks.len, &kd);
        buf_release(&blocks);
        buf_reset(&blocks);
        import_heading_ids(m, kd.data, kd.len, true, &blocks);
        buf_release(&kd);
        kd = blocks;
        buf_release(&mid);
        mid = kd;
    } else {
        /* Hugo's ids are of the heading's source, links' destinations as
         * written included: before they are made links to files */
        buf ids = BUF_INIT;
        import_heading_ids(m, mid.data, mid.len, false, &ids);
        buf_reset(&mid);
        import_relink(m, p, ids.data, ids.len, &mid);
        buf_release(&ids);
    }
    if (m->math_on)
        import_fix_formulas(m, p, mid.data, mid.len, jekyll, &p->body);
    else
        buf_put(&p->body, mid.data, mid.len);
    buf_release(&mid);
}
