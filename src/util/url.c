/* url: %-decoding and the origin of a base URL (see url.h). */
#include <string.h>

#include "util/url.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool url_percent_decode(buf *out, const char *s, size_t n, bool strict)
{
    for (size_t i = 0; i < n; i++) {
        int hi = -1, lo = -1;
        if (s[i] == '%' && i + 2 < n) {
            hi = hexval((unsigned char)s[i + 1]);
            lo = hi < 0 ? -1 : hexval((unsigned char)s[i + 2]);
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

size_t url_origin_len(const char *url)
{
    const char *scheme = strstr(url, "://");
    if (!scheme)
        return 0;
    const char *path = strchr(scheme + 3, '/');
    return path ? (size_t)(path - url) : strlen(url);
}
