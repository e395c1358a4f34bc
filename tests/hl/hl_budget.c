/* hl_budget: the highlighter's budget counts work, not time, so one input
 * is highlighted or left plain the same way on any machine (issue 34).
 *
 * - A block of one C identifier of 160 KB (once quadratic, now linear:
 *   tools/hl/dump.js, "start guards") and a normal one each count the
 *   same work and give the same bytes every time, however busy the
 *   machine is between runs (the test burns CPU in between).
 * - The decision depends on that count alone: with exactly the work the
 *   block needs left on the page it is highlighted, as it is alone; with
 *   one unit less it stays plain (HL_OVER_BUDGET), escaped: the budget
 *   stays as a safety net, whatever the grammars do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl/hl.h"

static int failures;

#define CHECK(c)                                                                   \
    do {                                                                           \
        if (!(c)) {                                                                \
            fprintf(stderr, "%s:%d: FAIL %s\n", __FILE__, __LINE__, #c);           \
            failures++;                                                            \
        }                                                                          \
    } while (0)

typedef struct outcome {
    hl_status st;
    unsigned long long work;
    buf html;
} outcome;

static outcome run(int lang, const char *code, hl_page page)
{
    outcome o = {0, 0, BUF_INIT};
    o.st = hl_highlight(lang, code, strlen(code), &o.html, &page);
    o.work = page.work;
    return o;
}

static volatile double sink;

/* keeps the CPU (and its caches) busy, as another build would */
static void busy(void)
{
    char *junk = malloc(1 << 22);
    for (int i = 0; i < (1 << 22); i++)
        junk[i] = (char)i;
    double x = 0;
    for (unsigned i = 0; i < 3000000; i++)
        x += (double)junk[(i * 7919u) & ((1u << 22) - 1)] * 1e-9;
    sink = x;
    free(junk);
}

static void same_every_time(int lang, const char *code, hl_status want)
{
    outcome a = run(lang, code, (hl_page){0});
    CHECK(a.st == want);
    for (int i = 0; i < 3; i++) {
        busy();
        outcome b = run(lang, code, (hl_page){0});
        CHECK(b.st == a.st);
        CHECK(b.work == a.work);
        CHECK(b.html.len == a.html.len && memcmp(b.html.data, a.html.data, a.html.len) == 0);
        buf_release(&b.html);
    }
    buf_release(&a.html);
}

/* with exactly the block's work left it is highlighted; with one less, plain */
static void decided_by_the_count(int lang, const char *code)
{
    size_t len = strlen(code);
    outcome alone = run(lang, code, (hl_page){0});
    CHECK(alone.st == HL_HIGHLIGHTED);
    unsigned long long budget = HL_BUDGET_BASE + HL_BUDGET_PER_BYTE * len;
    CHECK(alone.work > 0 && alone.work < budget);
    outcome just = run(lang, code, (hl_page){budget - alone.work, 0});
    CHECK(just.st == HL_HIGHLIGHTED);
    CHECK(just.html.len == alone.html.len &&
          memcmp(just.html.data, alone.html.data, alone.html.len) == 0);
    outcome short_by_one = run(lang, code, (hl_page){budget - alone.work + 1, 0});
    CHECK(short_by_one.st == HL_OVER_BUDGET);
    buf plain = BUF_INIT;
    hl_escape(&plain, code, len);
    CHECK(short_by_one.html.len == plain.len &&
          memcmp(short_by_one.html.data, plain.data, plain.len) == 0);
    buf_release(&plain);
    buf_release(&alone.html);
    buf_release(&just.html);
    buf_release(&short_by_one.html);
}

int main(void)
{
    int c = hl_language_find("c", 1);
    CHECK(c >= 0);
    if (c < 0)
        return 1;
    size_t n = 160 * 1024;
    char *ident = malloc(n + 1);
    memset(ident, 'a', n);
    ident[n] = 0;
    const char *normal = "#include <stdio.h>\n\n/* say hello */\nint main(int argc, char **argv)\n"
                         "{\n    for (int i = 0; i < argc; i++)\n        printf(\"%s<>&\\n\", argv[i]);\n"
                         "    return 0;\n}\n";
    same_every_time(c, ident, HL_HIGHLIGHTED);
    same_every_time(c, normal, HL_HIGHLIGHTED);
    decided_by_the_count(c, normal);
    decided_by_the_count(c, ident);
    /* a block of 512 bytes of identifier: highlighted, and decided by the count too */
    ident[512] = 0;
    decided_by_the_count(c, ident);
    free(ident);
    if (failures)
        fprintf(stderr, "hl_budget: %d failed\n", failures);
    else
        printf("hl_budget: all passed\n");
    return failures ? 1 : 0;
}
