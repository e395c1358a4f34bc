/* outpath: the rule for output paths (see outpath.h). */
#include <stdbool.h>
#include <string.h>

#include "util/outpath.h"
#include "util/text.h"

const char *outpath_problem(const char *p, size_t n)
{
    if (n == 0)
        return "is empty";
    if (p[0] == '/')
        return "is absolute (it starts with '/')";
    if (n > OUTPATH_MAX)
        return "is longer than 3072 bytes";
    size_t part = 0; /* where the current name starts */
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = i < n ? (unsigned char)p[i] : '/';
        if (c == 0)
            return "holds a NUL byte";
        if (c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < n && (unsigned char)p[i + 1] >= 0x80 &&
                                      (unsigned char)p[i + 1] <= 0x9f))
            return "holds a control character";
        if (c != '/')
            continue;
        size_t len = i - part;
        if (len == 0)
            return i == n ? "ends in '/' (a folder, not a file)" : "has an empty part ('//')";
        if (len == 1 && p[part] == '.')
            return "has a '.' part";
        if (len == 2 && p[part] == '.' && p[part + 1] == '.')
            return "has a '..' part";
        if (len > OUTPATH_NAME_MAX)
            return "has a part longer than 255 bytes";
        /* the output folder's own: the manifest (util/manifest.h), which
         * also names what a build may remove */
        if (part == 0 && len == 15 && !memcmp(p, ".sheaf-manifest", 15))
            return "is where sheaf keeps the output folder's manifest (.sheaf-manifest)";
        part = i + 1;
    }
    return NULL;
}

void outpath_quote(buf *out, const char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)p[i];
        size_t len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        bool ok = len <= n - i && (len == 1 ? c >= 0x20 && c != 0x7f
                                            : text_utf8_check(p + i, len) == (size_t)-1 &&
                                                  !(c == 0xc2 && (unsigned char)p[i + 1] <= 0x9f));
        if (!ok) {
            buf_printf(out, "\\x%02x", c);
            i++;
        } else if (c == '\\') {
            buf_puts(out, "\\\\");
            i++;
        } else {
            buf_put(out, p + i, len);
            i += len;
        }
    }
}

bool outpath_names_file(const char *p, size_t n)
{
    if (!n || p[n - 1] == '/')
        return false;
    size_t last = n;
    while (last > 0 && p[last - 1] != '/')
        last--;
    const char *dot = memchr(p + last + 1, '.', n - last - (n > last));
    return n > last + 1 && dot != NULL && (size_t)(dot - p) + 1 < n;
}

void outpath_file(buf *out, const char *p, size_t n)
{
    buf_put(out, p, n);
    if (outpath_names_file(p, n))
        return;
    if (n && p[n - 1] != '/')
        buf_putc(out, '/');
    buf_puts(out, "index.html");
}
