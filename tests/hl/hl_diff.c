/* hl_diff: the native highlighter against highlight.js itself.
 *
 *   hl_diff HIGHLIGHT_JS SAMPLES_DIR
 *   hl_diff HIGHLIGHT_JS --corpus DIR
 *
 * For every file SAMPLES_DIR/<language>.<anything> it highlights the file
 * with hl_highlight and with hljs.highlight(<language>, text, true) run in
 * Duktape, and fails unless the two HTML strings are equal byte for byte. It
 * also fails when a language a fence may name has no sample, so no language
 * ships unchecked, and it runs every language over a few awkward inputs
 * (empty, unterminated strings and comments, stray brackets).
 *
 * With --corpus, DIR holds fuzz_hl inputs (a language byte, then code) and
 * each is compared the same way: what the fuzzer found, checked against
 * highlight.js (inputs that are not UTF-8 are skipped: sheaf leaves those
 * plain on purpose). */
#include <dirent.h>
#include <duktape.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl/hl.h"
#include "util/text.h"

static duk_context *ctx;
static int failures;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf b = BUF_INIT;
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_put(&b, tmp, n);
    fclose(f);
    return buf_detach(&b, len);
}

/* hljs.highlight(lang, code, true).value, into out */
static int reference(const char *lang, const char *code, size_t len, buf *out)
{
    duk_get_global_string(ctx, "exports");
    duk_push_string(ctx, "highlight");
    duk_push_string(ctx, lang);
    duk_push_lstring(ctx, code, len);
    duk_push_true(ctx);
    if (duk_pcall_prop(ctx, -5, 3) != 0) {
        fprintf(stderr, "hl_diff: highlight.js threw on %s: %s\n", lang,
                duk_safe_to_string(ctx, -1));
        duk_pop_2(ctx);
        return -1;
    }
    duk_get_prop_string(ctx, -1, "value");
    duk_size_t n;
    const char *html = duk_get_lstring(ctx, -1, &n);
    buf_put(out, html, n);
    duk_pop_3(ctx);
    return 0;
}

static void compare(const char *what, const char *lang, const char *code, size_t len)
{
    int id = hl_language_find(lang, strlen(lang));
    if (id < 0) {
        fprintf(stderr, "FAIL %s: %s is not a language sheaf highlights\n", what, lang);
        failures++;
        return;
    }
    buf want = BUF_INIT, got = BUF_INIT;
    if (reference(lang, code, len, &want) != 0) {
        failures++;
        return;
    }
    if (hl_highlight(id, code, len, &got, NULL) == HL_OVER_BUDGET) {
        fprintf(stderr, "FAIL %s (%s): over the time budget\n", what, lang);
        failures++;
    }
    if (want.len != got.len || memcmp(want.data, got.data, want.len) != 0) {
        size_t i = 0;
        while (i < want.len && i < got.len && want.data[i] == got.data[i])
            i++;
        size_t from = i > 80 ? i - 80 : 0;
        fprintf(stderr, "FAIL %s (%s): differs at byte %zu\n  highlight.js: %.*s\n  sheaf:        %.*s\n",
                what, lang, i, (int)(want.len - from < 240 ? want.len - from : 240),
                want.data + from, (int)(got.len - from < 240 ? got.len - from : 240),
                got.data + from);
        failures++;
    }
    buf_release(&want);
    buf_release(&got);
}

static const char *const awkward[] = {
    "",
    "\n",
    "\"unterminated\n'also\n/* open comment\n",
    "}}]) ((( <<< >>> &&& ;;; $$ @@ ## -- // \\\\",
    "a\n\n\tb  c\r\nd",
    "x = \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\" # \xc2\xa0nbsp\n",
    "<div class=\"a\">&amp; <b>x</b></div>\n<script>var a = 1 < 2;</script>\n<style>p{color:red}</style>\n",
    "`tick` ${x} #{y} %{z} @{w}\n",
};

static int corpus(const char *dir)
{
    int langs[256], nlangs = 0;
    for (size_t i = 0; i < hl_language_total() && nlangs < 256; i++)
        if (hl_language_name((int)i))
            langs[nlangs++] = (int)i;
    DIR *d = opendir(dir);
    if (!d || !nlangs)
        return 1;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *data = e->d_name[0] == '.' ? NULL : slurp(path, &len);
        if (!data)
            continue;
        if (len >= 1 && text_utf8_check(data + 1, len - 1) == (size_t)-1) {
            compare(e->d_name, hl_language_name(langs[(unsigned char)data[0] % nlangs]), data + 1,
                    len - 1);
            n++;
        }
        free(data);
    }
    closedir(d);
    printf("hl_diff: %d corpus inputs, %s\n", n, failures ? "FAILED" : "all equal");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: hl_diff HIGHLIGHT_JS SAMPLES_DIR\n");
        return 2;
    }
    ctx = duk_create_heap_default();
    size_t len;
    char *js = slurp(argv[1], &len);
    if (!ctx || !js) {
        fprintf(stderr, "hl_diff: cannot load %s\n", argv[1]);
        return 1;
    }
    if (duk_peval_string(ctx, "var exports = {}; var console = {log: function () {},"
                              " warn: function () {}, error: function () {}};") != 0 ||
        (duk_pop(ctx), duk_peval_lstring(ctx, js, len)) != 0) {
        fprintf(stderr, "hl_diff: %s\n", duk_safe_to_string(ctx, -1));
        return 1;
    }
    duk_pop(ctx);
    duk_peval_string_noresult(
        ctx, "exports.configure({hideUpgradeWarningAcceptNoSupportOrSecurityUpdates: true});");
    free(js);

    size_t nlang = hl_language_total();
    if (!strcmp(argv[2], "--corpus") && argc == 4)
        return corpus(argv[3]);
    /* every sample */
    char *sampled = calloc(nlang + 1, 1);
    DIR *d = opendir(argv[2]);
    if (!d) {
        fprintf(stderr, "hl_diff: cannot open %s\n", argv[2]);
        return 1;
    }
    struct dirent *e;
    int nsamples = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char lang[256];
        snprintf(lang, sizeof lang, "%s", e->d_name);
        char *dot = strchr(lang, '.');
        if (dot)
            *dot = 0;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[2], e->d_name);
        char *code = slurp(path, &len);
        if (!code)
            continue;
        compare(e->d_name, lang, code, len);
        int id = hl_language_find(lang, strlen(lang));
        if (id >= 0)
            sampled[id] = 1;
        free(code);
        nsamples++;
    }
    closedir(d);

    /* every language: a sample, and the awkward inputs */
    for (size_t i = 0; i < nlang; i++) {
        const char *name = hl_language_name((int)i);
        if (!name)
            continue;
        if (!sampled[i]) {
            fprintf(stderr, "FAIL %s: no sample in %s\n", name, argv[2]);
            failures++;
        }
        for (size_t k = 0; k < sizeof awkward / sizeof *awkward; k++) {
            char what[64];
            snprintf(what, sizeof what, "awkward input %zu", k);
            compare(what, name, awkward[k], strlen(awkward[k]));
        }
    }
    free(sampled);
    duk_destroy_heap(ctx);
    printf("hl_diff: %d samples, %s\n", nsamples, failures ? "FAILED" : "all equal");
    return failures ? 1 : 0;
}
