/* Unit tests for util/text: slugs, word counts, UTF-8 validation. */
#include "harness.h"

#include <stdbool.h>
#include <stdint.h>

#include <utf8proc.h>

#include "site/links.h"
#include "util/buf.h"
#include "util/scan.h"
#include "util/text.h"
#include "util/words.h"

static const char *slug(buf *b, const char *s)
{
    buf_reset(b);
    text_slugify(b, s, strlen(s));
    return b->data;
}

static const char *slug_n(buf *b, const char *s, size_t n)
{
    buf_reset(b);
    text_slugify(b, s, n);
    return b->data;
}

TEST(slug_ascii)
{
    buf b = BUF_INIT;
    EQ_STR(slug(&b, "Hello, World!"), "hello-world");
    EQ_STR(slug(&b, "LLM Training"), "llm-training");
    EQ_STR(slug(&b, "In-network Aggregation"), "in-network-aggregation");
    EQ_STR(slug(&b, "Resource Fragmentation Problem"), "resource-fragmentation-problem");
    EQ_STR(slug(&b, "--a--"), "a");
    EQ_STR(slug(&b, "!!!"), "");
    EQ_STR(slug(&b, ""), "");
    EQ_STR(slug(&b, "C++ & Rust"), "c-rust");
    EQ_STR(slug(&b, "  x  "), "x");
    EQ_STR(slug(&b, "snake_case and a/b"), "snake-case-and-a-b");
    EQ_STR(slug(&b, "Version 2.0.1"), "version-2-0-1");
    EQ_STR(slug(&b, "ABCxyz019"), "abcxyz019");
    /* only s[0..n) is read */
    EQ_STR(slug_n(&b, "abc def", 3), "abc");
    buf_release(&b);
}

TEST(slug_appends)
{
    buf b = BUF_INIT;
    buf_puts(&b, "/tags/");
    text_slugify(&b, "!!Go Lang", 9);
    EQ_STR(b.data, "/tags/go-lang");
    /* a leading run of "other" gives no '-' even after existing text */
    buf_reset(&b);
    buf_puts(&b, "x");
    text_slugify(&b, "--", 2);
    EQ_STR(b.data, "x");
    buf_release(&b);
}

TEST(hugo_path)
{
    /* Hugo's urlize without its escaping (common/paths Sanitize, then lower case) */
    static const char *const cases[][2] = {
        { "c++", "c++" },
        { "node.js", "node.js" },
        { "Euler's number", "eulers-number" },
        { "ruby_profiler", "ruby_profiler" },
        { "Career / work", "career-/-work" },
        { "  lead  and - dash ", "lead-and-dash" },
        { "100%", "100" },
        { "a%2Fb", "a%2fb" },
        { "Übung 练习", "übung-练习" },
        { "C#", "c#" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        buf b = BUF_INIT;
        text_hugo_path(&b, cases[i][0], strlen(cases[i][0]), true);
        EQ_STR(b.data, cases[i][1]);
        buf_release(&b);
    }
    buf b = BUF_INIT;
    text_hugo_path(&b, "Keep Case", 9, false);
    EQ_STR(b.data, "Keep-Case");
    buf_release(&b);
}

TEST(slug_unicode)
{
    buf b = BUF_INIT;
    EQ_STR(slug(&b, "分布式训练 GPU"), "分布式训练-gpu");
    EQ_STR(slug(&b, "Ünïcode Straße"), "ünïcode-straße");
    EQ_STR(slug(&b, "ΑΒΓ Δέλτα"), "αβγ-δέλτα");
    EQ_STR(slug(&b, "Привет, Мир"), "привет-мир");
    EQ_STR(slug(&b, "日本語のテキスト"), "日本語のテキスト");
    EQ_STR(slug(&b, "한국어 제목"), "한국어-제목");
    EQ_STR(slug(&b, "हिन्दी"), "हिन्दी"); /* vowel signs and virama are marks */
    /* CJK punctuation and full-width forms are "other" */
    EQ_STR(slug(&b, "分布式，训练。"), "分布式-训练");
    EQ_STR(slug(&b, "「引用」"), "引用");
    /* decomposed e + U+0301 keeps the accent; a mark after a dash does not */
    EQ_STR(slug(&b, "Cafe\xcc\x81 !\xcc\x81x"), "cafe\xcc\x81-x");
    /* emoji, symbols, variation selectors are "other" */
    EQ_STR(slug(&b, "☀️ Hello World."), "hello-world");
    EQ_STR(slug(&b, "a → b ★ c"), "a-b-c");
    /* other numbers are kept: Roman numeral, superscript two, Arabic-Indic digits */
    EQ_STR(slug(&b, "Ⅻ x²"), "ⅻ-x²");
    EQ_STR(slug(&b, "٣٤"), "٣٤");
    /* no-break space and ideographic space separate */
    EQ_STR(slug(&b, "a\xc2\xa0" "b\xe3\x80\x80" "c"), "a-b-c");
    /* title case and Turkish dotted capital I use the simple mapping */
    EQ_STR(slug(&b, "ǅ"), "ǆ");
    buf_release(&b);
}

TEST(slug_invalid_bytes)
{
    buf b = BUF_INIT;
    EQ_STR(slug(&b, "a\xff" "b"), "a-b");
    EQ_STR(slug(&b, "\xc3"), "");                      /* truncated sequence */
    EQ_STR(slug(&b, "x\xe4\xb8"), "x");                /* truncated at the end */
    EQ_STR(slug(&b, "\xc0\xafpath"), "path");          /* overlong '/' */
    EQ_STR(slug(&b, "a\xed\xa0\x80z"), "a-z");         /* surrogate */
    EQ_STR(slug(&b, "a\xf4\x90\x80\x80z"), "a-z");     /* past U+10FFFF */
    EQ_STR(slug(&b, "\x80\x80\x80"), "");
    /* an embedded NUL is "other" too */
    EQ_STR(slug_n(&b, "a\0b", 3), "a-b");
    buf_release(&b);
}

static size_t wc(const char *s) { return text_word_count(s, strlen(s)); }

TEST(word_counts)
{
    EQ_INT(wc(""), 0);
    EQ_INT(wc("   \n\t "), 0);
    EQ_INT(wc("hello world"), 2);
    EQ_INT(wc("  hello   world  "), 2);
    EQ_INT(wc("one\ntwo\tthree\r\nfour"), 4);
    EQ_INT(wc("分布式训练"), 5);
    EQ_INT(wc("mixed 中文 text"), 4);
    EQ_INT(wc("GPU训练"), 3);
    EQ_INT(wc("训练GPU集群"), 5);
    EQ_INT(wc("分布式，训练。"), 5);     /* CJK punctuation is no word */
    EQ_INT(wc("中文, English"), 3);     /* nor is a lone ASCII comma */
    EQ_INT(wc("a — b | c"), 3);
    EQ_INT(wc("don't stop-me-now"), 2);
    EQ_INT(wc("ひらがな カタカナ"), 8);
    EQ_INT(wc("한국어 제목"), 5);
    EQ_INT(wc("𠀀𠀁"), 2);                /* Han extension B */
    EQ_INT(wc("々〇"), 2);
    EQ_INT(wc("ｶﾀｶﾅ"), 4);              /* half-width Katakana */
    EQ_INT(wc("ＧＰＵ"), 1);            /* full-width Latin is one word */
    EQ_INT(wc("Привет мир"), 2);
    EQ_INT(wc("a\xc2\xa0" "b"), 2);      /* no-break space */
    EQ_INT(wc("a\xe3\x80\x80" "b"), 2);  /* ideographic space */
    EQ_INT(wc("Cafe\xcc\x81 ok"), 2);
    EQ_INT(wc("\xff\xfe abc"), 1);
    EQ_INT(wc("x\xffy"), 1);
    EQ_INT(text_word_count("one two three", 7), 2);
}

/* ASCII: whitespace-separated runs with a letter or digit — the rule said
 * plainly, against the counter's 8-bytes-a-step path on random text. */
static size_t ref_ascii_words(const char *s, size_t n)
{
    size_t words = 0;
    bool counted = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || (c >= 9 && c <= 13))
            counted = false;
        else if (((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9')) {
            words += !counted;
            counted = true;
        }
    }
    return words;
}

TEST(word_counts_ascii_blocks)
{
    static const char alphabet[] = "ab Z9 \t\n-.'@[`{/:\x01\x7f";
    uint32_t r = 12345;
    char text[80];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 70);
        for (size_t i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            text[i] = alphabet[(r >> 16) % (sizeof alphabet - 1)];
        }
        if (text_word_count(text, n) != ref_ascii_words(text, n))
            FAILF("'%.*s' (%zu bytes): %zu words, want %zu", (int)n, text, n,
                  text_word_count(text, n), ref_ascii_words(text, n));
    }
    /* running text: mostly letters and single spaces, now and then
     * punctuation (blocks with no letter right after it are counted
     * without the prefix fill, the others with it) */
    static const char prose[] = "abcdefghij klmnopqrst ABC 0123 abcdefgh ijklmn , . ' - ( ) \n";
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 80);
        for (size_t i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            text[i] = prose[(r >> 16) % (sizeof prose - 1)];
        }
        if (text_word_count(text, n) != ref_ascii_words(text, n))
            FAILF("'%.*s' (%zu bytes): %zu words, want %zu", (int)n, text, n,
                  text_word_count(text, n), ref_ascii_words(text, n));
    }
    /* a block boundary inside a run, then non-ASCII after a block */
    EQ_INT(wc("abcdefg-hijk lmnop"), 2);
    EQ_INT(wc("abcdefgh\xc3\xa9 x"), 2);
    EQ_INT(wc("        abcdefgh"), 1);
}

TEST(word_counts_cjk)
{
    size_t cjk = 99;
    EQ_INT(text_word_count_cjk("", 0, &cjk), 0);
    EQ_INT(cjk, 0);
    const char *s = "GPU训练 and 梯度压缩, ok";
    EQ_INT(text_word_count_cjk(s, strlen(s), &cjk), 9);
    EQ_INT(cjk, 6);
    EQ_INT(text_word_count_cjk("one two", 7, NULL), 2);
}

TEST(utf8_check)
{
    EQ_INT(text_utf8_check("", 0), -1);
    EQ_INT(text_utf8_check("plain ascii", 11), -1);
    const char *ok = "分布式训练 Ünïcode ☀️ 𠀀";
    OK(text_utf8_check(ok, strlen(ok)) == (size_t)-1);
    EQ_INT(text_utf8_check("ab\xff", 3), 2);
    EQ_INT(text_utf8_check("ab\xc3", 3), 2);              /* truncated */
    EQ_INT(text_utf8_check("\xc3\xa9\xc3(", 4), 2);       /* bad continuation */
    EQ_INT(text_utf8_check("\xc0\x80", 2), 0);            /* overlong NUL */
    EQ_INT(text_utf8_check("\xe0\x80\xaf", 3), 0);        /* overlong '/' */
    EQ_INT(text_utf8_check("x\xed\xa0\x80", 4), 1);       /* surrogate */
    EQ_INT(text_utf8_check("\xf4\x8f\xbf\xbf", 4), -1);   /* U+10FFFF */
    EQ_INT(text_utf8_check("\xf4\x90\x80\x80", 4), 0);    /* past it */
    EQ_INT(text_utf8_check("\xf8\x88\x80\x80\x80", 5), 0);
    EQ_INT(text_utf8_check("a\0b", 3), -1);               /* NUL is valid */
    /* a sequence cut by n is invalid even if the bytes go on */
    EQ_INT(text_utf8_check("\xe4\xb8\xad", 2), 0);
}

/* The search keys of texts, written out as "key/where key/where …" in the
 * order first met. */
static const char *keys_of(words_set *w, buf *b)
{
    buf packed = BUF_INIT;
    words_set_take(w, &packed);
    buf_reset(b);
    size_t at = 0, n;
    const char *k;
    int where;
    while ((n = words_next(packed.data, packed.len, &at, &k, &where)))
        buf_printf(b, "%s%.*s/%d", b->len ? " " : "", (int)n, k, where);
    buf_release(&packed);
    return b->data;
}

TEST(search_keys)
{
    words_set *w = words_set_new();
    buf b = BUF_INIT;
    words_set_add(w, "The Gradient, the GRADIENT's end", 32, 0);
    EQ_STR(keys_of(w, &b), "the/0 gradient/0 s/0 end/0");
    /* each key once per take, at its best place; the set is empty after */
    words_set_add(w, "sgd momentum", 12, 0);
    words_set_add(w, "Momentum", 8, 2);
    words_set_add(w, "sgd", 3, 1);
    EQ_STR(keys_of(w, &b), "sgd/1 momentum/2");
    EQ_STR(keys_of(w, &b), "");
    /* CJK: overlapping bigrams; a lone character as itself; words around */
    words_set_add(w, "梯度下降 and 图, x86梯度", strlen("梯度下降 and 图, x86梯度"), 1);
    EQ_STR(keys_of(w, &b), "梯度/1 度下/1 下降/1 and/1 图/1 x86/1");
    /* accents lower-cased; a word cut after WORDS_KEY_MAX bytes */
    const char *long_word = "École supercalifragilisticexpialidocious-and-more";
    words_set_add(w, long_word, strlen(long_word), 0);
    EQ_STR(keys_of(w, &b), "école/0 supercalifragilisticexpialidocio/0 and/0 more/0");
    /* runs read 8 bytes a step: a word across blocks, cut in a block, at the
     * text's end, and ASCII around a non-ASCII letter */
    const char *runs = "ABCDEFGHij KLMNOPQRSTUVWXYZ0123456789abcdefghijklm x12345678 Cafe\xcc\x81ine42X end";
    words_set_add(w, runs, strlen(runs), 0);
    EQ_STR(keys_of(w, &b), "abcdefghij/0 klmnopqrstuvwxyz0123456789abcdef/0 x12345678/0 "
                           "cafe\xcc\x81ine42x/0 end/0");
    words_set_add(w, "12345678", 8, 0);
    words_set_add(w, "1234567", 7, 0);
    words_set_add(w, "a-b_c", 5, 0);
    EQ_STR(keys_of(w, &b), "12345678/0 1234567/0 a/0 b/0 c/0");
    /* invalid UTF-8 separates words */
    words_set_add(w, "ab\xff" "cd", 5, 0);
    EQ_STR(keys_of(w, &b), "ab/0 cd/0");
    /* many keys: the table grows and keeps them all, once */
    char word[8];
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 5000; i++) {
            int n = snprintf(word, sizeof word, "w%d", i);
            words_set_add(w, word, (size_t)n, r);
        }
    keys_of(w, &b);
    size_t spaces = 0;
    for (size_t i = 0; i < b.len; i++)
        spaces += b.data[i] == ' ';
    EQ_INT(spaces, 4999);
    OK(strstr(b.data, "w4999/1") != NULL);
    buf_release(&b);
    words_set_free(w);
}

/* The search keys of a text a character at a time, through
 * text_next_char alone, packed as words_set_take packs them: what the
 * block and run scans of words_set_add must give. */
static void keys_slow(const char *s, size_t n, int where, buf *keys)
{
    char word[WORDS_KEY_MAX + 8];
    size_t wl = 0;
    int32_t prev = -1;
    bool single = false;
    char k[16];
#define KEY(p, l)                                                                                \
    do {                                                                                         \
        size_t at_ = 0, kn_;                                                                     \
        const char *kk_;                                                                         \
        int kw_;                                                                                 \
        bool seen_ = false;                                                                      \
        while ((kn_ = words_next(keys->data, keys->len, &at_, &kk_, &kw_)))                      \
            if (kn_ == (l) && !memcmp(kk_, (p), (l))) {                                          \
                seen_ = true;                                                                    \
                if (kw_ < where)                                                                 \
                    ((char *)kk_)[-1] = (char)where;                                             \
            }                                                                                    \
        if (!seen_) {                                                                            \
            buf_putc(keys, (char)(l));                                                           \
            buf_putc(keys, (char)where);                                                         \
            buf_put(keys, (p), (l));                                                             \
        }                                                                                        \
    } while (0)
    for (size_t i = 0; i <= n;) {
        int32_t cp = -1;
        int cls = TEXT_CHAR_OTHER;
        size_t l = i < n ? text_next_char(s, n, i, &cp, &cls) : 1;
        if (cls == TEXT_CHAR_WORD) {
            if (prev >= 0 && single)
                KEY(k, (size_t)utf8proc_encode_char(prev, (utf8proc_uint8_t *)k));
            prev = -1;
            char c[4];
            size_t cl = (size_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)c);
            if (wl < WORDS_KEY_MAX) {
                memcpy(word + wl, c, cl);
                wl += cl;
            }
        } else {
            if (wl)
                KEY(word, wl);
            wl = 0;
            if (cls == TEXT_CHAR_CJK) {
                if (prev >= 0) {
                    size_t kl = (size_t)utf8proc_encode_char(prev, (utf8proc_uint8_t *)k);
                    kl += (size_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)k + kl);
                    KEY(k, kl);
                    single = false;
                } else {
                    single = true;
                }
                prev = cp;
            } else {
                if (prev >= 0 && single)
                    KEY(k, (size_t)utf8proc_encode_char(prev, (utf8proc_uint8_t *)k));
                prev = -1;
            }
        }
        i += l;
    }
#undef KEY
}

/* words_set_add against keys_slow on random texts: runs of ASCII letters
 * and digits of every length around the blocks' edges, separators, accented
 * and CJK letters, invalid bytes. */
TEST(search_keys_random)
{
    static const char *const parts[] = { "a", "Z", "7", "xy", "Word", "ABCDEFG", "abcdefgh",
                                         "abcdefghi", "0123456789abcdef", " ", "  ", ",", ". ",
                                         "-", "\n", "\xc3\xa9", "\xc3\x89", "\xe6\xa2\xaf",
                                         "\xe5\xba\xa6", "\xff", "\xcc\x81", "x\xc3\xa9" };
    words_set *w = words_set_new();
    buf got = BUF_INIT, want = BUF_INIT, text = BUF_INIT;
    uint32_t seed = 12345;
    int bad = 0;
    for (int round = 0; round < 3000 && bad < 3; round++) {
        buf_reset(&text);
        int nparts = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 40;
        for (int i = 0; i < nparts; i++) {
            seed = seed * 1103515245u + 12345u;
            buf_puts(&text, parts[(seed >> 16) % (sizeof parts / sizeof *parts)]);
        }
        int where = round % 3;
        buf_reset(&got);
        buf_reset(&want);
        words_set_add(w, text.data, text.len, where);
        words_set_take(w, &got);
        keys_slow(text.data, text.len, where, &want);
        if (got.len != want.len || memcmp(got.data, want.data, got.len)) {
            bad++;
            FAILF("keys of \"%s\" differ from the slow rule's", text.data);
        }
    }
    buf_release(&got);
    buf_release(&want);
    buf_release(&text);
    words_set_free(w);
}

/* The texts that make the most bytes of keys a byte of text (the room
 * words_set_add makes before it reads): distinct CJK bigrams (8 bytes of
 * key for 3 of text), one-letter words, and a capital whose lower case is
 * longer in UTF-8 (U+023A, 2 bytes, to U+2C65, 3 bytes) — each against
 * keys_slow, on a set that starts empty. */
TEST(search_keys_room)
{
    buf text = BUF_INIT, got = BUF_INIT, want = BUF_INIT;
    for (int kind = 0; kind < 3; kind++) {
        buf_reset(&text);
        for (int i = 0; i < 3000; i++) {
            char c[8];
            if (kind == 0) {
                buf_put(&text, c, (size_t)utf8proc_encode_char(0x4E00 + i, (utf8proc_uint8_t *)c));
            } else if (kind == 1) {
                buf_putc(&text, (char)('a' + i % 26));
                buf_putc(&text, ' ');
            } else {
                buf_puts(&text, "\xc8\xba");
                if (i % 17 == 16)
                    buf_putc(&text, (char)('a' + i / 17 % 26));
            }
        }
        words_set *w = words_set_new();
        buf_reset(&got);
        buf_reset(&want);
        words_set_add(w, text.data, text.len, 1);
        words_set_take(w, &got);
        keys_slow(text.data, text.len, 1, &want);
        OK(got.len == want.len && !memcmp(got.data, want.data, got.len));
        words_set_free(w);
    }
    buf_release(&text);
    buf_release(&got);
    buf_release(&want);
}

/* The snippets' text, a byte at a time: each run of blanks one space,
 * none at either end, none before , . ; : ! ? ) — what the block copy of
 * site_search_text must give. */
static void search_text_slow(const char *t, size_t n, buf *out)
{
    size_t start = out->len;
    bool space = false;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f') {
            space = true;
            continue;
        }
        if (space && out->len > start && !(c && strchr(",.;:!?)", c)))
            buf_putc(out, ' ');
        space = false;
        buf_putc(out, c);
    }
}

TEST(search_text)
{
    buf b = BUF_INIT;
    buf_puts(&b, "x");
    site_search_text("  two  words\n\nand a formula , then ) here. ", 43, &b);
    EQ_STR(b.data, "xtwo words and a formula, then) here.");
    buf_reset(&b);
    /* blocks of 16: a blank at a block's end, two blanks across blocks, a
     * joining byte first in a block, CJK, a NUL */
    static const char t[] = "abcdefghijklmno pqrstuvwxyzabcd\n\nefghijklmnopqrs ,uvwxyz 中文\t中文 a\0b ";
    site_search_text(t, sizeof t - 1, &b);
    OK(b.len == 72 && !memcmp(b.data, "abcdefghijklmno pqrstuvwxyzabcd efghijklmnopqrs,uvwxyz 中文 中文 a\0b", 72));
    buf_reset(&b);
    /* against the byte-at-a-time rule: texts of these bytes, every length */
    static const char bytes[] = { 'a', 'b', ' ', ' ', '\n', '\t', '\r', '\f', ',', ')', '.', '?',
                                  (char)0xe4, (char)0xb8, '\0', 'Z' };
    buf want = BUF_INIT;
    char text[80];
    uint32_t seed = 7;
    for (int round = 0; round < 4000; round++) {
        size_t n = (size_t)round % 80;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 16;
            /* mostly letters, so blocks take the fast path too */
            text[i] = r % 3 ? (char)('a' + r % 26) : bytes[(r >> 5) % sizeof bytes];
        }
        buf_reset(&b);
        buf_reset(&want);
        buf_puts(&b, round % 2 ? "" : "p");
        buf_puts(&want, round % 2 ? "" : "p");
        site_search_text(text, n, &b);
        search_text_slow(text, n, &want);
        if (b.len != want.len || memcmp(b.data, want.data, b.len)) {
            OK(!"site_search_text differs from the byte rule");
            break;
        }
        OK(b.data[b.len] == '\0');
    }
    buf_release(&want);
    buf_release(&b);
}

/* The JSON scan stops at the first control byte, quote, backslash or '<',
 * at any place in a block; bytes >= 0x80 are not stops. */
TEST(json_scan)
{
    char s[40];
    for (size_t at = 0; at < 40; at++) {
        static const char stops[] = { '\0', '\x1f', '\n', '"', '\\', '<' };
        for (size_t k = 0; k < sizeof stops; k++) {
            for (size_t i = 0; i < 40; i++)
                s[i] = i % 3 ? (char)0xe4 : (char)('a' + i % 26);
            s[at] = stops[k];
            EQ_INT((int)scan_json_special(s, 0, 40), (int)at);
            EQ_INT((int)scan_json_special(s, at / 2, at), (int)at); /* none before n */
        }
    }
    memset(s, 0x7f, sizeof s); /* DEL and '>' are written as they are */
    s[20] = '>';
    EQ_INT((int)scan_json_special(s, 3, 40), 40);
}

/* One "did you mean" for every name sheaf suggests (commands, flags,
 * keys, labels, anchors, paths). */
TEST(did_you_mean)
{
    EQ_INT((int)text_edit_distance("build", "build"), 0);
    EQ_INT((int)text_edit_distance("biuld", "build"), 1); /* a swap is one edit */
    EQ_INT((int)text_edit_distance("", "abc"), 3);
    EQ_INT((int)text_edit_distance("kitten", "sitting"), 3);
    EQ_INT((int)text_edit_distance("ca", "abc"), 3); /* no swap of a swapped pair */
    char big[202];
    memset(big, 'a', 201);
    big[201] = 0;
    OK(text_edit_distance(big, "a") == (size_t)-1);
    static const char *const commands[] = { "build", "serve", "new", "check", "deploy" };
    text_near n = TEXT_NEAR("biuld");
    for (size_t i = 0; i < 5; i++)
        text_near_try(&n, commands[i]);
    EQ_STR(text_near_best(&n), "build");
    n = TEXT_NEAR("nwe"); /* short: one edit at most */
    for (size_t i = 0; i < 5; i++)
        text_near_try(&n, commands[i]);
    EQ_STR(text_near_best(&n), "new");
    n = TEXT_NEAR("fix");
    for (size_t i = 0; i < 5; i++)
        text_near_try(&n, commands[i]);
    OK(text_near_best(&n) == NULL);
    n = TEXT_NEAR("vaswani2017attentin"); /* longer: a third of its length */
    text_near_try(&n, "vaswani2017attention");
    text_near_try(&n, "vaswani2017");
    EQ_STR(text_near_best(&n), "vaswani2017attention");
    n = TEXT_NEAR("x");
    OK(text_near_best(&n) == NULL); /* nothing tried */
}

int main(void)
{
    RUN(did_you_mean);
    RUN(slug_ascii);
    RUN(slug_appends);
    RUN(hugo_path);
    RUN(slug_unicode);
    RUN(slug_invalid_bytes);
    RUN(word_counts);
    RUN(word_counts_ascii_blocks);
    RUN(word_counts_cjk);
    RUN(utf8_check);
    RUN(search_keys);
    RUN(search_keys_random);
    RUN(search_keys_room);
    RUN(search_text);
    RUN(json_scan);
    return harness_done();
}
