/* js/csl.c: citeproc-js in Duktape (see csl.h).
 *
 * Duktape implements ECMAScript 5.1 and parts of later editions;
 * citeproc-js 2.4 is ES5 but for a handful of arrow functions, `let`s,
 * template strings and one for-of loop, which third_party/citeproc/
 * duktape.patch rewrites (the vendored citeproc.js is the patched file).
 * It is a CommonJS module: `module` is defined before it runs. Each
 * engine loads it once — from the bytecode made at build time when the
 * running Duktape is the one that made it, else by compiling the source —
 * then keeps the wrapper below on its value stack and calls it per
 * document. Styles are XML, read by citeproc-js's own CSL.parseXml (plain
 * JavaScript: no DOM is needed). */
#include <duktape.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "js/csl.h"
#include "js/heap.h"
#include "util/hash.h"
#include "util/xalloc.h"

extern const unsigned char js_citeproc_source[];
extern const size_t js_citeproc_source_len;
/* citeproc.js compiled by the Duktape of the build (src/js/gen) */
extern const unsigned char js_citeproc_bytecode[];
extern const size_t js_citeproc_bytecode_len;

/* citeproc-js's warnings (CSL.debug) go to console.log: dropped */
static const char prelude[] = "var module = {exports: {}};\n"
                              "var console = {log: function () {}};\n";

/* The wrapper: a function of the request's JSON text giving the reply's.
 * sheaf_locale(lang) is the C function below. */
static const char wrapper[] =
    "(function () {\n"
    "  var CSL = module.exports, engines = {}, locales = {}, items = {}, missing = [];\n"
    "  function locale(lang) {\n"
    "    var x = sheaf_locale(lang);\n"
    "    if (typeof x !== 'string') { if (missing.indexOf(lang) < 0) missing.push(lang); return false; }\n"
    "    return x;\n"
    "  }\n"
    "  var sys = { retrieveLocale: locale,\n"
    "              retrieveItem: function (id) { return items[id]; } };\n"
    "  function primary(l) { return String(l || '').split(/[-_]/)[0].toLowerCase(); }\n"
    /* a copy of each layout for each other language, CSL-M's way */
    "  function itemLayouts(style, langs) {\n"
    "    if (!langs.length) return style;\n"
    "    style = style.replace(/<!--[\\s\\S]*?-->/g, '');\n"
    /* a citation of numbers has no terms to change, and citeproc-js
     * drops the delimiter between numbers of two layouts ("[12]") */
    "    var cit = /<citation\\b[\\s\\S]*?<\\/citation>/.exec(style);\n"
    "    var numbers = cit && /citation-number/.test(cit[0]);\n"
    "    return style.replace(/<layout\\b([^>]*?)(\\/>|>[\\s\\S]*?<\\/layout>)/g,\n"
    "      function (all, attrs, rest, at) {\n"
    "        if (/\\blocale\\s*=/.test(attrs)) return all;\n"
    "        if (numbers && at > cit.index && at < cit.index + cit[0].length) return all;\n"
    "        var out = '';\n"
    "        for (var i = 0; i < langs.length; i++)\n"
    "          out += '<layout locale=\"' + langs[i] + '\"' + attrs + rest;\n"
    "        return out + all;\n"
    "      });\n"
    "  }\n"
    "  return function (text) {\n"
    "    var q = JSON.parse(text), i, j;\n"
    "    missing = [];\n"
    "    items = {};\n"
    /* the document's language: the style's default-locale wins over the
     * one asked for, as citeproc-js does without forceLang */
    /* once per style: Duktape's regular expressions try every offset of
     * a style that has none, 2 ms in apa */
    "    var dl = locales[q.key];\n"
    "    if (dl === undefined)\n"
    "      dl = locales[q.key] = /<style\\b[^>]*?\\bdefault-locale\\s*=\\s*\"([^\"]*)\"/.exec(q.style);\n"
    "    var langs = [], base = primary(dl ? dl[1] : q.lang);\n"
    "    for (i = 0; i < q.items.length; i++) {\n"
    "      var it = q.items[i];\n"
    "      items[it.id] = it;\n"
    /* in a Chinese, Japanese or Korean document an entry of no stated
     * language is taken as English: a .bib entry always has one (bib/csl.c
     * detects it), an item of a CSL-JSON file may not */
    "      if (q.item_layouts && !it.language && /^(zh|ja|ko)$/.test(base)) it.language = 'en';\n"
    "      var p = primary(it.language);\n"
    "      if (q.item_layouts && p && p !== base && langs.indexOf(p) < 0) langs.push(p);\n"
    "    }\n"
    "    langs.sort();\n"
    "    var key = q.key + '\\n' + q.lang + '\\n' + langs.join(' ');\n"
    "    var e = engines[key];\n"
    "    if (!e) {\n"
    "      e = new CSL.Engine(sys, itemLayouts(q.style, langs), q.lang);\n"
    /* a DOI or URL as a link, as Pandoc writes it */
    "      e.opt.development_extensions.wrap_url_and_doi = true;\n"
    "      if (missing.length) throw new Error(\"no locale '\" + missing[0] + \"' for this style\");\n"
    "      engines[key] = e;\n"
    "    }\n"
    "    var r = { clusters: [] };\n"
    "    if (q.references) {\n"
    /* the bibliography of the items alone: no cluster to format, and the
     * state of the engine's last document dropped first */
    "      var ids = [];\n"
    "      for (i = 0; i < q.items.length; i++) ids.push(String(q.items[i].id));\n"
    "      e.restoreProcessorState([]);\n"
    "      e.updateItems(ids);\n"
    "    } else {\n"
    "      var cites = [];\n"
    "      for (i = 0; i < q.clusters.length; i++)\n"
    "        cites.push({ citationID: 'c' + i, citationItems: q.clusters[i],\n"
    "                     properties: { noteIndex: 0 } });\n"
    "      var made = e.rebuildProcessorState(cites, 'html');\n"
    "      for (i = 0; i < made.length; i++) r.clusters.push(made[i][2]);\n"
    "    }\n"
    "    r.bibliography = [];\n"
    "    if (e.bibliography && e.bibliography.tokens && e.bibliography.tokens.length) {\n"
    "      var b = e.makeBibliography();\n"
    "      if (b) for (i = 0; i < b[1].length; i++)\n"
    "        r.bibliography.push([String(b[0].entry_ids[i][0]), b[1][i]]);\n"
    "    }\n"
    "    r.numeric = e.opt.update_mode === CSL.NUMERIC;\n"
    "    return JSON.stringify(r);\n"
    "  };\n"
    "})()";

struct js_csl {
    duk_context *ctx; /* stack: [wrapper] */
    js_heap *h;
    js_csl_locale_fn locale;
    void *ud;
    bool spent;
    size_t cap;
    long cpu_ms;
};

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static char version[96];

static void make_version(void)
{
    uint64_t h = hash_bytes(js_citeproc_source, js_citeproc_source_len);
    h = hash_add(h, wrapper, sizeof wrapper - 1); /* what it is asked and answers */
    /* CSL.PROCESSOR_VERSION = "1.4.63" names the module 2.4.63 */
    const char *s = (const char *)js_citeproc_source;
    const char *k = memmem(s, js_citeproc_source_len, "PROCESSOR_VERSION: \"", 20);
    const char *v = k ? k + 20 : "";
    size_t vl = k ? strcspn(v, "\"") : 0;
    if (vl > 16)
        vl = 0;
    snprintf(version, sizeof version, "citeproc-js-%.*s-%016llx/duktape-%ld", (int)vl, v,
             (unsigned long long)h, (long)DUK_VERSION);
}

static const js_csl_file *find(const js_csl_file *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return &t[i];
    return NULL;
}

const js_csl_file *js_csl_bundled_style(const char *name)
{
    return find(js_csl_styles, js_csl_nstyles, name);
}

const js_csl_file *js_csl_bundled_locale(const char *lang)
{
    return find(js_csl_locales, js_csl_nlocales, lang);
}

const char *js_csl_bundled_locale_fn(void *ud, const char *lang, size_t *len)
{
    (void)ud;
    const js_csl_file *f = js_csl_bundled_locale(lang);
    if (!f)
        return NULL;
    *len = f->len;
    return f->text;
}

const char *js_csl_version(void)
{
    pthread_once(&version_once, make_version);
    return version;
}

/* sheaf_locale(lang): the engine's locale function, through the engine
 * kept in the heap's global stash. */
static duk_ret_t native_locale(duk_context *ctx)
{
    const char *lang = duk_safe_to_string(ctx, 0);
    duk_push_global_stash(ctx);
    duk_get_prop_string(ctx, -1, "engine");
    js_csl *k = duk_get_pointer(ctx, -1);
    duk_pop_2(ctx);
    size_t len = 0;
    const char *xml = k && k->locale ? k->locale(k->ud, lang, &len) : NULL;
    if (xml)
        duk_push_lstring(ctx, xml, len);
    else
        duk_push_undefined(ctx);
    return 1;
}

js_csl *js_csl_new(js_csl_locale_fn locale, void *ud, buf *error)
{
    js_heap *h;
    duk_context *ctx = js_heap_create(&h);
    if (!ctx) {
        buf_puts(error, "cannot create a JavaScript heap");
        return NULL;
    }
    js_csl *k = xcalloc(1, sizeof *k);
    k->ctx = ctx;
    k->h = h;
    k->locale = locale;
    k->ud = ud;
    k->cap = (size_t)JS_CSL_HEAP_MB << 20;
    k->cpu_ms = JS_CSL_CPU_MS;
    duk_push_global_stash(ctx);
    duk_push_pointer(ctx, k);
    duk_put_prop_string(ctx, -2, "engine");
    duk_pop(ctx);
    duk_push_c_function(ctx, native_locale, 1);
    duk_put_global_string(ctx, "sheaf_locale");
    if (!js_run_source(ctx, prelude, sizeof prelude - 1, "prelude.js", error) ||
        (!js_run_bytecode(ctx, js_citeproc_bytecode, js_citeproc_bytecode_len) &&
         !js_run_source(ctx, (const char *)js_citeproc_source, js_citeproc_source_len, "citeproc.js", error)))
        goto fail;
    duk_push_string(ctx, wrapper);
    duk_push_string(ctx, "csl-wrapper.js");
    if (duk_pcompile(ctx, DUK_COMPILE_EVAL) != 0 || duk_pcall(ctx, 0) != 0 || !duk_is_function(ctx, -1)) {
        buf_printf(error, "csl-wrapper.js: %s", duk_safe_to_string(ctx, -1));
        goto fail;
    }
    return k;
fail:
    js_heap_destroy(ctx, h);
    free(k);
    return NULL;
}

void js_csl_free(js_csl *k)
{
    if (!k)
        return;
    js_heap_destroy(k->ctx, k->h);
    free(k);
}

void js_csl_set_budget(js_csl *k, size_t heap_bytes, long cpu_ms)
{
    k->cap = heap_bytes;
    k->cpu_ms = cpu_ms;
}

bool js_csl_spent(const js_csl *k) { return k->spent; }

bool js_csl_render(js_csl *k, const char *request, size_t len, buf *out, buf *error)
{
    duk_context *ctx = k->ctx;
    if (k->spent) {
        buf_puts(error, "this engine ran out of a budget before: start another");
        return false;
    }
    if (len > JS_CSL_MAX_BYTES) {
        buf_printf(error, "this document's citations take %zu bytes, more than the %u they may take",
                   len, JS_CSL_MAX_BYTES);
        return false;
    }
    jmp_buf escape;
    volatile int rc = -1;
    if (!setjmp(escape)) {
        js_heap_arm(k->h, k->cap, k->cpu_ms, &escape);
        duk_dup(ctx, -1);
        duk_push_lstring(ctx, request, len);
        rc = duk_pcall(ctx, 1);
    }
    bool oom, late;
    js_heap_disarm(k->h, &oom, &late);
    if (oom || late) {
        k->spent = true;
        if (late)
            buf_printf(error, "formatting the citations took more than the %ld ms of CPU time they may take",
                       k->cpu_ms);
        else
            buf_printf(error, "formatting the citations needed more than the %zu MB of memory they may use",
                       k->cap >> 20);
        return false;
    }
    if (rc != 0) {
        const char *msg = NULL;
        if (duk_is_error(ctx, -1)) {
            duk_get_prop_string(ctx, -1, "message");
            msg = duk_is_string(ctx, -1) ? duk_get_string(ctx, -1) : NULL;
            if (msg)
                buf_printf(error, "citeproc-js: %s", msg);
            duk_pop(ctx);
        }
        if (!msg) {
            /* CSL.error throws a string that names citeproc-js already */
            const char *m = duk_safe_to_string(ctx, -1);
            buf_printf(error, "%s%s", strncmp(m, "citeproc-js", 11) ? "citeproc-js: " : "", m);
        }
        duk_pop(ctx);
        return false;
    }
    size_t n;
    const char *s = duk_safe_to_lstring(ctx, -1, &n);
    buf_put(out, s, n);
    duk_pop(ctx);
    return true;
}
