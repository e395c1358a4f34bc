/* import/comments.c: a comment widget on the old site (named in its
 * config, or a script of giscus, utterances, Disqus … in its templates)
 * makes ids like #comment-12 that no heading has: site.yaml gets
 * anchors_warn: so that links to them warn instead of failing the build. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "import/internal.h"
#include "util/fs.h"

static void anchors_warn(imp *m, const char *why)
{
    if (m->anchors_warn)
        return;
    m->anchors_warn = true;
    buf_printf(&m->site_yaml, "# ids the old site's comment widget made (%s): links to them warn\n"
                              "anchors_warn: [\"comment-*\", \"comments\", \"respond\", \"disqus_thread\"]\n",
               why);
}

typedef struct widget_scan {
    imp *m;
    const char *dir_rel;
} widget_scan;

static void scan_widget(void *ctx, const char *rel)
{
    widget_scan *w = ctx;
    static const char *const hosts[] = { "giscus.app", "utteranc.es", "disqus.com", "valine", "waline",
                                         "gitalk", "twikoo", "remark42", "cusdis", "commento", NULL };
    if (w->m->anchors_warn)
        return;
    buf h = BUF_INIT;
    const char *path = import_src_path(w->m, arena_printf(w->m->a, "%s/%s", w->dir_rel, rel));
    if (fs_within(w->m->src_real, path) && fs_read_head(path, 65536, &h))
        for (size_t i = 0; hosts[i]; i++)
            if (strstr(h.data, hosts[i])) {
                anchors_warn(w->m, hosts[i]);
                break;
            }
    buf_release(&h);
}

void import_comment_anchors_in(imp *m, const char *dir_rel)
{
    struct stat st;
    if (m->anchors_warn || stat(import_src_path(m, dir_rel), &st) || !S_ISDIR(st.st_mode))
        return;
    widget_scan w = { m, dir_rel };
    (void)import_walk(m, dir_rel, true, scan_widget, &w);
}

void import_comment_anchors(imp *m, const tpl_map *c)
{
    static const char *const widgets[] = { "disqus", "disqus_shortname", "disqusshortname", "utterances", "utterance",
                                           "giscus", "valine", "waline", "gitalk", "twikoo", "comments", "comment",
                                           NULL };
    const tpl_map *in[3] = { c, NULL, NULL };
    tpl_value v = import_get(c, "params");
    in[1] = v.kind == TPL_MAP ? v.u.map : NULL;
    v = import_get(c, "services");
    in[2] = v.kind == TPL_MAP ? v.u.map : NULL;
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; in[k] && widgets[i]; i++) {
            tpl_value w = import_get(in[k], widgets[i]);
            if (w.kind == TPL_UNDEFINED || w.kind == TPL_NONE || (w.kind == TPL_BOOL && !w.u.b) ||
                (w.kind == TPL_STRING && !w.len))
                continue;
            anchors_warn(m, widgets[i]);
            return;
        }
}
