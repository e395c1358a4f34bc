/* site/diagram.c: ```dot diagrams → SVG for the Markdown stage
 * (md_options.diagram): from the build cache when the same source was laid
 * out before with the same engine, Graphviz and SVG pass, else with
 * Graphviz (src/diagram), then kept in the cache. A warm cache calls
 * Graphviz for nothing. The cache is untrusted (cache/cache.c): a value
 * from it is used only when it is an SVG as the pass writes it
 * (diagram_svg_ok), else the diagram is laid out again. */
#include <string.h>

#include "cache/cache.h"
#include "diagram/dot.h"
#include "site/media.h"

const char *site_diagram_render(void *ctx, const md_diagram *d, arena *a, const char **error,
                                int *error_line)
{
    site_diagram *s = ctx;
    buf key = BUF_INIT, out = BUF_INIT, err = BUF_INIT;
    buf_printf(&key, "%s\n%s\n", diagram_dot_version(), d->engine ? d->engine : "dot");
    buf_put(&key, d->source, d->len);
    const char *svg = NULL;
    atomic_fetch_add(&s->diagrams, 1);
    if (d->len <= DIAGRAM_DOT_MAX_BYTES && cache_get(s->cache, "dot", key.data, key.len, &out)) {
        if (diagram_svg_ok(out.data, out.len)) {
            svg = arena_strndup(a, out.data, out.len);
            goto done;
        }
        buf_reset(&out); /* not what the pass writes: laid out again, and the entry replaced */
    }
    atomic_fetch_add(&s->rendered, 1);
    if (diagram_dot_render(d->source, d->len, d->engine, &out, &err, error_line)) {
        cache_put(s->cache, "dot", key.data, key.len, out.data, out.len);
        svg = arena_strndup(a, out.data, out.len);
    } else {
        *error = arena_strndup(a, err.data, err.len);
    }
done:
    buf_release(&key);
    buf_release(&out);
    buf_release(&err);
    return svg;
}
