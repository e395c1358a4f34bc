/* hl_bench: work per byte of the highlighter on long tokens, for every
 * language fences may name (issue 34: one identifier of 160 KB in a ```c
 * block took 40 s, since a search for C++'s function head rescanned the
 * identifier from each of its positions).
 *
 *   hl_bench [N]        N bytes a block (default 8192)
 *
 * For each language and each token (an identifier, digits, blanks, `a.`
 * and the other shapes below, repeated to N and to 2N bytes) it reads the
 * work hl_highlight counted (hl_page.work: units of regex work, hl.h — no
 * clock, so the figures are the same on any machine and the test cannot
 * flake) and fails unless highlighting is linear: the block of 2N bytes
 * must be highlighted (not left plain for want of budget) with at most
 * 2.2 times the work of the block of N bytes, plus a little for the fixed
 * part (SLACK). Quadratic growth quadruples it. It also fails when the
 * same block counts different work twice. Every case of every language
 * is held to this (the start guards of tools/hl/dump.js, with what
 * hl.c's guard_callout knows of earlier searches). It prints the
 * costliest case, with its work and CPU time per byte (for information
 * only). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl/hl.h"

/* the fixed part of a block's work that doubling it need not double */
enum { SLACK = 1024 };

static const char *const shapes[] = {
    "a", "A", "_", "a1", "1", " ", "a ", "a.", "a-", "a:", "::", "$a", "a(", "(", "<", "=",
    ",", "\\", "\"", "'", "#", "/", "@", "\xc3\xa9", "abcd ", "abcd(", "abcd.", "(abcd",
};

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *repeat(const char *unit, size_t n)
{
    size_t ul = strlen(unit);
    char *s = malloc(n + 1);
    size_t i = 0;
    while (i + ul <= n) {
        memcpy(s + i, unit, ul);
        i += ul;
    }
    s[i] = 0;
    return s;
}

/* the work of highlighting code alone on a page */
static unsigned long long once(int lang, const char *code, hl_status *st, double *secs)
{
    buf out = BUF_INIT;
    hl_page page = {0};
    double t0 = cpu_s();
    *st = hl_highlight(lang, code, strlen(code), &out, &page);
    *secs = cpu_s() - t0;
    buf_release(&out);
    return page.work;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 8192;
    int failures = 0, cases = 0;
    double worst = 0, worst_secs = 0;
    const char *worst_lang = "", *worst_shape = "";
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
        char *small = repeat(shapes[sh], n), *big = repeat(shapes[sh], 2 * n);
        for (size_t i = 0; i < hl_language_total(); i++) {
            const char *name = hl_language_name((int)i);
            if (!name)
                continue;
            cases++;
            hl_status s1, s2, s3;
            double t1, t2, t3;
            unsigned long long w1 = once((int)i, small, &s1, &t1);
            unsigned long long w2 = once((int)i, big, &s2, &t2);
            unsigned long long w3 = once((int)i, big, &s3, &t3);
            double per_byte = (double)w2 / (double)strlen(big);
            if (s2 != HL_OVER_BUDGET && per_byte > worst) {
                worst = per_byte;
                worst_secs = t2 / (double)strlen(big);
                worst_lang = name;
                worst_shape = shapes[sh];
            }
            if (s2 == HL_OVER_BUDGET) {
                fprintf(stderr, "FAIL %-12s [%s]x%zu: %llu units (%.0f a byte, %.1f ms), over budget: plain\n",
                        name, shapes[sh], 2 * n / strlen(shapes[sh]), w2, per_byte, t2 * 1e3);
                failures++;
            }
            if (w3 != w2 || s3 != s2) {
                fprintf(stderr, "FAIL %s [%s]: the same block counted %llu and %llu units\n", name,
                        shapes[sh], w2, w3);
                failures++;
            }
            if (s2 != HL_OVER_BUDGET && (double)w2 > 2.2 * (double)w1 + SLACK) {
                fprintf(stderr,
                        "FAIL %s [%s]: %zu bytes %llu units, twice as many %llu units "
                        "(more than 2.2x + %d)\n",
                        name, shapes[sh], strlen(small), w1, w2, SLACK);
                failures++;
            }
        }
        free(small);
        free(big);
    }
    printf("%d cases, %d failed; costliest within budget: %s on [%s], %.0f units a byte "
           "(%.2f µs a byte)\n",
           cases, failures, worst_lang, worst_shape, worst, worst_secs * 1e6);
    return failures ? 1 : 0;
}
