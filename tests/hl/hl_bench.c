/* hl_bench: time per byte of the highlighter on long tokens, for every
 * language fences may name (issue 34: one identifier of 160 KB in a ```c
 * block took 40 s, since a search for C++'s function head rescans the
 * identifier from each of its positions).
 *
 *   hl_bench [N]        N bytes a block (default 8192)
 *
 * For each language and each token (an identifier, digits, blanks, `a.`
 * and the other shapes below, repeated to N and to 2N bytes) it measures
 * the CPU time of hl_highlight and fails when doubling the block more than
 * triples the time, past the budget's fixed part (a time a + b·n may grow
 * from t to 2t + a; quadratic growth quadruples it), or when a block takes
 * longer than its budget (hl.h) allows. The time is this thread's CPU time,
 * so other work on the machine hardly moves it; a ratio over the limit is
 * measured twice more and the medians compared. It prints the slowest
 * cases, with their time per byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl/hl.h"

static const char *const shapes[] = {
    "a", "A", "_", "a1", "1", " ", "a ", "a.", "a-", "a:", "::", "$a", "a(", "(", "<", "=",
    ",", "\\", "\"", "'", "#", "/", "@", "\xc3\xa9",
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

static double once(int lang, const char *code, hl_status *st)
{
    buf out = BUF_INIT;
    double t0 = cpu_s();
    *st = hl_highlight(lang, code, strlen(code), &out, NULL);
    double t = cpu_s() - t0;
    buf_release(&out);
    return t;
}

static double median3(int lang, const char *code, double first)
{
    hl_status st;
    double a = first, b = once(lang, code, &st), c = once(lang, code, &st);
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : c > hi ? hi : c;
}

static double budget(size_t len)
{
    return HL_BUDGET_BASE_MS / 1e3 + HL_BUDGET_NS_PER_BYTE * (double)len / 1e9;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 8192;
    int failures = 0, cases = 0;
    double worst = 0;
    const char *worst_lang = "", *worst_shape = "";
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
        char *small = repeat(shapes[sh], n), *big = repeat(shapes[sh], 2 * n);
        for (size_t i = 0; i < hl_language_total(); i++) {
            const char *name = hl_language_name((int)i);
            if (!name)
                continue;
            cases++;
            hl_status s1, s2;
            double t1 = once((int)i, small, &s1), t2 = once((int)i, big, &s2);
            /* the fixed part of the budget, and 3 ms: a fast case is noise */
            double slack = HL_BUDGET_BASE_MS / 1e3 + 0.003;
            if (t2 > 3 * t1 + slack) {
                t1 = median3((int)i, small, t1);
                t2 = median3((int)i, big, t2);
            }
            double per_byte = t2 / (double)strlen(big);
            if (per_byte > worst) {
                worst = per_byte;
                worst_lang = name;
                worst_shape = shapes[sh];
            }
            if (t2 > 0.05)
                printf("%-12s [%s]x%zu: %.1f ms, x%zu: %.1f ms (%.2f µs a byte)%s\n", name,
                       shapes[sh], n / strlen(shapes[sh]), t1 * 1e3, 2 * n / strlen(shapes[sh]),
                       t2 * 1e3, per_byte * 1e6, s2 == HL_OVER_BUDGET ? ", over budget: plain" : "");
            if (t2 > 3 * t1 + slack) {
                fprintf(stderr, "FAIL %s [%s]: %zu bytes %.1f ms, twice as many %.1f ms (more than 3x + %d ms)\n",
                        name, shapes[sh], strlen(small), t1 * 1e3, t2 * 1e3, HL_BUDGET_BASE_MS);
                failures++;
            }
            if (t2 > 1.5 * budget(strlen(big)) + 0.02) {
                fprintf(stderr, "FAIL %s [%s]: %zu bytes took %.1f ms, over the budget of %.1f ms\n",
                        name, shapes[sh], strlen(big), t2 * 1e3, budget(strlen(big)) * 1e3);
                failures++;
            }
        }
        free(small);
        free(big);
    }
    printf("%d cases, %d failed; slowest: %s on [%s], %.2f µs a byte\n", cases, failures,
           worst_lang, worst_shape, worst * 1e6);
    return failures ? 1 : 0;
}
