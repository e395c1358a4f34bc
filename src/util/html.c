/* html.c: character references, as Python's html.unescape reads them. */
#include "util/html.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

size_t html_unescape_ref(const char *s, size_t n, buf *b)
{
    if (n < 2)
        return 0;
    if (s[1] == '#') {
        size_t i = 2;
        bool hex = i < n && (s[i] == 'x' || s[i] == 'X');
        if (hex)
            i++;
        size_t st = i;
        int64_t cp = 0;
        while (i < n && (hex ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i]))) {
            int d = isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10;
            if (cp <= 0x110000)
                cp = cp * (hex ? 16 : 10) + d;
            i++;
        }
        if (i == st)
            return 0;
        if (i < n && s[i] == ';')
            i++;
        char tmp[8];
        buf_puts(b, html_entity_numeric(cp, tmp));
        return i;
    }
    size_t e = 1;
    while (e < n && e <= 32 && !strchr("\t\n\f <&#;", s[e]))
        e++;
    if (e == 1)
        return 0;
    if (e < n && s[e] == ';')
        e++;
    const char *name = s + 1;
    size_t len = e - 1;
    const char *rep = html_entity_named(name, len);
    if (rep) {
        buf_puts(b, rep);
        return e;
    }
    for (size_t x = len - 1; x > 1; x--) {
        rep = html_entity_named(name, x);
        if (rep) {
            buf_puts(b, rep);
            return 1 + x;
        }
    }
    return 0;
}

