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

void url_path_escape(buf *out, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c == 0x7f || strchr("\"#%<>?\\^`{|}", c)) {
            buf_putc(out, '%');
            buf_putc(out, hex[c >> 4]);
            buf_putc(out, hex[c & 15]);
        } else {
            buf_putc(out, (char)c);
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
