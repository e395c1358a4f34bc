/* site/math.c: formulas → MathML for the Markdown stage (md_options.math):
 * from the build cache when the same formula was rendered before (with the
 * same KaTeX and Duktape), else with KaTeX from the session's pool of
 * engines (src/js), then kept in the cache. A site without formulas never
 * starts an engine; a warm cache starts none either. */
#include <string.h>

#include "cache/cache.h"
#include "js/katex.h"
#include "site/site.h"

const char *site_math_render(void *ctx, const md_formula *f, arena *a, const char **error,
                             long *error_at)
{
    site_math *m = ctx;
    buf key = BUF_INIT, out = BUF_INIT;
    buf_printf(&key, "%s\n%s\n", js_katex_version(), f->display ? "display" : "inline");
    buf_put(&key, f->tex, f->len);
    const char *html = NULL;
    atomic_fetch_add(&m->formulas, 1);
    if (cache_get(m->cache, "math", key.data, key.len, &out)) {
        html = arena_strndup(a, out.data, out.len);
        goto done;
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
