/* Unit tests of the preview server's per-request decisions (which file a
 * URL names, what is refused, MIME types, ETags, script injection, JSON
 * for the page) and of the watcher, on temporary folders; no socket. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "serve/serve.h"
#include "serve/watch.h"

static char tmp[256];

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmp, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void mk(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmp, rel);
    mkdir(p, 0755);
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* Resolves url under tmp/out; returns the status and, for a file, its path
 * relative to the root ("" otherwise), or the redirect target. */
static serve_status resolve(const char *url, char *got, size_t n)
{
    char root[512];
    snprintf(root, sizeof root, "%s/out", tmp);
    char *real = realpath(root, NULL);
    buf file = BUF_INIT, loc = BUF_INIT;
    serve_status st = serve_resolve(real, url, &file, &loc);
    if (st == SERVE_FILE)
        snprintf(got, n, "%s", file.data + strlen(real));
    else if (st == SERVE_REDIRECT)
        snprintf(got, n, "%s", loc.data);
    else
        snprintf(got, n, "%s%s", file.data, loc.data);
    buf_release(&file);
    buf_release(&loc);
    free(real);
    return st;
}

TEST(resolve_paths)
{
    mk("out");
    mk("out/posts");
    mk("out/posts/x");
    mk("out/empty");
    put("out/index.html", "home");
    put("out/posts/x/index.html", "x");
    put("out/a b.txt", "space");
    put("out/a..b.txt", "dots in a name");
    put("secret.txt", "secret");
    char p[512];
    snprintf(p, sizeof p, "%s/out/leak.txt", tmp);
    OK(symlink("../secret.txt", p) == 0);
    snprintf(p, sizeof p, "%s/out/leakdir", tmp);
    OK(symlink("..", p) == 0);
    snprintf(p, sizeof p, "%s/out/alias.html", tmp);
    OK(symlink("posts/x/index.html", p) == 0);

    char got[512];
    EQ_INT(resolve("/", got, sizeof got), SERVE_FILE);
    EQ_STR(got, "/index.html");
    EQ_INT(resolve("/posts/x/", got, sizeof got), SERVE_FILE);
    EQ_STR(got, "/posts/x/index.html");
    EQ_INT(resolve("/posts/x/index.html", got, sizeof got), SERVE_FILE);
    EQ_INT(resolve("/posts//x/", got, sizeof got), SERVE_FILE);
    EQ_INT(resolve("/posts/./x/", got, sizeof got), SERVE_FILE);
    EQ_INT(resolve("/a%20b.txt", got, sizeof got), SERVE_FILE);
    EQ_STR(got, "/a b.txt");
    EQ_INT(resolve("/a..b.txt", got, sizeof got), SERVE_FILE);
    EQ_INT(resolve("/alias.html", got, sizeof got), SERVE_FILE);
    EQ_STR(got, "/posts/x/index.html");

    EQ_INT(resolve("/posts/x", got, sizeof got), SERVE_REDIRECT);
    EQ_STR(got, "/posts/x/");
    EQ_INT(resolve("//posts/x", got, sizeof got), SERVE_REDIRECT);
    EQ_STR(got, "/posts/x/");
    EQ_INT(resolve("/posts/%78", got, sizeof got), SERVE_REDIRECT);
    EQ_STR(got, "/posts/%78/");

    EQ_INT(resolve("/nope", got, sizeof got), SERVE_NOT_FOUND);
    EQ_STR(got, "");
    EQ_INT(resolve("/empty/", got, sizeof got), SERVE_NOT_FOUND);
    EQ_INT(resolve("/index.html/", got, sizeof got), SERVE_NOT_FOUND);

    EQ_INT(resolve("/../secret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/posts/../../secret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/..", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/%2e%2e/secret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/.%2E/secret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/..%2fsecret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/posts%2Fx/", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/%5c..%5csecret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/..\\secret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/index.html%00.png", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/leak.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/leakdir/secret.txt", got, sizeof got), SERVE_FORBIDDEN);
    EQ_INT(resolve("/leakdir/", got, sizeof got), SERVE_FORBIDDEN);
    EQ_STR(got, "");
    /* decoded once: %252e is the three characters "%2e", a missing file */
    EQ_INT(resolve("/%252e%252e/secret.txt", got, sizeof got), SERVE_NOT_FOUND);

    EQ_INT(resolve("/%zz", got, sizeof got), SERVE_BAD_REQUEST);
    EQ_INT(resolve("/%2", got, sizeof got), SERVE_BAD_REQUEST);
    EQ_INT(resolve("index.html", got, sizeof got), SERVE_BAD_REQUEST);
    EQ_INT(resolve("http://x/", got, sizeof got), SERVE_BAD_REQUEST);
}

TEST(host_header)
{
    /* What a browser sends for the loopback, with and without the port. */
    OK(serve_host_allowed("localhost", "127.0.0.1", false));
    OK(serve_host_allowed("localhost:8000", "127.0.0.1", false));
    OK(serve_host_allowed("LocalHost.:8000", "127.0.0.1", false));
    OK(serve_host_allowed("127.0.0.1:8000", "127.0.0.1", false));
    OK(serve_host_allowed("[::1]:8000", "::1", false));
    OK(serve_host_allowed("[::1]", "127.0.0.1", false));
    OK(serve_host_allowed("app.localhost:8000", "127.0.0.1", false));
    OK(serve_host_allowed(NULL, "127.0.0.1", false));
    /* Any address literal: no DNS, so no rebinding. */
    OK(serve_host_allowed("192.168.1.5:8000", "127.0.0.1", false));
    /* The --bind name itself. */
    OK(serve_host_allowed("mybox.lan:8000", "mybox.lan", false));
    OK(serve_host_allowed("MyBox.Lan.", "mybox.lan", false));
    /* DNS rebinding: a name of somebody else's that now resolves here. */
    OK(!serve_host_allowed("evil.example", "127.0.0.1", false));
    OK(!serve_host_allowed("evil.example:8000", "127.0.0.1", false));
    OK(!serve_host_allowed("localhost.evil.example:8000", "127.0.0.1", false));
    OK(!serve_host_allowed("evillocalhost:8000", "127.0.0.1", false));
    OK(!serve_host_allowed("mybox.lan.evil.example", "mybox.lan", false));
    OK(!serve_host_allowed("127.0.0.1.nip.io:8000", "127.0.0.1", false));
    OK(!serve_host_allowed("evil.example", "", false));
    OK(!serve_host_allowed("evil.example", NULL, false));
    /* Not a host[:port] at all. */
    OK(!serve_host_allowed("", "127.0.0.1", false));
    OK(!serve_host_allowed(":8000", "127.0.0.1", false));
    OK(!serve_host_allowed("localhost:", "127.0.0.1", false));
    OK(!serve_host_allowed("localhost:80a", "127.0.0.1", false));
    OK(!serve_host_allowed("localhost:123456", "127.0.0.1", false));
    OK(!serve_host_allowed("local host", "127.0.0.1", false));
    OK(!serve_host_allowed("localhost/x", "127.0.0.1", false));
    OK(!serve_host_allowed("user@localhost", "127.0.0.1", false));
    OK(!serve_host_allowed("[::1", "127.0.0.1", false));
    OK(!serve_host_allowed("[::1]x", "127.0.0.1", false));
    OK(!serve_host_allowed("[evil.example]", "127.0.0.1", false));
    OK(!serve_host_allowed("a:1:2", "127.0.0.1", false));
    /* --bind 0.0.0.0 or ::: every well-formed name. */
    OK(serve_host_allowed("evil.example:8000", "0.0.0.0", true));
    OK(serve_host_allowed("mybox:8000", "::", true));
    OK(!serve_host_allowed("bad host", "0.0.0.0", true));
}

TEST(mime_types)
{
    EQ_STR(serve_mime_type("a/index.html"), "text/html; charset=utf-8");
    EQ_STR(serve_mime_type("style.CSS"), "text/css; charset=utf-8");
    EQ_STR(serve_mime_type("app.js"), "text/javascript; charset=utf-8");
    EQ_STR(serve_mime_type("i.svg"), "image/svg+xml");
    EQ_STR(serve_mime_type("i.png"), "image/png");
    EQ_STR(serve_mime_type("i.jpg"), "image/jpeg");
    EQ_STR(serve_mime_type("i.jpeg"), "image/jpeg");
    EQ_STR(serve_mime_type("i.gif"), "image/gif");
    EQ_STR(serve_mime_type("i.webp"), "image/webp");
    EQ_STR(serve_mime_type("favicon.ico"), "image/x-icon");
    EQ_STR(serve_mime_type("f.woff"), "font/woff");
    EQ_STR(serve_mime_type("f.woff2"), "font/woff2");
    EQ_STR(serve_mime_type("atom.xml"), "application/xml; charset=utf-8");
    EQ_STR(serve_mime_type("a.json"), "application/json");
    EQ_STR(serve_mime_type("robots.txt"), "text/plain; charset=utf-8");
    EQ_STR(serve_mime_type("a.tar.gz"), "application/octet-stream");
    EQ_STR(serve_mime_type("Makefile"), "application/octet-stream");
    EQ_STR(serve_mime_type(".png"), "application/octet-stream");
    EQ_STR(serve_mime_type("x.d/file"), "application/octet-stream");
    OK(serve_is_html("a.htm"));
    OK(!serve_is_html("a.xml"));
}

TEST(etags)
{
    struct stat st = { 0 };
    st.st_ino = 0x1234;
    st.st_size = 99;
    st.st_mtim.tv_sec = 1700000000;
    st.st_mtim.tv_nsec = 5;
    buf a = BUF_INIT, b = BUF_INIT;
    serve_etag(&st, NULL, &a);
    EQ_STR(a.data, "\"1234-63-6553f100.5\"");
    serve_etag(&st, "g7", &b);
    EQ_STR(b.data, "\"1234-63-6553f100.5-g7\"");
    st.st_mtim.tv_nsec = 6;
    buf_reset(&b);
    serve_etag(&st, NULL, &b);
    OK(strcmp(a.data, b.data) != 0);
    OK(serve_etag_match(a.data, a.data));
    OK(serve_etag_match("*", a.data));
    OK(serve_etag_match("\"x\", \"1234-63-6553f100.5\"", a.data));
    OK(serve_etag_match("W/\"1234-63-6553f100.5\"", a.data));
    OK(!serve_etag_match("\"x\"", a.data));
    OK(!serve_etag_match("", a.data));
    OK(!serve_etag_match(NULL, a.data));
    OK(!serve_etag_match("\"1234-63-6553f100.5", a.data));
    buf_release(&a);
    buf_release(&b);
}

TEST(inject)
{
    buf o = BUF_INIT;
    const char *h = "<html><body><p>x</p></body></html>\n";
    serve_inject(h, strlen(h), "<S>", &o);
    EQ_STR(o.data, "<html><body><p>x</p><S></body></html>\n");
    buf_reset(&o);
    h = "<p>a</body> b</BODY>";
    serve_inject(h, strlen(h), "<S>", &o);
    EQ_STR(o.data, "<p>a</body> b<S></BODY>");
    buf_reset(&o);
    h = "<p>no body end";
    serve_inject(h, strlen(h), "<S>", &o);
    EQ_STR(o.data, "<p>no body end<S>");
    buf_reset(&o);
    serve_inject("", 0, "<S>", &o);
    EQ_STR(o.data, "<S>");
    buf_release(&o);
}

TEST(json)
{
    buf o = BUF_INIT;
    serve_json_string(&o, "a \"b\" \\ </script> & \n\t\x01 é \xe2\x80\xa8");
    EQ_STR(o.data, "\"a \\\"b\\\" \\\\ \\u003c/script\\u003e \\u0026 \\n\\t\\u0001 é \\u2028\"");
    buf_release(&o);
}

TEST(error_excerpt)
{
    mk("content");
    put("content/a.md", "one\ntwo\n中文 [x](y.md#z)\nfour\nfive\n");
    char path[512];
    snprintf(path, sizeof path, "%s/content/a.md", tmp);
    diag e = { DIAG_ERROR, path, 3, 11, "link to 'y.md#z': no such file", 0, NULL, NULL };
    buf b = BUF_INIT;
    serve_format_error(&e, tmp, &b);
    EQ_STR(b.data, "content/a.md:3:11: error: link to 'y.md#z': no such file\n"
                   "      1 | one\n"
                   "      2 | two\n"
                   ">     3 | 中文 [x](y.md#z)\n"
                   "        |         ^\n"
                   "      4 | four");
    /* a path relative to the site folder, as the build names files */
    buf_reset(&b);
    diag r = { DIAG_ERROR, "content/a.md", 1, 1, "x", 0, NULL, NULL };
    serve_format_error(&r, tmp, &b);
    EQ_STR(b.data, "content/a.md:1:1: error: x\n>     1 | one\n        | ^\n      2 | two");
    /* no file, no place: the line alone */
    buf_reset(&b);
    diag f = { DIAG_ERROR, "gone.md", 2, 1, "x", 0, NULL, NULL };
    serve_format_error(&f, NULL, &b);
    EQ_STR(b.data, "gone.md:2:1: error: x");
    buf_release(&b);
}

TEST(css_only)
{
    const char *a[] = { "static/site.css", "themes/t/static/x.CSS" };
    OK(serve_css_only(a, 2));
    const char *b[] = { "static/site.css", "content/a.md" };
    OK(!serve_css_only(b, 2));
    const char *c[] = { "templates/inline.css" };
    OK(!serve_css_only(c, 1));
    const char *d[] = { "themes/t/templates/x.css" };
    OK(!serve_css_only(d, 1));
    OK(!serve_css_only(NULL, 0));
    OK(!serve_css_only(a, 0));
}

TEST(ignored_names)
{
    OK(watch_ignored("a.md~"));
    OK(watch_ignored(".a.md.swp"));
    OK(watch_ignored("a.swx"));
    OK(watch_ignored("a.swpx"));
    OK(watch_ignored("4913"));
    OK(watch_ignored(".#a.md"));
    OK(watch_ignored("#a.md#"));
    OK(watch_ignored(".DS_Store"));
    OK(watch_ignored(""));
    OK(!watch_ignored("a.md"));
    OK(!watch_ignored("49130"));
    OK(!watch_ignored("#tag.md"));
    OK(!watch_ignored("swp"));
}

static void wait_changes(watch *w, const char *want)
{
    watch_changes c = WATCH_CHANGES_INIT;
    diag_list *d = diag_list_new();
    EQ_INT(watch_wait(w, -1, 30, &c, d), WATCH_CHANGED);
    buf got = BUF_INIT;
    if (c.full)
        buf_puts(&got, "FULL");
    for (size_t i = 0; i < c.n; i++)
        buf_printf(&got, "%s%s", got.len ? " " : "", c.paths[i]);
    EQ_STR(got.data, want);
    buf_release(&got);
    watch_changes_free(&c);
    diag_list_free(d);
}

TEST(watcher)
{
    mk("site");
    mk("site/content");
    mk("site/content/posts");
    mk("site/static");
    put("site/content/posts/a.md", "a");
    put("site/site.yaml", "title: x\n");
    char site[512];
    snprintf(site, sizeof site, "%s/site", tmp);
    diag_list *d = diag_list_new();
    watch *w = watch_new(site, d);
    OK(w != NULL);
    if (!w) {
        diag_list_free(d);
        return;
    }

    /* One edit, and its droppings: one path. */
    put("site/content/posts/.a.md.swp", "x");
    put("site/content/posts/a.md~", "old");
    put("site/content/posts/4913", "");
    put("site/content/posts/a.md", "b");
    wait_changes(w, "content/posts/a.md");

    /* Several files at once, sorted, once each; site.yaml; a folder that
     * is not a source folder is not watched. */
    mk("site/public");
    put("site/public/index.html", "x");
    put("site/static/z.css", "z");
    put("site/content/posts/a.md", "c");
    put("site/content/posts/a.md", "d");
    put("site/site.yaml", "title: y\n");
    put("site/notes.txt", "not watched");
    wait_changes(w, "content/posts/a.md site.yaml static/z.css");

    /* A new folder with a file, and a file written into it later. */
    mk("site/content/new");
    put("site/content/new/b.md", "b");
    wait_changes(w, "content/new/b.md");
    put("site/content/new/c.md", "c");
    wait_changes(w, "content/new/c.md");

    /* A folder moved in whole: its files count. */
    mk("elsewhere");
    mk("elsewhere/sub");
    put("elsewhere/sub/d.md", "d");
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/elsewhere", tmp);
    snprintf(to, sizeof to, "%s/site/content/moved", tmp);
    OK(rename(from, to) == 0);
    wait_changes(w, "content/moved/sub/d.md");
    put("site/content/moved/sub/e.md", "e");
    wait_changes(w, "content/moved/sub/e.md");

    /* Deleted and renamed files. */
    snprintf(from, sizeof from, "%s/site/content/new/b.md", tmp);
    OK(unlink(from) == 0);
    wait_changes(w, "content/new/b.md");
    snprintf(from, sizeof from, "%s/site/content/new/c.md", tmp);
    snprintf(to, sizeof to, "%s/site/content/new/c2.md", tmp);
    OK(rename(from, to) == 0);
    wait_changes(w, "content/new/c.md content/new/c2.md");

    /* A folder moved out: nobody lists its files, so a full build. */
    snprintf(from, sizeof from, "%s/site/content/moved", tmp);
    snprintf(to, sizeof to, "%s/gone", tmp);
    OK(rename(from, to) == 0);
    wait_changes(w, "FULL");
    put("gone/sub/f.md", "no longer watched");

    /* A source folder that appears later. */
    mk("site/templates");
    wait_changes(w, "FULL");
    put("site/templates/base.html", "x");
    wait_changes(w, "templates/base.html");

    /* The stop descriptor ends the wait at once. */
    int p[2];
    OK(pipe(p) == 0);
    OK(write(p[1], "x", 1) == 1);
    watch_changes c = WATCH_CHANGES_INIT;
    EQ_INT(watch_wait(w, p[0], 30, &c, d), WATCH_STOP);
    EQ_INT(c.n, 0);
    close(p[0]);
    close(p[1]);
    watch_free(w);
    EQ_INT(diag_count(d), 0);

    OK(watch_new("/no/such/site/folder", d) == NULL);
    EQ_INT(diag_error_count(d), 1);
    diag_list_free(d);
}

/* A writer that pauses mid-file for longer than the quiet time. */
static void *slow_writer(void *arg)
{
    const char *path = arg;
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs("---\ntitle: half", f);
    fflush(f);
    usleep(150 * 1000);
    fputs(" and whole\n---\n", f);
    fclose(f);
    return NULL;
}

/* watch_wait returns only once a file open for writing has been closed,
 * however long the writer pauses; a file deleted and written again by an
 * editor is one change. */
TEST(watch_waits_for_whole_files)
{
    mk("whole");
    mk("whole/content");
    put("whole/content/a.md", "old");
    char site[512], path[600], back[608];
    snprintf(site, sizeof site, "%s/whole", tmp);
    snprintf(path, sizeof path, "%s/content/a.md", site);
    diag_list *d = diag_list_new();
    watch *w = watch_new(site, d);
    OK(w != NULL);
    if (!w) {
        diag_list_free(d);
        return;
    }
    pthread_t t;
    OK(pthread_create(&t, NULL, slow_writer, path) == 0);
    watch_changes c = WATCH_CHANGES_INIT;
    EQ_INT(watch_wait(w, -1, 30, &c, d), WATCH_CHANGED);
    EQ_INT(c.n, 1);
    FILE *f = fopen(path, "r");
    char text[64] = "";
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    EQ_STR(text, "---\ntitle: half and whole\n---\n");
    pthread_join(t, NULL);

    /* vim's default save: the file renamed to a backup, a new one written,
     * the backup deleted */
    snprintf(back, sizeof back, "%s~", path);
    OK(rename(path, back) == 0);
    put("whole/content/a.md", "new");
    OK(unlink(back) == 0);
    wait_changes(w, "content/a.md");
    watch_changes_free(&c);
    watch_free(w);
    EQ_INT(diag_count(d), 0);
    diag_list_free(d);
}

/* inotify watches this process holds (lines of /proc/self/fdinfo). */
static int count_watches(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++) {
        char p[64], line[512];
        snprintf(p, sizeof p, "/proc/self/fdinfo/%d", fd);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f))
            n += !strncmp(line, "inotify wd:", 11);
        fclose(f);
    }
    return n;
}

/* issue 19: a symbolic link to a folder (to /usr, say) is not followed:
 * only the site, its source folders and their real sub-folders are
 * watched. */
TEST(watch_skips_linked_folders)
{
    mk("links");
    mk("links/content");
    mk("links/content/real");
    mk("outside");
    char p[512], t[512];
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "outside/d%d", i);
        mk(name);
    }
    snprintf(t, sizeof t, "%s/outside", tmp);
    snprintf(p, sizeof p, "%s/links/content/out", tmp);
    OK(symlink(t, p) == 0);
    snprintf(p, sizeof p, "%s/links/content/real/up", tmp);
    OK(symlink("..", p) == 0);
    char site[512];
    snprintf(site, sizeof site, "%s/links", tmp);
    diag_list *d = diag_list_new();
    int before = count_watches();
    watch *w = watch_new(site, d);
    OK(w != NULL);
    EQ_INT(count_watches() - before, 3); /* links, links/content, links/content/real */
    watch_free(w);
    diag_list_free(d);
}

TEST(listen_errors)
{
    diag_list *d = diag_list_new();
    char *url = NULL;
    int fd = serve_listen("127.0.0.1", 0, &url, d);
    OK(fd >= 0);
    OK(url && !strncmp(url, "http://127.0.0.1:", 17));
    int port = url ? atoi(url + 17) : 0;
    OK(port > 0);
    char *url2 = NULL;
    OK(serve_listen("127.0.0.1", port, &url2, d) == -1);
    OK(url2 == NULL);
    EQ_INT(diag_error_count(d), 1);
    if (diag_count(d)) {
        buf m = BUF_INIT, want = BUF_INIT;
        diag_format(diag_get(d, 0), &m);
        buf_printf(&want,
                   "sheaf: error: port %d is already in use on 127.0.0.1: stop the other server or "
                   "pick "
                   "another port with --port",
                   port);
        EQ_STR(m.data, want.data);
        buf_release(&m);
        buf_release(&want);
    }
    close(fd);
    free(url);
    diag_clear(d);
    OK(serve_listen("127.0.0.1", 70000, &url, d) == -1);
    OK(serve_listen("0.0.0.0", 0, &url, d) >= 0 ? (free(url), true) : false);
    diag_list_free(d);
}

/* --bind's names are read without DNS or NSS (a static binary has none):
 * numbers, bracketed IPv6, localhost, and /etc/hosts. */
static bool listens_at(const char *host, const char *url_start)
{
    diag_list *d = diag_list_new();
    char *url = NULL;
    int fd = serve_listen(host, 0, &url, d);
    bool ok = fd >= 0 && url && !strncmp(url, url_start, strlen(url_start));
    if (fd >= 0)
        close(fd);
    free(url);
    diag_list_free(d);
    return ok;
}

TEST(bind_names)
{
    OK(listens_at("localhost", "http://127.0.0.1:"));
    OK(listens_at("LocalHost", "http://127.0.0.1:"));
    OK(listens_at("127.0.0.1", "http://127.0.0.1:"));
    OK(listens_at("[::1]", "http://[::1]:") || listens_at("127.0.0.1", "")); /* no IPv6: skip */
    OK(listens_at("::1", "http://[::1]:") || listens_at("127.0.0.1", ""));
    diag_list *d = diag_list_new();
    char *url = NULL;
    OK(serve_listen("no-such-name.invalid", 0, &url, d) == -1);
    OK(serve_listen("", 0, &url, d) == -1);
    EQ_INT(diag_error_count(d), 2);
    if (diag_count(d)) {
        buf m = BUF_INIT;
        diag_format(diag_get(d, 0), &m);
        EQ_STR(m.data, "sheaf: error: cannot listen on 'no-such-name.invalid': not an IP address, "
                       "'localhost' or a name in /etc/hosts");
        buf_release(&m);
    }
    diag_list_free(d);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/sheaf-serve-unit-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(resolve_paths);
    RUN(bind_names);
    RUN(host_header);
    RUN(mime_types);
    RUN(etags);
    RUN(inject);
    RUN(json);
    RUN(error_excerpt);
    RUN(css_only);
    RUN(ignored_names);
    RUN(watcher);
    RUN(watch_waits_for_whole_files);
    RUN(watch_skips_linked_folders);
    RUN(listen_errors);
    rm_rf(tmp);
    return harness_done();
}
