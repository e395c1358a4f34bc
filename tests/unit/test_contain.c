/* test_contain: the containment rule (issue 34, finding 13) holds in a
 * build session too. `sheaf serve` rebuilds an edited page on its fast
 * path, reading the one file again: a page replaced by a link to a file
 * outside the site must be refused there as a full build refuses it, not
 * published. Also fs_within itself: links and '..' resolved. */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/build.h"
#include "util/buf.h"
#include "util/fs.h"

static char root[256];

static void put(const char *rel, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *slash = strrchr(path, '/');
    *slash = 0;
    fs_mkdirs(path);
    *slash = '/';
    fs_write_file(path, text, strlen(text));
}

static bool out_has(const char *rel, const char *needle)
{
    char path[600];
    snprintf(path, sizeof path, "%s/out/%s", root, rel);
    buf b = BUF_INIT;
    bool ok = fs_read_file(path, &b) && strstr(b.data, needle);
    buf_release(&b);
    return ok;
}

TEST(within_resolves_links_and_dots)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-contain-XXXXXX");
    OK(mkdtemp(root) != NULL);
    put("site/a.txt", "a");
    put("outside/b.txt", "b");
    char site[300], p[600];
    snprintf(site, sizeof site, "%s/site", root);
    char *real = fs_resolve(site);
    snprintf(p, sizeof p, "%s/a.txt", site);
    OK(fs_within(real, p));
    snprintf(p, sizeof p, "%s/missing/x", site); /* need not exist */
    OK(fs_within(real, p));
    snprintf(p, sizeof p, "%s/../outside/b.txt", site);
    OK(!fs_within(real, p));
    snprintf(p, sizeof p, "%s/sub/../../outside/b.txt", site); /* sub does not exist */
    OK(!fs_within(real, p));
    char link[600];
    snprintf(link, sizeof link, "%s/l.txt", site);
    OK(symlink("../outside/b.txt", link) == 0);
    OK(!fs_within(real, link));
    snprintf(p, sizeof p, "%s/in.txt", site);
    OK(symlink("a.txt", p) == 0);
    OK(fs_within(real, p));
    buf b = BUF_INIT;
    errno = 0;
    OK(!fs_read_file_within(real, link, FS_READ_MAX, &b));
    EQ_INT(errno, FS_EOUTSIDE);
    EQ_INT(b.len, 0);
    OK(fs_read_file_within(real, p, FS_READ_MAX, &b));
    EQ_STR(b.data, "a");
    buf_release(&b);
    free(real);
    fs_rmtree(root);
}

TEST(fast_rebuild_refuses_a_link_out)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-contain-XXXXXX");
    OK(mkdtemp(root) != NULL);
    put("site/site.yaml", "title: Contained\nbase_url: https://example.org/\n");
    put("site/content/posts/2024-01-01-a.md", "---\ntitle: A\n---\nFirst words.\n");
    put("outside/secret.md", "---\ntitle: A\n---\nSECRET words.\n");
    char site[300], out[300];
    snprintf(site, sizeof site, "%s/site", root);
    snprintf(out, sizeof out, "%s/out", root);
    build_options o = { .site_dir = site, .out_dir = out, .write = true, .jobs = 2 };
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st;
    const char *changed[] = { "content/posts/2024-01-01-a.md" };
    OK(build_session_run(s, NULL, 0, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(out_has("posts/a/index.html", "First words."));
    /* the page becomes a link to a file outside the site */
    char page[600];
    snprintf(page, sizeof page, "%s/%s", site, changed[0]);
    OK(unlink(page) == 0);
    OK(symlink("../../../outside/secret.md", page) == 0);
    build_session_run(s, changed, 1, d, &st);
    OK(diag_error_count(d) > 0);
    OK(!out_has("posts/a/index.html", "SECRET"));
    diag_list_free(d);
    build_session_free(s);
    fs_rmtree(root);
}

int main(void)
{
    RUN(within_resolves_links_and_dots);
    RUN(fast_rebuild_refuses_a_link_out);
    return harness_done();
}
