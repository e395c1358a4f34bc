/* Unit tests for util/ (buf, arena) and diag/. */
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>

#include "diag/diag.h"
#include "value/value.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/lines.h"
#include "util/text.h"
#include "util/url.h"
#include "util/xmlchar.h"

TEST(buf_basics)
{
    buf b = BUF_INIT;
    EQ_STR(b.data, "");
    buf_puts(&b, "hello");
    buf_putc(&b, ' ');
    buf_printf(&b, "%d-%s", 42, "x");
    EQ_STR(b.data, "hello 42-x");
    EQ_INT(b.len, 10);
    buf_truncate(&b, 5);
    EQ_STR(b.data, "hello");
    for (int i = 0; i < 1000; i++)
        buf_printf(&b, "%04d", i);
    EQ_INT(b.len, 5 + 4000);
    buf_reset(&b);
    EQ_STR(b.data, "");
    size_t n;
    char *p = buf_detach(&b, &n);
    EQ_INT(n, 0);
    EQ_STR(p, "");
    free(p);
    buf_release(&b);
}

TEST(arena_basics)
{
    arena *a = arena_new();
    char *s = arena_strdup(a, "abc");
    EQ_STR(s, "abc");
    void *big = arena_alloc(a, 1 << 20);
    OK(big != NULL);
    for (int i = 0; i < 10000; i++) {
        char *q = arena_printf(a, "k%d", i);
        OK(((uintptr_t)q & 15) == 0);
    }
    OK(arena_used(a) > (1 << 20));
    arena_reset(a);
    EQ_INT(arena_used(a), 0);
    EQ_STR(arena_strndup(a, "xyz", 2), "xy");
    /* only %s: concatenated without vsnprintf; anything else through it */
    EQ_STR(arena_printf(a, "%s%s", "/blog/", "posts/x/"), "/blog/posts/x/");
    EQ_STR(arena_printf(a, "<%s>-%s-", "", "é"), "<>-é-");
    EQ_STR(arena_printf(a, "plain"), "plain");
    EQ_STR(arena_printf(a, "%s%s%s%s%s%s%s%s", "1", "2", "3", "4", "5", "6", "7", "8"), "12345678");
    EQ_STR(arena_printf(a, "%s%s%s%s%s%s%s%s%s", "1", "2", "3", "4", "5", "6", "7", "8", "9"), "123456789");
    EQ_STR(arena_printf(a, "%s page %zu, 100%%", "list", (size_t)2), "list page 2, 100%");
    EQ_STR(arena_printf(a, "%.2s|%5s", "abc", "d"), "ab|    d");
    /* the quick path's %.*s and %zu, as printf writes them */
    EQ_STR(arena_printf(a, "%s%.*s%zu%s", "/tags/ml/", 5, "page/:num/", (size_t)12, "/"), "/tags/ml/page/12/");
    EQ_STR(arena_printf(a, "%zu-%zu.json", (size_t)0, SIZE_MAX), "0-18446744073709551615.json");
    EQ_STR(arena_printf(a, "[%.*s][%.*s][%.*s]", -1, "all", 9, "short", 0, "none"), "[all][short][]");
    EQ_STR(arena_printf(a, "%zu%zu%zu%zu%zu%zu%zu%zu", (size_t)1, (size_t)2, (size_t)3, (size_t)4, (size_t)5,
                        (size_t)6, (size_t)7, (size_t)8),
           "12345678");
    EQ_STR(arena_printf(a, "%s %zu %d", "mixed", (size_t)3, -4), "mixed 3 -4");
    arena_free(a);
    arena_free(NULL);
}

TEST(arena_shrink_gives_back_the_tail)
{
    arena *a = arena_new();
    char *p = arena_alloc(a, 100);
    size_t used = arena_used(a);
    arena_shrink(a, p, 100, 10);
    EQ_INT(arena_used(a), used - 96); /* 112 → 16: sizes round up to 16 */
    char *q = arena_alloc(a, 8);
    OK(q == p + 16);                  /* the next allocation reuses the tail */
    arena_shrink(a, p, 16, 1);        /* not the last allocation: kept */
    EQ_INT(arena_used(a), used - 96 + 16);
    arena_shrink(a, q, 8, 100);       /* growing is not shrinking: nothing */
    EQ_INT(arena_used(a), used - 96 + 16);
    char *big = arena_alloc(a, 1 << 20); /* a block of its own, behind the head */
    arena_shrink(a, big, 1 << 20, 1);
    OK(arena_alloc(a, 16) == q + 16);
    arena_free(a);
}

TEST(diag_sorting_and_format)
{
    diag_list *d = diag_list_new();
    diag_error(d, "b.md", 3, 1, "late");
    diag_note(d, "b.md", 0, 0, "note for late");
    diag_warning(d, "a.md", 10, 2, "warn %d", 7);
    diag_error(d, NULL, 0, 0, "global");
    EQ_INT(diag_error_count(d), 2);
    EQ_INT(diag_warning_count(d), 1);
    diag_sort(d);
    buf b = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++) {
        diag_format(diag_get(d, i), &b);
        buf_putc(&b, '\n');
    }
    EQ_STR(b.data, "sheaf: error: global\n"
                   "a.md:10:2: warning: warn 7\n"
                   "b.md:3:1: error: late\n"
                   "b.md: note: note for late\n");
    buf_release(&b);
    diag_list_free(d);
}

/* Issue 34, finding 16: one file's problems are capped when printed, as
 * GCC's -fmax-errors, with the count of the rest; a hidden error's notes
 * are hidden with it; other files keep their own count. */
TEST(line_index)
{
    lines l = { 0 };
    int line, col;
    lines_index(&l, "", 0);
    EQ_INT((int)l.n, 1);
    lines_place(&l, 0, &line, &col);
    EQ_INT(line, 1);
    EQ_INT(col, 1);
    lines_index(&l, "ab\n\ncd\n", 7); /* a second index replaces the first */
    EQ_INT((int)l.n, 4);
    const size_t offs[] = { 0, 2, 3, 4, 5, 6, 7, 100 };
    const int want[][2] = { { 1, 1 }, { 1, 3 }, { 2, 1 }, { 3, 1 }, { 3, 2 }, { 3, 3 }, { 4, 1 }, { 4, 94 } };
    for (size_t i = 0; i < sizeof offs / sizeof *offs; i++) {
        lines_place(&l, offs[i], &line, &col);
        EQ_INT(line, want[i][0]);
        EQ_INT(col, want[i][1]);
    }
    lines_release(&l);
    EQ_INT((int)l.n, 0);
    lines_release(&l); /* twice is harmless */
}

TEST(diag_print_caps_each_file)
{
    diag_list *d = diag_list_new();
    for (int i = 1; i <= 30; i++) {
        diag_error(d, "a.md", i, 1, "bad %d", i);
        diag_note(d, "a.md", i, 1, "note %d", i);
    }
    diag_warning(d, "a.md", 40, 1, "late");
    diag_error(d, "b.md", 1, 1, "other file");
    diag_sort(d);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    diag_print(d, f, false);
    fclose(f);
    buf want = BUF_INIT;
    for (int i = 1; i <= 20; i++)
        buf_printf(&want, "a.md:%d:1: error: bad %d\na.md:%d:1: note: note %d\n", i, i, i, i);
    buf_puts(&want, "a.md: note: 10 more errors and 1 more warning in this file not shown (the "
                    "first 20 are)\nb.md:1:1: error: other file\n");
    EQ_STR(text, want.data);
    EQ_INT(diag_error_count(d), 31);
    free(text);
    buf_release(&want);
    diag_list_free(d);
}

TEST(value_printing)
{
    arena *a = arena_new();
    buf b = BUF_INIT;
    double fs[] = { 1.0, 0.1, 1e20, 1e16, 1e15, 2.5e-5, 0.0001, 123.456, -0.0 };
    const char *want[] = { "1.0", "0.1", "1e+20", "1e+16", "1000000000000000.0",
                           "2.5e-05", "0.0001", "123.456", "-0.0" };
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
        buf_reset(&b);
        tpl_value_to_str(tpl_float(fs[i]), &b);
        EQ_STR(b.data, want[i]);
    }
    tpl_map *m = tpl_map_new(a, 2);
    tpl_list *l = tpl_list_new(a, 3);
    l->items[0] = tpl_int(1);
    l->items[1] = tpl_str("it's");
    l->items[2] = tpl_none();
    tpl_map_set_str(a, m, "k", tpl_list_value(l));
    tpl_map_set_str(a, m, "b", tpl_bool(true));
    buf_reset(&b);
    tpl_value_to_str(tpl_map_value(m), &b);
    EQ_STR(b.data, "{'k': [1, \"it's\", None], 'b': True}");
    for (int i = 0; i < 100; i++)
        tpl_map_set(a, m, tpl_str(arena_printf(a, "key%d", i)), tpl_int(i));
    tpl_map_seal(a, m);
    EQ_INT(tpl_map_get_cstr(m, "key57").u.i, 57);
    OK(tpl_map_get_cstr(m, "nope").kind == TPL_UNDEFINED);
    OK(tpl_value_equal(tpl_int(1), tpl_float(1.0)));
    OK(!tpl_value_truthy(tpl_str("")));
    buf_release(&b);
    arena_free(a);
}

TEST(url_rules)
{
    buf b = BUF_INIT;
    OK(url_percent_decode(&b, "a%20b%e5%88%86%2F", 17, true));
    EQ_STR(b.data, "a b\xe5\x88\x86/");
    buf_reset(&b);
    /* a broken escape: kept as written, or refused */
    OK(url_percent_decode(&b, "100%;%4g%4", 10, false));
    EQ_STR(b.data, "100%;%4g%4");
    buf_reset(&b);
    OK(!url_percent_decode(&b, "a%4", 3, true));
    EQ_STR(b.data, "a");
    buf_reset(&b);
    OK(url_percent_decode(&b, "x%00y", 5, true));
    EQ_INT(b.len, 3);
    /* an output path as a URL path: what a path cannot hold, escaped */
    buf_reset(&b);
    url_path_escape(&b, "machine learning/100%\"#?<>\\^`{|}\x7f\t/\xe5\x88\x86/", 39);
    EQ_STR(b.data, "machine%20learning/100%25%22%23%3F%3C%3E%5C%5E%60%7B%7C%7D%7F%09/\xe5\x88\x86/");
    /* every byte, against the rule written out: escaped or kept */
    for (int c = 1; c < 256; c++) {
        char one = (char)c, want[4];
        bool esc = c <= 0x20 || c == 0x7f || (c < 0x80 && strchr("\"#%<>?\\^`{|}", c));
        if (esc)
            snprintf(want, sizeof want, "%%%02X", c);
        else
            snprintf(want, sizeof want, "%c", c);
        buf_reset(&b);
        url_path_escape(&b, &one, 1);
        EQ_STR(b.data, want);
    }
    buf_release(&b);
    EQ_INT(url_origin_len("https://x.io/notes/"), 12);
    EQ_INT(url_origin_len("https://x.io"), 12);
    EQ_INT(url_origin_len("/notes/"), 0);
    EQ_INT(url_origin_len("notes"), 0);
}

/* xml_forbidden_strip (block scans, SSE2 or 8 bytes at a time) against a
 * byte-at-a-time rule, on strings of every length up to 40 that mix plain
 * bytes, allowed and forbidden controls, and the lead bytes 0xED / 0xEF
 * with the continuations that make them forbidden or not, at every place. */
static void strip_slowly(const char *s, size_t n, buf *out)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t k = 0;
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            k = 1;
        else if (c == 0xED && i + 2 < n && (unsigned char)s[i + 1] >= 0xA0 && (unsigned char)s[i + 1] <= 0xBF)
            k = 3;
        else if (c == 0xEF && i + 2 < n && (unsigned char)s[i + 1] == 0xBF &&
                 ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF))
            k = 3;
        if (k) {
            i += k;
        } else {
            buf_putc(out, s[i]);
            i++;
        }
    }
}

TEST(xml_forbidden_strip_matches_the_rule)
{
    static const unsigned char pieces[] = { 'a', ' ', '<', '\t', '\n', '\r', 0x01, 0x07, 0x1f, 0x7f,
                                            0x80, 0x9f, 0xA0, 0xBE, 0xBF, 0xE4, 0xED, 0xEF, 0xFF };
    unsigned seed = 7;
    for (size_t n = 0; n <= 40; n++)
        for (int round = 0; round < 200; round++) {
            char s[41];
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                s[i] = (char)pieces[(seed >> 16) % sizeof pieces];
            }
            buf want = BUF_INIT, got = BUF_INIT;
            strip_slowly(s, n, &want);
            buf_put(&got, s, n);
            size_t first = xml_forbidden_find(got.data, got.len);
            xml_forbidden_strip(&got);
            OK(got.len == want.len && !memcmp(got.data, want.data, want.len));
            OK((first == n) == (want.len == n));
            buf_release(&want);
            buf_release(&got);
        }
}

static const char *fixed(const char *s, size_t n, text_format f)
{
    static buf b = BUF_INIT;
    buf_reset(&b);
    text_format_fix(&b, s, n, f);
    return b.data;
}

TEST(text_format_fix_replaces_as_html5_does)
{
    /* one U+FFFD per maximal subpart of an invalid sequence */
    EQ_STR(fixed("a\xE2\x82" "b", 4, TEXT_PLAIN), "a\uFFFD" "b");
    EQ_STR(fixed("\xF0\x9F\x98", 3, TEXT_PLAIN), "\uFFFD");
    EQ_STR(fixed("\xC0\x80", 2, TEXT_PLAIN), "\uFFFD\uFFFD");
    EQ_STR(fixed("\xED\xA0\x80", 3, TEXT_JSON), "\uFFFD\uFFFD\uFFFD"); /* a surrogate */
    EQ_STR(fixed("x \xFE y \xFF", 7, TEXT_XML), "x \uFFFD y \uFFFD");
    /* what each format refuses of valid UTF-8 */
    EQ_STR(fixed("\x01\t\f\x7F\xC2\x85\xEF\xBF\xBE\xEF\xB7\x90", 12, TEXT_HTML),
           "\uFFFD\t\f\uFFFD\uFFFD\uFFFD\uFFFD");
    EQ_STR(fixed("\x01\t\f\x7F\xEF\xBF\xBE", 7, TEXT_XML), "\uFFFD\t\uFFFD\x7F\uFFFD");
    EQ_STR(fixed("\x01\x7F\xEF\xBF\xBE", 5, TEXT_JSON), "\uFFFD\x7F\xEF\xBF\xBE");
    EQ_STR(fixed("\x01\xEF\xBF\xBE", 4, TEXT_PLAIN), "\x01\xEF\xBF\xBE");
    /* long valid text: found by the 8-byte scan, kept */
    const char *ok = "<p>plain ASCII text, then 中文 and an emoji \xF0\x9F\x98\x80</p>\n";
    EQ_INT(text_format_bad(ok, strlen(ok), TEXT_HTML), strlen(ok));
    EQ_INT(text_format_bad("0123456789abcdef\xFE", 17, TEXT_HTML), 16);
    /* the 2- and 3-byte sequences taken without decoding them: whole ones
     * pass, a cut or broken one is found at its lead byte */
    EQ_INT(text_format_bad("\xC3\xA9\xDF\xBF\xE4\xB8\xAD\xEE\x80\x80\xE2\x80\x94", 13, TEXT_HTML), 13);
    EQ_INT(text_format_bad("ab\xC3", 3, TEXT_HTML), 2);
    EQ_INT(text_format_bad("ab\xC3\x41", 4, TEXT_HTML), 2);
    EQ_INT(text_format_bad("ab\xE4\xB8", 4, TEXT_XML), 2);
    EQ_INT(text_format_bad("ab\xE4\xB8\x41", 5, TEXT_XML), 2);
    EQ_INT(text_format_bad("ab\xE4\xC0\x80", 5, TEXT_JSON), 2);
    EQ_INT(text_format_bad("\xC3\xA9\xC2\x85", 4, TEXT_HTML), 2); /* U+0085: HTML refuses it */
    EQ_INT(text_format_bad("\xC3\xA9\xC2\x85", 4, TEXT_XML), 4);
    EQ_INT(text_format_of("posts/a/index.html"), TEXT_HTML);
    EQ_INT(text_format_of("atom.xml"), TEXT_XML);
    EQ_INT(text_format_of("search/index.json"), TEXT_JSON);
    EQ_INT(text_format_of("robots.txt"), TEXT_PLAIN);
    EQ_INT(text_format_of("a.json/x"), TEXT_PLAIN);
}

/* One byte in printable ASCII at every place of a text longer than three
 * 64-byte steps: found exactly where it is when the format refuses it,
 * passed over (to the end) when it does not — the blanks other than line
 * feeds stop the rough 64- and 32-byte tests but are not suspect. */
TEST(text_format_bad_at_every_place)
{
    static const struct {
        char c;
        bool bad;
    } bytes[] = { { '\x01', true }, { '\x7F', true }, { '\xFE', true }, { '\x1F', true },
                  { '\xFF', true }, { '\x80', true }, { '\0', true },   { ' ', false },
                  { '~', false },   { '\t', false },  { '\r', false },  { '\n', false },
                  { '\f', false } };
    char t[200]; /* 64-byte steps, 32-byte ones, 16, 8 and the rest */
    for (size_t b = 0; b < sizeof bytes / sizeof *bytes; b++)
        for (size_t at = 0; at < sizeof t; at++) {
            for (size_t i = 0; i < sizeof t; i++)
                t[i] = (char)('a' + i % 26);
            t[at] = bytes[b].c;
            size_t got = text_format_bad(t, sizeof t, TEXT_HTML);
            if (got != (bytes[b].bad ? at : sizeof t)) {
                FAILF("byte 0x%02x at %zu: found at %zu", (unsigned char)bytes[b].c, at, got);
                return;
            }
        }
}

static bool allowed(const char *u)
{
    char scheme[32];
    return url_allowed(u, strlen(u), scheme);
}

TEST(url_policy_for_urls_from_data)
{
    OK(allowed("https://x.io/a"));
    OK(allowed("HTTP://x.io/a"));
    OK(allowed("mailto:a@b.c"));
    OK(allowed("//x.io/a"));
    OK(allowed("/a/b:c"));
    OK(allowed("a/b.png"));
    OK(allowed("#frag"));
    OK(allowed(""));
    OK(allowed("1ab:c")); /* not a scheme: a browser reads a relative path */
    char scheme[32];
    const char *bad[] = { "javascript:alert(1)", " JaVaScRiPt:x", "java\tscr\nipt:x",
                          "\x01\x02javascript:x", "vbscript:x", "data:text/html,<b>",
                          "file:///etc/passwd", "ftp://x" };
    const char *schemes[] = { "javascript", "javascript", "javascript", "javascript",
                              "vbscript", "data", "file", "ftp" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        OK(!url_allowed(bad[i], strlen(bad[i]), scheme));
        EQ_STR(scheme, schemes[i]);
    }
}

int main(void)
{
    RUN(buf_basics);
    RUN(arena_basics);
    RUN(arena_shrink_gives_back_the_tail);
    RUN(diag_sorting_and_format);
    RUN(line_index);
    RUN(diag_print_caps_each_file);
    RUN(value_printing);
    RUN(url_rules);
    RUN(url_policy_for_urls_from_data);
    RUN(text_format_fix_replaces_as_html5_does);
    RUN(text_format_bad_at_every_place);
    RUN(xml_forbidden_strip_matches_the_rule);
    return harness_done();
}
