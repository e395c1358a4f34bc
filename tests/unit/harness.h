/* harness: the tiny test framework every unit test uses.
 *
 *   TEST(name) { EQ_STR(a, b); EQ_INT(a, b); OK(cond); }
 *   int main(void) { RUN(name); return harness_done(); }
 *
 * A failing check prints file:line and both values, and the test goes on, so
 * one run shows every failure. harness_done() prints "N passed, N failed". */
#ifndef SHEAF_HARNESS_H
#define SHEAF_HARNESS_H

#include <stdio.h>
#include <string.h>

static int harness_checks, harness_failed_checks, harness_passed, harness_failed;
static int harness_cur_failed;

#define TEST(name) static void name(void)
#define RUN(name)                                                            \
    do {                                                                     \
        harness_cur_failed = 0;                                              \
        name();                                                              \
        if (harness_cur_failed) {                                            \
            harness_failed++;                                                \
            fprintf(stderr, "FAIL %s\n", #name);                             \
        } else {                                                             \
            harness_passed++;                                                \
        }                                                                    \
    } while (0)

#define FAILF(...)                                                           \
    do {                                                                     \
        harness_failed_checks++;                                             \
        harness_cur_failed = 1;                                              \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                     \
        fprintf(stderr, __VA_ARGS__);                                        \
        fputc('\n', stderr);                                                 \
    } while (0)

#define OK(cond)                                                             \
    do {                                                                     \
        harness_checks++;                                                    \
        if (!(cond))                                                         \
            FAILF("check failed: %s", #cond);                                \
    } while (0)

#define EQ_INT(a, b)                                                         \
    do {                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                  \
        harness_checks++;                                                    \
        if (a_ != b_)                                                        \
            FAILF("%s == %s: got %lld, want %lld", #a, #b, a_, b_);          \
    } while (0)

#define EQ_STR(a, b)                                                         \
    do {                                                                     \
        const char *a_ = (a), *b_ = (b);                                     \
        harness_checks++;                                                    \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                               \
            FAILF("%s == %s:\n  got:  [%s]\n  want: [%s]", #a, #b,          \
                  a_ ? a_ : "(null)", b_ ? b_ : "(null)");                   \
    } while (0)

static inline int harness_done(void)
{
    printf("%d passed, %d failed\n", harness_passed, harness_failed);
    return harness_failed ? 1 : 0;
}

#endif
