/* xmlchar: the one rule for what XML 1.0 forbids in a document, for every
 * place a value can reach atom.xml, sitemap.xml or any other XML output.
 *
 * XML 1.0's Char is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF]: the C0 control characters other than tab, newline
 * and carriage return (NUL and "bell" \x07 among them), the surrogates and
 * U+FFFE/U+FFFF cannot be written at all, not even as &#7;. Values read
 * from YAML are checked where they are read (an error at their line and
 * column); what still reaches an XML output (text from Markdown or from a
 * template) is dropped there. */
#ifndef SHEAF_XMLCHAR_H
#define SHEAF_XMLCHAR_H

#include <stddef.h>
#include <string.h>

#include "util/buf.h"
#include "util/scan.h"

/* The length of the forbidden character at s[i] (0 when s[i] starts an
 * allowed one, or a sequence that is not UTF-8: not this rule's concern). */
static inline size_t xml_forbidden_at(const char *s, size_t n, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20)
        return c == '\t' || c == '\n' || c == '\r' ? 0 : 1;
    if (c == 0xED && i + 2 < n && (unsigned char)s[i + 1] >= 0xA0 &&
        (unsigned char)s[i + 1] <= 0xBF)
        return 3; /* a surrogate, U+D800..U+DFFF */
    if (c == 0xEF && i + 2 < n && (unsigned char)s[i + 1] == 0xBF &&
        ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF))
        return 3; /* U+FFFE, U+FFFF */
    return 0;
}

/* The offset of the first forbidden character of s[0..n), or n. */
static inline size_t xml_forbidden_find(const char *s, size_t n)
{
    for (size_t i = scan_xml_suspect(s, 0, n); i < n; i = scan_xml_suspect(s, i + 1, n))
        if (xml_forbidden_at(s, n, i))
            return i;
    return n;
}

/* Drops every forbidden character of b, in place. */
static inline void xml_forbidden_strip(buf *b)
{
    size_t n = b->len, i = xml_forbidden_find(b->data, n), o = i;
    while (i < n) {
        size_t k = xml_forbidden_at(b->data, n, i);
        if (k) {
            i += k;
            continue;
        }
        size_t j = scan_xml_suspect(b->data, i + 1, n); /* kept up to there */
        memmove(b->data + o, b->data + i, j - i);
        o += j - i;
        i = j;
    }
    b->len = o;
    b->data[o] = '\0';
}

#endif
