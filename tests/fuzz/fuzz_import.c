/* fuzz_import: the body converter of `sheaf import` — the first byte picks
 * Jekyll (even) or Hugo (odd), the rest is a page's text: Liquid tags and
 * outputs, shortcodes, highlight blocks, raw blocks, links written
 * root-relative, code fences and spans. Three other pages give the links
 * something to find. Seeds: tests/fuzz/corpus/import (the import fixtures'
 * pages, named after them, with a byte in front: 0 Jekyll, 1 Hugo). */
#include <stdint.h>
#include <string.h>

#include "import/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    import_options o = { data[0] & 1 ? IMPORT_HUGO : IMPORT_JEKYLL, "src", "dest", false };
    imp m = { 0 };
    m.o = &o;
    m.a = arena_new();
    m.base_path = "/blog/";
    m.base_url = "https://example.org/blog/";
    static const char *const others[][4] = {
        { "_posts/2019-01-02-a.md", "content/posts/2019-01-02-a.md", "/notes/a/", "2019-01-02-a" },
        { "content/post/b.md", "content/posts/b.md", "/2020/03/b/", NULL },
        { "content/about.md", "content/about.md", "/about.html", NULL },
    };
    for (size_t i = 0; i < 3; i++) {
        import_page *p = import_add_page(&m);
        p->src_rel = others[i][0];
        p->dest_rel = others[i][1];
        p->old_url = others[i][2];
        p->post_name = others[i][3];
    }
    import_add_file(&m, "files/x.txt", "static/files/x.txt", "/files/x.txt");
    import_page *p = import_add_page(&m);
    p->src_rel = data[0] & 1 ? "content/post/sub/page.md" : "_posts/x/2019-02-03-page.md";
    p->dest_rel = "content/posts/sub/page.md";
    p->old_url = "/page/";
    p->body_src = arena_strndup(m.a, (const char *)data + 1, size - 1);
    p->body_len = size - 1;
    p->body_line = 4;
    import_convert_body(&m, p, !(data[0] & 1));
    for (size_t i = 0; i < m.npages; i++)
        buf_release(&m.pages[i]->body);
    import_notes_free(&m);
    arena_free(m.a);
    return 0;
}
