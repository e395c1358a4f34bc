/* url: %-decoding and the escaping of paths, the origin of a base URL,
 * the URL policy (see url.h). */
#include <string.h>

#include "util/scan.h"
#include "util/url.h"

bool url_percent_decode(buf *out, const char *s, size_t n, bool strict)
{
    for (size_t i = 0; i < n; i++) {
        int hi = -1, lo = -1;
        if (s[i] == '%' && i + 2 < n) {
            hi = scan_hex_digit((unsigned char)s[i + 1]);
            lo = hi < 0 ? -1 : scan_hex_digit((unsigned char)s[i + 2]);
        }
        if (lo >= 0) {
            buf_putc(out, (char)(hi * 16 + lo));
            i += 2;
        } else if (s[i] == '%' && strict) {
            return false;
        } else {
            buf_putc(out, s[i]);
        }
    }
    return true;
}

/* The ASCII bytes url_path_escape writes as %XX (C0 controls, space and
 * DEL by range). */
static const bool path_special[128] = { ['"'] = 1, ['#'] = 1, ['%'] = 1, ['<'] = 1, ['>'] = 1, ['?'] = 1,
                                        ['\\'] = 1, ['^'] = 1, ['`'] = 1, ['{'] = 1, ['|'] = 1, ['}'] = 1 };

static inline bool path_escaped(unsigned char c)
{
    return c <= 0x20 || c == 0x7f || (c < 0x80 && path_special[c]);
}

void url_path_escape(buf *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i = 0;
    while (i < n) {
        size_t from = i; /* a run written as it is, in one piece */
        while (i < n && !path_escaped((unsigned char)s[i]))
            i++;
        buf_put(out, s + from, i - from);
        if (i < n) {
            unsigned char c = (unsigned char)s[i++];
            char e[3] = { '%', hex[c >> 4], hex[c & 15] };
            buf_put(out, e, 3);
        }
    }
}

size_t url_origin_len(const char *url)
{
    const char *scheme = strstr(url, "://");
    if (!scheme)
        return 0;
    const char *path = strchr(scheme + 3, '/');
    return path ? (size_t)(path - url) : strlen(url);
}

static bool alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

bool url_allowed(const char *u, size_t n, char scheme[32])
{
    static const char *const ok[] = { "http", "https", "mailto" };
    size_t i = 0, k = 0;
    while (i < n && (unsigned char)u[i] <= 0x20)
        i++;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)u[i];
        if (c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c == ':')
            break;
        if (!(alpha(c) || (k && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))))
            return true; /* no scheme: relative, or a #fragment */
        if (k < 31)
            scheme[k++] = (char)(alpha(c) ? c | 0x20 : c);
    }
    scheme[k] = '\0';
    if (i == n || !k)
        return true; /* no ':' after the letters: a relative path */
    for (size_t j = 0; j < sizeof ok / sizeof *ok; j++)
        if (!strcmp(scheme, ok[j]))
            return true;
    return false;
}
