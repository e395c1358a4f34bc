/* js/katex.c: KaTeX in Duktape (see katex.h).
 *
 * Duktape implements ECMAScript 5.1 and parts of later editions; KaTeX
 * 0.16 also calls Array.prototype.fill (for matrices), which is added
 * first. Each engine loads KaTeX once — from the bytecode made at build
 * time when the Duktape library it runs with is the one that made it
 * (Duktape does not check bytecode: a different version could misread
 * it), else by compiling katex.min.js — then keeps a small wrapper
 * function on its value stack and calls it per formula. KaTeX's
 * `output: "mathml"` gives `<span class="katex"><math …>…</math></span>`;
 * the <span> is dropped. A ParseError's `position` counts UTF-16 units of
 * the TeX, turned here into a byte offset. */
#include <duktape.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "js/heap.h"
#include "js/katex.h"
#include "util/hash.h"
#include "util/xalloc.h"

extern const unsigned char js_katex_source[];
extern const size_t js_katex_source_len;
/* katex.min.js compiled by the Duktape of the build (src/js/gen) */
extern const unsigned char js_katex_bytecode[];
extern const size_t js_katex_bytecode_len;

static const char polyfill[] =
    "if (!Array.prototype.fill) {\n"
    "  Object.defineProperty(Array.prototype, 'fill', {\n"
    "    value: function (v, start, end) {\n"
    "      var n = this.length >>> 0;\n"
    "      var s = start === undefined ? 0 : start >> 0;\n"
    "      var e = end === undefined ? n : end >> 0;\n"
    "      s = s < 0 ? Math.max(n + s, 0) : Math.min(s, n);\n"
    "      e = e < 0 ? Math.max(n + e, 0) : Math.min(e, n);\n"
    "      for (var i = s; i < e; i++) this[i] = v;\n"
    "      return this;\n"
    "    }, writable: true, configurable: true });\n"
    "}\n";

#define STR_(x) #x
#define STR(x) STR_(x)

static const char wrapper[] =
    "(function (tex, display) {\n"
    "  return katex.renderToString(tex, {output: 'mathml', displayMode: display,\n"
    "                                    throwOnError: true,\n"
    "                                    maxExpand: " STR(JS_KATEX_MAX_EXPAND) ",\n"
    "                                    maxSize: " STR(JS_KATEX_MAX_SIZE_EM) "});\n"
    "})";

/* ---- the engine ----
 *
 * Its heap allocates through js/heap.c, which keeps each formula's budget
 * (memory and CPU time) and jumps back here past it. */

struct js_katex {
    duk_context *ctx; /* stack: [wrapper] */
    js_heap *h;
    bool spent; /* ran out of a budget: not to be used again */
    size_t cap;           /* the heap's budget past what KaTeX takes loaded */
    long cpu_ms;          /* each formula's CPU time */
};

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static char version[96];

static void make_version(void)
{
    uint64_t h = hash_bytes(js_katex_source, js_katex_source_len);
    /* "version:"0.16.4"" as the minified source writes it */
    const char *v = NULL;
    size_t vl = 0;
    const char *s = (const char *)js_katex_source;
    const char *k = memmem(s, js_katex_source_len, "version:\"", 9);
    if (k) {
        v = k + 9;
        vl = strcspn(v, "\"");
        if (vl > 16)
            vl = 0;
    }
    /* the options that change what a formula gives: maxExpand and maxSize */
    snprintf(version, sizeof version, "katex-%.*s-%016llx/duktape-%ld/x%d-s%d", (int)vl,
             v ? v : "", (unsigned long long)h, (long)DUK_VERSION, JS_KATEX_MAX_EXPAND,
             JS_KATEX_MAX_SIZE_EM);
}

const char *js_katex_version(void)
{
    pthread_once(&version_once, make_version);
    return version;
}

js_katex *js_katex_new(buf *error)
{
    js_heap *h;
    duk_context *ctx = js_heap_create(&h);
    if (!ctx) {
        buf_puts(error, "cannot create a JavaScript heap");
        return NULL;
    }
    if (!js_run_source(ctx, polyfill, sizeof polyfill - 1, "polyfill.js", error) ||
        (!js_run_bytecode(ctx, js_katex_bytecode, js_katex_bytecode_len) &&
         !js_run_source(ctx, (const char *)js_katex_source, js_katex_source_len, "katex.min.js", error))) {
        js_heap_destroy(ctx, h);
        return NULL;
    }
    duk_push_string(ctx, wrapper);
    duk_push_string(ctx, "wrapper.js");
    if (duk_pcompile(ctx, DUK_COMPILE_EVAL) != 0 || duk_pcall(ctx, 0) != 0 || !duk_is_function(ctx, -1)) {
        buf_printf(error, "wrapper.js: %s", duk_safe_to_string(ctx, -1));
        js_heap_destroy(ctx, h);
        return NULL;
    }
    js_katex *k = xcalloc(1, sizeof *k);
    k->ctx = ctx;
    k->h = h;
    k->cap = (size_t)JS_KATEX_HEAP_MB << 20;
    k->cpu_ms = JS_KATEX_CPU_MS;
    return k;
}

void js_katex_set_budget(js_katex *k, size_t heap_bytes, long cpu_ms)
{
    k->cap = heap_bytes;
    k->cpu_ms = cpu_ms;
}

bool js_katex_spent(const js_katex *k) { return k->spent; }

void js_katex_free(js_katex *k)
{
    if (!k)
        return;
    js_heap_destroy(k->ctx, k->h);
    free(k);
}

/* The byte offset in tex of UTF-16 unit `units`. */
static long utf16_to_byte(const char *tex, size_t len, long units)
{
    size_t i = 0;
    long u = 0;
    while (i < len && u < units) {
        unsigned char c = (unsigned char)tex[i];
        size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        u += n == 4 ? 2 : 1;
        i += n;
    }
    return (long)(i < len ? i : len);
}

/* Duktape keeps a character beyond U+FFFF as one code point, where
 * JavaScript (and KaTeX's lexer, which matches surrogate pairs) sees two
 * UTF-16 units: such a character (𝜎, 𝟙) was "Unexpected character". It
 * goes in as its surrogate pair, each half encoded as UTF-8 would a code
 * point (CESU-8), and what comes out is read back. True when s[0..n) has
 * one (the text is then in b). */
static bool to_pairs(const char *s, size_t n, buf *b)
{
    size_t i = 0;
    while (i < n && (unsigned char)s[i] < 0xf0)
        i++;
    if (i == n)
        return false;
    for (i = 0; i < n; i++) {
        const unsigned char *c = (const unsigned char *)s + i;
        if (c[0] >= 0xf0 && c[0] <= 0xf4 && i + 3 < n && (c[1] & 0xc0) == 0x80 && (c[2] & 0xc0) == 0x80 &&
            (c[3] & 0xc0) == 0x80) {
            uint32_t cp = ((uint32_t)(c[0] & 7) << 18 | (uint32_t)(c[1] & 0x3f) << 12 |
                           (uint32_t)(c[2] & 0x3f) << 6 | (c[3] & 0x3f)) - 0x10000;
            uint32_t half[2] = { 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff) };
            for (int h = 0; h < 2; h++) {
                buf_putc(b, (char)(0xe0 | half[h] >> 12));
                buf_putc(b, (char)(0x80 | (half[h] >> 6 & 0x3f)));
                buf_putc(b, (char)(0x80 | (half[h] & 0x3f)));
            }
            i += 3;
        } else {
            buf_putc(b, (char)c[0]);
        }
    }
    return true;
}

/* s[0..n) to out, each surrogate pair (as to_pairs wrote it) made the
 * UTF-8 of its character again. */
static void put_from_pairs(buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char *c = (const unsigned char *)s + i;
        if (c[0] == 0xed && i + 5 < n && c[1] >= 0xa0 && c[1] <= 0xaf && c[3] == 0xed && c[4] >= 0xb0 &&
            c[4] <= 0xbf) {
            uint32_t hi = (uint32_t)(c[1] & 0x0f) << 6 | (c[2] & 0x3f);
            uint32_t lo = (uint32_t)(c[4] & 0x0f) << 6 | (c[5] & 0x3f);
            uint32_t cp = 0x10000 + (hi << 10 | lo);
            buf_putc(out, (char)(0xf0 | cp >> 18));
            buf_putc(out, (char)(0x80 | (cp >> 12 & 0x3f)));
            buf_putc(out, (char)(0x80 | (cp >> 6 & 0x3f)));
            buf_putc(out, (char)(0x80 | (cp & 0x3f)));
            i += 5;
        } else {
            buf_putc(out, (char)c[0]);
        }
    }
}

/* KaTeX's message without the quote of the input it appends (" at
 * position 5: …x^{̲…"), which the caller shows as a line and column. */
static void put_message(buf *out, const char *msg)
{
    const char *cut = strstr(msg, " at position ");
    const char *end_in = strstr(msg, " at end of input: ");
    if (end_in && (!cut || end_in < cut)) {
        buf_put(out, msg, (size_t)(end_in - msg));
        buf_puts(out, " at end of input");
    } else if (cut) {
        buf_put(out, msg, (size_t)(cut - msg));
    } else {
        buf_puts(out, msg);
    }
}

bool js_katex_render(js_katex *k, const char *tex, size_t len, bool display, buf *out,
                     long *error_at)
{
    duk_context *ctx = k->ctx;
    *error_at = -1;
    if (k->spent) { /* its heap was left in the middle of a call */
        buf_puts(out, "this engine ran out of a budget before: start another");
        return false;
    }
    if (len > JS_KATEX_MAX_BYTES) {
        buf_printf(out, "this formula has %zu bytes, more than the %d a formula may have", len,
                   JS_KATEX_MAX_BYTES);
        return false;
    }
    /* the budget: this much more heap than KaTeX holds before the formula
     * (what it keeps between formulas is collected now and then by
     * js_pool_collect), this much CPU time */
    buf paired = BUF_INIT;
    bool pairs = to_pairs(tex, len, &paired);
    jmp_buf escape;
    volatile int rc = -1;
    if (!setjmp(escape)) {
        js_heap_arm(k->h, k->cap, k->cpu_ms, &escape);
        duk_dup(ctx, -1);
        if (pairs)
            duk_push_lstring(ctx, paired.data, paired.len);
        else
            duk_push_lstring(ctx, tex, len);
        duk_push_boolean(ctx, display);
        rc = duk_pcall(ctx, 2);
    }
    bool oom, late;
    js_heap_disarm(k->h, &oom, &late);
    buf_release(&paired);
    if (oom || late) {
        /* jumped out of whatever KaTeX was in the middle of: the engine is
         * only destroyed now, never called */
        k->spent = true;
        if (late)
            buf_printf(out, "this formula took more than the %ld ms of CPU time a formula may take",
                       k->cpu_ms);
        else
            buf_printf(out, "this formula needed more than the %zu MB of memory a formula may use",
                       k->cap >> 20);
        return false;
    }
    if (rc != 0) {
        const char *msg = NULL;
        if (duk_is_object(ctx, -1)) {
            if (duk_get_prop_string(ctx, -1, "position") && duk_is_number(ctx, -1))
                *error_at = utf16_to_byte(tex, len, (long)duk_get_number(ctx, -1));
            duk_pop(ctx);
            duk_get_prop_string(ctx, -1, "message");
            msg = duk_is_string(ctx, -1) ? duk_get_string(ctx, -1) : NULL;
            if (msg) {
                buf m = BUF_INIT;
                put_message(&m, msg);
                put_from_pairs(out, m.data, m.len);
                buf_release(&m);
            }
            duk_pop(ctx);
        }
        if (!msg)
            buf_printf(out, "KaTeX: %s", duk_safe_to_string(ctx, -1));
        duk_pop(ctx);
        return false;
    }
    size_t n;
    const char *s = duk_safe_to_lstring(ctx, -1, &n);
    static const char open[] = "<span class=\"katex\">", close[] = "</span>";
    if (n >= sizeof open - 1 + sizeof close - 1 && !memcmp(s, open, sizeof open - 1) &&
        !memcmp(s + n - (sizeof close - 1), close, sizeof close - 1)) {
        s += sizeof open - 1;
        n -= sizeof open - 1 + sizeof close - 1;
    }
    if (pairs)
        put_from_pairs(out, s, n);
    else
        buf_put(out, s, n);
    duk_pop(ctx);
    return true;
}

/* ---- the pool ---- */

struct js_pool {
    pthread_mutex_t mu;
    js_katex **idle;
    size_t nidle, cap;
    size_t started;
    double ms;
};

js_pool *js_pool_new(void)
{
    js_pool *p = xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

void js_pool_free(js_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nidle; i++)
        js_katex_free(p->idle[i]);
    free(p->idle);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

js_katex *js_pool_take(js_pool *p, buf *error)
{
    pthread_mutex_lock(&p->mu);
    if (p->nidle) {
        js_katex *k = p->idle[--p->nidle];
        pthread_mutex_unlock(&p->mu);
        return k;
    }
    pthread_mutex_unlock(&p->mu);
    double t0 = now_ms();
    js_katex *k = js_katex_new(error);
    double t = now_ms() - t0;
    pthread_mutex_lock(&p->mu);
    if (k) {
        p->started++;
        p->ms += t;
    }
    pthread_mutex_unlock(&p->mu);
    return k;
}

void js_pool_give(js_pool *p, js_katex *k)
{
    if (!k)
        return;
    if (k->spent) {
        js_katex_free(k);
        return;
    }
    pthread_mutex_lock(&p->mu);
    if (p->nidle == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 4;
        p->idle = xrealloc(p->idle, p->cap * sizeof *p->idle);
    }
    p->idle[p->nidle++] = k;
    pthread_mutex_unlock(&p->mu);
}

void js_pool_collect(js_pool *p)
{
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->nidle; i++) {
        duk_gc(p->idle[i]->ctx, 0);
    }
    pthread_mutex_unlock(&p->mu);
}

size_t js_pool_started(js_pool *p, double *ms)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->started;
    if (ms)
        *ms = p->ms;
    pthread_mutex_unlock(&p->mu);
    return n;
}
