/* strings: the UTF-8 and Python string helpers of the built-ins that are
 * not inline in builtins.h — Python's case mapping (lower, upper, title,
 * the final sigma) and word characters. */
#include <utf8proc.h>

#include "tpl/builtins.h"

void put_cp(buf *b, int32_t cp)
{
    utf8proc_uint8_t tmp[4];
    utf8proc_ssize_t k = utf8proc_encode_char(cp, tmp);
    buf_put(b, tmp, (size_t)k);
}

bool is_word_cp(int32_t cp)
{
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
               cp == '_';
    /* the letters of running CJK text without a table look-up: the CJK
     * ideographs assigned since Unicode 10 and the Hangul syllables (Lo) */
    if ((cp >= 0x4E00 && cp <= 0x9FEA) || (cp >= 0xAC00 && cp <= 0xD7A3))
        return true;
    utf8proc_category_t c = utf8proc_category(cp);
    return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
           (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

/* One character in Python's case: full mappings (ß → SS) from casemap.c. */
void put_case(buf *b, int32_t cp, int mode)
{
    if (cp < 0x80) {
        if (mode == CASE_LOWER)
            tpl_putc(b, (char)(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
        else
            tpl_putc(b, (char)(cp >= 'a' && cp <= 'z' ? cp - 32 : cp));
        return;
    }
    const char *sp = tpl_case_special(cp, mode);
    if (sp) {
        buf_puts(b, sp);
        return;
    }
    put_cp(b, mode == CASE_LOWER ? utf8proc_tolower(cp)
              : mode == CASE_UPPER ? utf8proc_toupper(cp) : utf8proc_totitle(cp));
}

/* Unicode's Cased and Case_Ignorable properties, near enough. */
bool is_cased_cp(int32_t cp)
{
    utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT ||
           utf8proc_tolower(cp) != cp || utf8proc_toupper(cp) != cp;
}

static bool is_case_ignorable_cp(int32_t cp)
{
    switch (cp) {
    case '\'': case '.': case ':': case '^': case '`': case 0xB7: case 0x387: case 0x5F4:
    case 0x2018: case 0x2019: case 0x2024: case 0x2027: case 0xFE13: case 0xFE52: case 0xFE55:
    case 0xFF07: case 0xFF0E: case 0xFF1A:
        return true;
    }
    utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
           c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK;
}

/* Python's lower() of U+03A3 at s[i]: ς at the end of a word, else σ. */
bool final_sigma(const char *s, size_t n, size_t i, size_t k)
{
    bool before = false;
    for (size_t j = i; j > 0;) {
        size_t b = j - 1;
        while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
            b--;
        int32_t cp;
        next_cp(s, n, b, &cp);
        j = b;
        if (is_case_ignorable_cp(cp))
            continue;
        before = is_cased_cp(cp);
        break;
    }
    if (!before)
        return false;
    for (size_t j = i + k; j < n;) {
        int32_t cp;
        j += next_cp(s, n, j, &cp);
        if (is_case_ignorable_cp(cp))
            continue;
        return !is_cased_cp(cp);
    }
    return true;
}

/* Maps s[from..n) (s[0..from) is context for the final sigma). */
void map_case_at(buf *b, const char *s, size_t n, size_t from, int mode)
{
    for (size_t i = from; i < n;) {
        if ((unsigned char)s[i] < 0x80) { /* a run of ASCII */
            size_t e = i;
            while (e < n && (unsigned char)s[e] < 0x80)
                e++;
            buf_grow(b, e - i);
            char *d = b->data + b->len;
            for (size_t k = i; k < e; k++) {
                char c = s[k];
                if (mode == CASE_LOWER)
                    d[k - i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
                else
                    d[k - i] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
            }
            b->len += e - i;
            b->data[b->len] = '\0';
            i = e;
            continue;
        }
        int32_t cp;
        size_t k = next_cp(s, n, i, &cp);
        if (k == 1 && (unsigned char)s[i] >= 0x80)
            tpl_putc(b, (char)s[i]);
        else if (cp == 0x3A3 && mode == CASE_LOWER)
            buf_puts(b, final_sigma(s, n, i, k) ? "\xcf\x82" : "\xcf\x83");
        else
            put_case(b, cp, mode);
        i += k;
    }
}
