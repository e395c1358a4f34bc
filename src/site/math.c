/* site/math.c: formulas → MathML for the Markdown stage (md_options.math):
 * from the build cache when the same formula was rendered before (with the
 * same KaTeX, Duktape and MathML pass), else with KaTeX from the session's
 * pool of engines (src/js) and the pass of md/mathml.c, then kept in the
 * cache. A site without formulas never starts an engine; a warm cache
 * starts none either. The cache is untrusted (cache/cache.c): a value from
 * it is used only when it is MathML as KaTeX and the pass write it
 * (site_mathml_ok), else rendered again. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "js/katex.h"
#include "md/mathml.h"
#include "site/media.h"

/* MathML's presentation elements KaTeX writes (its MathNode types), sorted;
 * not <mglyph> (src) or <annotation-xml> (may hold HTML). */
static const char *const math_elements[] = {
    "annotation", "math", "menclose", "merror", "mfrac", "mi", "mlabeledtr", "mmultiscripts", "mn", "mo",
    "mover", "mpadded", "mphantom", "mprescripts", "mroot", "mrow", "ms", "mspace", "msqrt", "mstyle", "msub",
    "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder", "munderover", "none", "semantics",
};
/* The attributes it sets (none is a URL or an event handler), sorted. */
static const char *const math_attributes[] = {
    "accent", "accentunder", "aria-hidden", "class", "columnalign", "columnlines", "columnspacing", "depth",
    "display", "displaystyle", "encoding", "fence", "form", "height", "largeop", "linebreak",
    "linethickness", "lspace", "mathbackground", "mathcolor", "mathsize", "mathvariant", "maxsize",
    "minsize", "movablelimits", "notation", "rowalign", "rowlines", "rowspacing", "rspace", "scriptlevel",
    "separator", "stretchy", "style", "symmetric", "valign", "voffset", "width", "xmlns",
};

static int cmp_name(const void *k, const void *e)
{
    const char *key = k, *name = *(const char *const *)e;
    return strcmp(key, name);
}

static bool listed(const char *const *names, size_t n, const char *p, size_t len)
{
    char w[32];
    if (len == 0 || len >= sizeof w)
        return false;
    memcpy(w, p, len);
    w[len] = 0;
    return bsearch(w, names, n, sizeof *names, cmp_name) != NULL;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* An attribute's value: KaTeX writes lengths, colours (#hex or a name),
 * class names, `application/x-tex` and CSS like `border-color: red;`. No
 * quote, '<', '&', '(' (no url(), no expression()) or backslash. */
static bool value_ok(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!(name_char(c) || c == ' ' || c == '#' || c == '.' || c == ',' || c == ':' || c == ';' ||
              c == '%' || c == '/' || c == '_' || c == '+'))
            return false;
    }
    return true;
}

bool site_mathml_ok(const char *s, size_t n)
{
    static const char xmlns[] = "http://www.w3.org/1998/Math/MathML";
    if (n < 13 || strncmp(s, "<math", 5) || strncmp(s + n - 7, "</math>", 7))
        return false;
    for (size_t i = 0; i < n;) {
        if (s[i] != '<') {
            if (s[i] == '>')
                return false;
            i++;
            continue;
        }
        size_t j = i + 1;
        bool closing = j < n && s[j] == '/';
        j += closing;
        size_t name = j;
        while (j < n && name_char(s[j]))
            j++;
        if (!listed(math_elements, sizeof math_elements / sizeof *math_elements, s + name, j - name))
            return false; /* <script, <!--, <![CDATA[, <?… */
        for (;;) { /* attributes: ` name="value"` */
            if (j < n && s[j] == '>')
                break;
            if (j + 1 < n && s[j] == '/' && s[j + 1] == '>' && !closing) {
                j++;
                break;
            }
            if (closing || j >= n || s[j] != ' ')
                return false;
            size_t an = ++j;
            while (j < n && name_char(s[j]))
                j++;
            if (!listed(math_attributes, sizeof math_attributes / sizeof *math_attributes, s + an, j - an) ||
                j + 1 >= n || s[j] != '=' || s[j + 1] != '"')
                return false;
            size_t v = j + 2, e = v;
            while (e < n && s[e] != '"')
                e++;
            if (e >= n)
                return false;
            bool ns = j - an == 5 && !memcmp(s + an, "xmlns", 5);
            if (ns ? e - v != sizeof xmlns - 1 || memcmp(s + v, xmlns, e - v) : !value_ok(s + v, e - v))
                return false;
            j = e + 1;
        }
        i = j + 1;
    }
    return true;
}

const char *site_math_render(void *ctx, const md_formula *f, arena *a, const char **error,
                             long *error_at)
{
    site_math *m = ctx;
    buf key = BUF_INIT, out = BUF_INIT;
    buf_printf(&key, "%s\n%s\n%s\n", js_katex_version(), MD_MATHML_VERSION,
               f->display ? "display" : "inline");
    buf_put(&key, f->tex, f->len);
    const char *html = NULL;
    atomic_fetch_add(&m->formulas, 1);
    if (cache_get(m->cache, "math", key.data, key.len, &out)) {
        if (site_mathml_ok(out.data, out.len)) {
            html = arena_strndup(a, out.data, out.len);
            goto done;
        }
        buf_reset(&out); /* not what KaTeX writes: rendered again, and the entry replaced */
    }
    buf err = BUF_INIT;
    js_katex *k = js_pool_take(m->engines, &err);
    if (!k) {
        *error = arena_printf(a, "cannot start the math engine (KaTeX in Duktape): %s", err.data);
        *error_at = -1;
        buf_release(&err);
        goto done;
    }
    buf_release(&err);
    atomic_fetch_add(&m->rendered, 1);
    bool ok = js_katex_render(k, f->tex, f->len, f->display, &out, error_at);
    js_pool_give(m->engines, k);
    if (ok) {
        /* KaTeX's MathML made to render as TeX would (md/mathml.c) */
        buf fixed = BUF_INIT;
        md_mathml_fix(&fixed, out.data, out.len);
        buf_release(&out);
        out = fixed;
        cache_put(m->cache, "math", key.data, key.len, out.data, out.len);
        html = arena_strndup(a, out.data, out.len);
    } else {
        *error = arena_strndup(a, out.data, out.len);
    }
done:
    buf_release(&key);
    buf_release(&out);
    return html;
}
