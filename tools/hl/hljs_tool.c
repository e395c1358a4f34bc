/* hljs_tool: runs highlight.js in Duktape, for the build and for tests.
 *
 *   hljs_tool gen HIGHLIGHT_JS DUMP_JS OUT_C LANG...
 *       writes the compiled definitions of LANG... (and the languages they
 *       embed) as C data for src/hl/ (see dump.js); says on stderr which
 *       languages it had to leave out and why.
 *   hljs_tool ref HIGHLIGHT_JS LANG FILE
 *       prints hljs.highlight(LANG, contents of FILE, true).value: what
 *       highlight.js itself makes of it, for the differential test.
 *
 * A build-time and test-time tool only: sheaf itself never runs JavaScript
 * for highlighting. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <duktape.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "hljs_tool: cannot open %s\n", path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0;
    char *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap);
        }
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "hljs_tool: out of memory\n");
        exit(1);
    }
    *len = n;
    return data;
}

static void eval_file(duk_context *ctx, const char *path)
{
    size_t len;
    char *src = slurp(path, &len);
    duk_push_string(ctx, path);
    if (duk_pcompile_lstring_filename(ctx, 0, src, len) != 0 || duk_pcall(ctx, 0) != 0) {
        fprintf(stderr, "hljs_tool: %s: %s\n", path, duk_safe_to_string(ctx, -1));
        exit(1);
    }
    duk_pop(ctx);
    free(src);
}

/* hlPcreOk(pattern): whether PCRE2 compiles it with the options src/hl uses */
static duk_ret_t pcre_ok(duk_context *ctx)
{
    duk_size_t len;
    const char *pat = duk_require_lstring(ctx, 0, &len);
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, len, PCRE2_UTF | PCRE2_MATCH_UNSET_BACKREF,
                                   &err, &off, NULL);
    duk_push_boolean(ctx, re != NULL);
    pcre2_code_free(re);
    return 1;
}

static duk_context *start(const char *hljs_path)
{
    duk_context *ctx = duk_create_heap_default();
    if (!ctx) {
        fprintf(stderr, "hljs_tool: cannot start Duktape\n");
        exit(1);
    }
    /* highlight.js exports itself through `exports` and writes to console */
    static const char prelude[] =
        "var exports = {};"
        "var console = {log: function () {}, warn: function () {}, error: function () {}};";
    if (duk_peval_string(ctx, prelude) != 0) {
        fprintf(stderr, "hljs_tool: %s\n", duk_safe_to_string(ctx, -1));
        exit(1);
    }
    duk_pop(ctx);
    eval_file(ctx, hljs_path);
    duk_push_c_function(ctx, pcre_ok, 1);
    duk_put_global_string(ctx, "hlPcreOk");
    return ctx;
}

static int gen(int argc, char **argv)
{
    duk_context *ctx = start(argv[0]);
    eval_file(ctx, argv[1]);
    duk_get_global_string(ctx, "hlDump");
    duk_push_array(ctx);
    for (int i = 3; i < argc; i++) {
        duk_push_string(ctx, argv[i]);
        duk_put_prop_index(ctx, -2, (duk_uarridx_t)(i - 3));
    }
    if (duk_pcall(ctx, 1) != 0) {
        fprintf(stderr, "hljs_tool: %s\n", duk_safe_to_string(ctx, -1));
        return 1;
    }
    duk_get_prop_string(ctx, -1, "problems");
    duk_size_t n = duk_get_length(ctx, -1);
    for (duk_size_t i = 0; i < n; i++) {
        duk_get_prop_index(ctx, -1, (duk_uarridx_t)i);
        fprintf(stderr, "hljs_tool: left out: %s\n", duk_safe_to_string(ctx, -1));
        duk_pop(ctx);
    }
    duk_pop(ctx);
    duk_get_prop_string(ctx, -1, "c");
    duk_size_t len;
    const char *c = duk_get_lstring(ctx, -1, &len);
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(c, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "hljs_tool: cannot write %s\n", argv[2]);
        return 1;
    }
    duk_destroy_heap(ctx);
    return 0;
}

static int ref(char **argv)
{
    duk_context *ctx = start(argv[0]);
    size_t len;
    char *code = slurp(argv[2], &len);
    duk_get_global_string(ctx, "exports");
    duk_get_prop_string(ctx, -1, "configure");
    duk_push_object(ctx);
    duk_push_true(ctx);
    duk_put_prop_string(ctx, -2, "hideUpgradeWarningAcceptNoSupportOrSecurityUpdates");
    duk_call(ctx, 1);
    duk_pop(ctx);
    duk_push_string(ctx, "highlight");
    duk_push_string(ctx, argv[1]);
    duk_push_lstring(ctx, code, len);
    duk_push_true(ctx);
    if (duk_pcall_prop(ctx, -5, 3) != 0) {
        fprintf(stderr, "hljs_tool: %s\n", duk_safe_to_string(ctx, -1));
        return 1;
    }
    duk_get_prop_string(ctx, -1, "value");
    duk_size_t n;
    const char *html = duk_get_lstring(ctx, -1, &n);
    fwrite(html, 1, n, stdout);
    free(code);
    duk_destroy_heap(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "gen") == 0)
        return gen(argc - 2, argv + 2);
    if (argc == 5 && strcmp(argv[1], "ref") == 0)
        return ref(argv + 2);
    fprintf(stderr, "usage: hljs_tool gen HIGHLIGHT_JS DUMP_JS OUT_C LANG...\n"
                    "       hljs_tool ref HIGHLIGHT_JS LANG FILE\n");
    return 2;
}
