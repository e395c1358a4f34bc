/* test_bulk: the stand-ins of a page's content, summary and toc
 * (site/bulk.c) are the bytes "%zx" and "%016llx" write: a record written
 * by a build that formatted them so must still match. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "site/bulk.h"
#include "site/site.h"
#include "util/arena.h"

/* site_page_lazy_value's stand-in, as printf writes it. */
static void expect_body(arena *a, size_t len, uint64_t hash, bool summary)
{
    site_bulk b = { 0 };
    page p = { 0 };
    p.bulk = &b;
    if (summary) {
        b.summary_len = len;
        b.summary_hash = hash;
    } else {
        b.html_len = len;
        b.html_hash = hash;
    }
    tpl_value v;
    OK(site_page_lazy_value(NULL, a, &p, summary, &v));
    char want[64];
    if (len == SITE_BULK_NONE)
        len = 0, hash = 0;
    snprintf(want, sizeof want, "\x01sheaf-%c:%zx:%016llx", summary ? 's' : 'b', len, (unsigned long long)hash);
    EQ_INT(v.kind, TPL_STRING);
    EQ_INT(v.len, strlen(want));
    EQ_STR(v.u.s, want);
}

TEST(body_and_summary)
{
    arena *a = arena_new();
    const size_t lens[] = { 0, 1, 9, 10, 15, 16, 255, 4096, 123456789, SITE_BULK_NONE - 1, SITE_BULK_NONE };
    const uint64_t hashes[] = { 0, 1, 0xf, 0x10, 0xdeadbeef, 0x0123456789abcdefu, UINT64_MAX };
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
        for (size_t k = 0; k < sizeof hashes / sizeof *hashes; k++) {
            expect_body(a, lens[i], hashes[k], false);
            expect_body(a, lens[i], hashes[k], true);
        }
    /* a page whose body links to other pages' labels has no stand-in */
    site_bulk b = { 0 };
    page p = { 0 };
    p.bulk = &b;
    p.md.nxlinks = 1;
    tpl_value v;
    OK(!site_page_lazy_value(NULL, a, &p, false, &v));
    arena_free(a);
}

TEST(toc)
{
    arena *a = arena_new();
    site s = { 0 };
    s.md_disk = (site_md_disk *)&s; /* only asked whether there is one */
    md_heading h[17];
    for (size_t i = 0; i < 17; i++)
        h[i] = (md_heading){ .level = 2, .id = "x", .title = "X" };
    page p = { 0 };
    p.md.headings = h;
    for (size_t n = 1; n <= 17; n += 16) { /* one hex digit, then two */
        p.md.nheadings = n;
        tpl_value v;
        OK(site_page_lazy_toc(&s, a, &p, &v));
        char count[8];
        snprintf(count, sizeof count, "%zx:", n);
        size_t pre = strlen("\x01sheaf-t:");
        EQ_INT(v.len, strlen(v.u.s));
        EQ_INT(v.len, pre + strlen(count) + 32);
        OK(!memcmp(v.u.s, "\x01sheaf-t:", pre));
        OK(!memcmp(v.u.s + pre, count, strlen(count)));
        bool hex = true;
        for (const char *c = v.u.s + pre + strlen(count); *c; c++)
            hex = hex && ((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'));
        OK(hex);
    }
    p.md.nheadings = 0; /* no headings: no stand-in */
    tpl_value v;
    OK(!site_page_lazy_toc(&s, a, &p, &v));
    arena_free(a);
}

int main(void)
{
    RUN(body_and_summary);
    RUN(toc);
    return harness_done();
}
