/* fuzz_serve: libFuzzer target over what the preview server decides for
 * each request before it answers (serve/serve_path.c): the request path
 * resolved against a small output folder (files, folders, symlinks in and
 * out), the Host header check, If-None-Match matching, the MIME type, the
 * live-reload script injection and the JSON string escaping.
 *
 * Input: one request path, Host header or header value (the same bytes go
 * to every function; a NUL ends the C-string ones, as it does on the wire).
 * Checked beyond "no crash": a resolved file is a regular file inside the
 * folder, never the secret beside it; a redirect starts with one '/';
 * injection keeps every byte of the page. Seed corpus: tests/fuzz/corpus/serve/
 * (see tests/fuzz/CMakeLists.txt). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/serve.h"
#include "util/buf.h"

static char *root_real; /* realpath of <tmp>/out */

static void put(const char *dir, const char *rel, const char *text)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void setup(void)
{
    static char tmp[256];
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/sheaf-fuzz-serve-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp))
        abort();
    char p[600];
    put(tmp, "secret.txt", "SECRET");
    snprintf(p, sizeof p, "%s/out", tmp);
    mkdir(p, 0755);
    root_real = realpath(p, NULL);
    if (!root_real)
        abort();
    const char *dirs[] = { "posts", "posts/a", "empty", "a b", "%2e" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", root_real, dirs[i]);
        mkdir(p, 0755);
    }
    put(root_real, "index.html", "<html><body>home</body></html>");
    put(root_real, "posts/a/index.html", "<p>a</p>");
    put(root_real, "a b/x.css", "b{}");
    put(root_real, "%2e/y.txt", "y");
    snprintf(p, sizeof p, "%s/leak", root_real);
    if (symlink("../secret.txt", p) != 0)
        abort();
    snprintf(p, sizeof p, "%s/up", root_real);
    if (symlink("..", p) != 0)
        abort();
    snprintf(p, sizeof p, "%s/in.html", root_real);
    if (symlink("posts/a/index.html", p) != 0)
        abort();
    /* The folder stays: libFuzzer has no teardown, and it is tiny. */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!root_real)
        setup();
    if (size > 1 << 14)
        return 0;
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';

    buf file = BUF_INIT, loc = BUF_INIT;
    serve_status st = serve_resolve(root_real, s, &file, &loc);
    size_t rn = strlen(root_real);
    if (st == SERVE_FILE) {
        struct stat sb;
        if (strncmp(file.data, root_real, rn) || file.data[rn] != '/' ||
            strstr(file.data, "secret") || stat(file.data, &sb) || !S_ISREG(sb.st_mode))
            abort();
    } else if (file.len) {
        abort();
    }
    if (st == SERVE_REDIRECT && (loc.data[0] != '/' || loc.data[1] == '/'))
        abort();
    if (st != SERVE_REDIRECT && loc.len)
        abort();

    (void)serve_host_allowed(s, "mybox.lan", false);
    (void)serve_host_allowed(s, "", true);
    (void)serve_etag_match(s, "\"1a-2b-3c.4d\"");
    (void)serve_etag_match("\"x\", W/\"1a\"", s);
    (void)serve_is_html(serve_mime_type(s));

    buf out = BUF_INIT;
    serve_inject((const char *)data, size, "<script>S</script>", &out);
    if (out.len != size + 18)
        abort();
    buf_reset(&out);
    serve_json_string(&out, s);
    for (size_t i = 0; i < out.len; i++)
        if (out.data[i] == '<' || out.data[i] == '\n' || (unsigned char)out.data[i] < 0x20)
            abort();

    const char *list[4] = { s, "a.css", s, "templates/x.css" };
    (void)serve_css_only(list, size % 4 + 1);

    buf_release(&out);
    buf_release(&file);
    buf_release(&loc);
    free(s);
    return 0;
}
