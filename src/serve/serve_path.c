/* serve_path: what the preview server decides for each request before it
 * touches a socket — which file a URL names (and what it must refuse), its
 * Content-Type and ETag, and where the live-reload script goes in HTML. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/serve.h"
#include "util/fs.h"
#include "util/url.h"

static bool has_dotdot_segment(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && s[i] == '/')
            i++;
        size_t j = i;
        while (j < len && s[j] != '/')
            j++;
        if (j - i == 2 && s[i] == '.' && s[i + 1] == '.')
            return true;
        i = j;
    }
    return false;
}

static bool inside(const char *root, const char *p)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return p[0] == '/';
    return !strncmp(root, p, n) && (p[n] == '/' || p[n] == '\0');
}

/* realpath(path) inside root and a regular file or folder? */
static serve_status check_real(const char *root, const char *path, buf *real, struct stat *st)
{
    char *rp = realpath(path, NULL);
    if (!rp)
        return errno == EACCES ? SERVE_FORBIDDEN : SERVE_NOT_FOUND;
    serve_status r = SERVE_FILE;
    if (!inside(root, rp))
        r = SERVE_FORBIDDEN;
    else if (stat(rp, st) != 0)
        r = SERVE_NOT_FOUND;
    else if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
        r = SERVE_FORBIDDEN;
    buf_reset(real);
    buf_puts(real, rp);
    free(rp);
    return r;
}

serve_status serve_resolve(const char *root_real, const char *raw_path, buf *file,
                           buf *location)
{
    buf_reset(file);
    buf_reset(location);
    if (raw_path[0] != '/')
        return SERVE_BAD_REQUEST;
    for (const char *p = raw_path; (p = strchr(p, '%')) != NULL; p++)
        if (p[1] == '2' && (p[2] == 'f' || p[2] == 'F'))
            return SERVE_FORBIDDEN;
        else if (p[1] == '5' && (p[2] == 'c' || p[2] == 'C'))
            return SERVE_FORBIDDEN;
    buf dec = BUF_INIT;
    serve_status r;
    if (!url_percent_decode(&dec, raw_path, strlen(raw_path), true)) {
        r = SERVE_BAD_REQUEST;
        goto out;
    }
    if (memchr(dec.data, '\0', dec.len) || memchr(dec.data, '\\', dec.len) ||
        has_dotdot_segment(dec.data, dec.len)) {
        r = SERVE_FORBIDDEN;
        goto out;
    }
    buf path = BUF_INIT;
    buf_puts(&path, root_real);
    buf_puts(&path, dec.data);
    struct stat st;
    r = check_real(root_real, path.data, file, &st);
    if (r == SERVE_FILE && S_ISDIR(st.st_mode)) {
        if (dec.data[dec.len - 1] != '/') {
            const char *p = raw_path;
            while (p[1] == '/')
                p++; /* "//host/x" must not become a link to another host */
            buf_puts(location, p);
            buf_putc(location, '/');
            buf_reset(file);
            r = SERVE_REDIRECT;
        } else {
            buf_reset(&path);
            buf_puts(&path, file->data);
            buf_puts(&path, "/index.html");
            r = check_real(root_real, path.data, file, &st);
            if (r == SERVE_FILE && !S_ISREG(st.st_mode))
                r = SERVE_NOT_FOUND;
        }
    }
    if (r != SERVE_FILE)
        buf_reset(file);
    buf_release(&path);
out:
    buf_release(&dec);
    return r;
}

/* ---- the Host header ---- */

static bool host_char(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '.' || c == '_';
}

bool serve_host_allowed(const char *host, const char *bind, bool any_host)
{
    if (!host)
        return true;
    /* Split off the port: "name:port", "[v6]" or "[v6]:port". */
    size_t len = strlen(host);
    const char *name = host, *port = NULL;
    size_t nlen;
    bool v6 = host[0] == '[';
    if (v6) {
        const char *close = strchr(host, ']');
        if (!close)
            return false;
        name = host + 1;
        nlen = (size_t)(close - name);
        if (close[1] == ':')
            port = close + 2;
        else if (close[1])
            return false;
    } else {
        const char *colon = strchr(host, ':');
        nlen = colon ? (size_t)(colon - host) : len;
        if (colon)
            port = colon + 1;
    }
    if (port) {
        if (!*port || strlen(port) > 5)
            return false;
        for (const char *p = port; *p; p++)
            if (*p < '0' || *p > '9')
                return false;
    }
    if (nlen == 0 || nlen > 253)
        return false;
    char n[256];
    memcpy(n, name, nlen);
    n[nlen] = '\0';
    if (v6) {
        struct in6_addr a6;
        return inet_pton(AF_INET6, n, &a6) == 1;
    }
    for (size_t i = 0; i < nlen; i++) {
        if (!host_char((unsigned char)n[i]))
            return false;
        n[i] = (char)tolower((unsigned char)n[i]);
    }
    if (nlen > 1 && n[nlen - 1] == '.')
        n[--nlen] = '\0';
    struct in_addr a4;
    if (inet_pton(AF_INET, n, &a4) == 1)
        return true;
    if (any_host)
        return true;
    static const char lh[] = "localhost", dlh[] = ".localhost";
    if (!strcmp(n, lh))
        return true;
    if (nlen > sizeof dlh - 1 && !strcmp(n + nlen - (sizeof dlh - 1), dlh))
        return true;
    if (bind && *bind) {
        size_t blen = strlen(bind);
        if (blen > 1 && bind[blen - 1] == '.')
            blen--;
        if (blen == nlen && !strncasecmp(bind, n, nlen))
            return true;
    }
    return false;
}

/* ---- MIME types ---- */

static const struct {
    const char *ext;
    const char *type;
} mime_types[] = {
    { "html", "text/html; charset=utf-8" },
    { "htm", "text/html; charset=utf-8" },
    { "css", "text/css; charset=utf-8" },
    { "js", "text/javascript; charset=utf-8" },
    { "mjs", "text/javascript; charset=utf-8" },
    { "svg", "image/svg+xml" },
    { "png", "image/png" },
    { "jpg", "image/jpeg" },
    { "jpeg", "image/jpeg" },
    { "gif", "image/gif" },
    { "webp", "image/webp" },
    { "avif", "image/avif" },
    { "ico", "image/x-icon" },
    { "woff", "font/woff" },
    { "woff2", "font/woff2" },
    { "xml", "application/xml; charset=utf-8" },
    { "json", "application/json" },
    { "txt", "text/plain; charset=utf-8" },
    { "md", "text/plain; charset=utf-8" },
    { "pdf", "application/pdf" },
    { "wasm", "application/wasm" },
    { "mp4", "video/mp4" },
    { "webm", "video/webm" },
    { "mp3", "audio/mpeg" },
};

const char *serve_mime_type(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        for (size_t i = 0; i < sizeof mime_types / sizeof mime_types[0]; i++)
            if (!strcasecmp(dot + 1, mime_types[i].ext))
                return mime_types[i].type;
    return "application/octet-stream";
}

bool serve_is_html(const char *path)
{
    return !strncmp(serve_mime_type(path), "text/html", 9);
}

void serve_etag(const struct stat *st, const char *extra, buf *out)
{
    buf_printf(out, "\"%jx-%jx-%jx.%lx", (uintmax_t)st->st_ino, (uintmax_t)st->st_size,
               (uintmax_t)st->st_mtim.tv_sec, (unsigned long)st->st_mtim.tv_nsec);
    if (extra && *extra)
        buf_printf(out, "-%s", extra);
    buf_putc(out, '"');
}

bool serve_etag_match(const char *inm, const char *etag)
{
    if (!inm)
        return false;
    const char *e = etag, *p = inm;
    if (!strncmp(e, "W/", 2))
        e += 2;
    size_t elen = strlen(e);
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *start = p;
        if (*p == '"') {
            const char *q = strchr(p + 1, '"');
            p = q ? q + 1 : p + strlen(p);
        } else {
            while (*p && *p != ',')
                p++;
        }
        size_t len = (size_t)(p - start);
        while (len && (start[len - 1] == ' ' || start[len - 1] == '\t'))
            len--;
        if (len == 1 && *start == '*')
            return true;
        if (len > 2 && !strncmp(start, "W/", 2)) {
            start += 2;
            len -= 2;
        }
        if (len == elen && !memcmp(start, e, len))
            return true;
    }
    return false;
}

void serve_inject(const char *html, size_t len, const char *script, buf *out)
{
    static const char tag[] = "</body>";
    size_t at = len;
    if (len >= 7)
        for (size_t i = len - 7 + 1; i-- > 0;)
            if (!strncasecmp(html + i, tag, 7)) {
                at = i;
                break;
            }
    buf_put(out, html, at);
    buf_puts(out, script);
    buf_put(out, html + at, len - at);
}

void serve_json_string(buf *out, const char *s)
{
    buf_putc(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            buf_putc(out, '\\');
            buf_putc(out, (int)c);
        } else if (c == '\n') {
            buf_puts(out, "\\n");
        } else if (c == '\t') {
            buf_puts(out, "\\t");
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
            buf_printf(out, "\\u%04x", c);
        } else if (c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            buf_printf(out, "\\u%04x", p[2] == 0xa8 ? 0x2028u : 0x2029u);
            p += 2;
        } else {
            buf_putc(out, (int)c);
        }
    }
    buf_putc(out, '"');
}

bool serve_css_only(const char *const *changed, size_t n)
{
    if (!changed || n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        const char *p = changed[i];
        size_t len = strlen(p);
        if (len < 4 || strcasecmp(p + len - 4, ".css"))
            return false;
        if (!strncmp(p, "templates/", 10) || strstr(p, "/templates/"))
            return false;
    }
    return true;
}

/* The text of line `line` (1-based) of text[0..n), or NULL; *len its length. */
static const char *nth_line(const char *text, size_t n, int line, size_t *len)
{
    const char *p = text, *end = text + n;
    for (int k = 1; k < line && p < end; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    if (p >= end && line > 1)
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *len = (size_t)((nl ? nl : end) - p);
    if (*len && p[*len - 1] == '\r')
        (*len)--;
    return p;
}

void serve_format_error(const diag *e, const char *site_dir, buf *out)
{
    /* the path as the site knows it: without the site folder in front */
    const char *path = e->path;
    size_t sl = site_dir ? strlen(site_dir) : 0;
    if (path && sl && strcmp(site_dir, ".") && !strncmp(path, site_dir, sl) && path[sl] == '/')
        path += sl + 1;
    diag shown = *e;
    shown.path = (char *)path;
    buf one = BUF_INIT;
    diag_format(&shown, &one);
    for (size_t k = 0; k < one.len; k++)
        buf_putc(out, one.data[k] == '\n' || one.data[k] == '\r' ? ' ' : one.data[k]);
    buf_release(&one);
    if (!e->path || e->line <= 0 || e->place) /* a notebook's: no lines of its own to show */
        return;
    /* the lines around it, the error's line marked, a caret under its column */
    buf text = BUF_INIT;
    /* the build names files relative to the site folder (or with it in
     * front); the server may run elsewhere */
    char *file = path == e->path && e->path[0] != '/' && site_dir ? fs_join(site_dir, e->path) : NULL;
    char *root = site_dir ? fs_resolve(site_dir) : NULL; /* never show a file from outside the site */
    bool read = fs_read_file_within(root, file ? file : e->path, FS_READ_MAX, &text);
    free(root);
    free(file);
    if (!read || text.len > (64u << 20)) {
        buf_release(&text);
        return;
    }
    int first = e->line > 2 ? e->line - 2 : 1;
    for (int l = first; l <= e->line + 1; l++) {
        size_t len;
        const char *s = nth_line(text.data, text.len, l, &len);
        if (!s)
            break;
        buf_printf(out, "\n%s %5d | ", l == e->line ? ">" : " ", l);
        for (size_t k = 0; k < len && k < 400; k++)
            buf_putc(out, s[k] == '\t' ? ' ' : s[k]);
        if (l == e->line && e->col > 0) {
            /* as many columns as the characters before it take in a
             * monospace font: two for CJK (U+3000–U+D7FF, full-width forms) */
            size_t width = 0;
            for (size_t k = 0; k + 1 < (size_t)e->col && k < len; k++) {
                unsigned char c = (unsigned char)s[k];
                if ((c & 0xC0) == 0x80)
                    continue;
                bool wide = (c >= 0xE3 && c <= 0xED) ||
                            (c == 0xEF && k + 1 < len && ((unsigned char)s[k + 1] == 0xBC ||
                                                          (unsigned char)s[k + 1] == 0xBD));
                width += wide ? 2 : 1;
            }
            buf_puts(out, "\n        | ");
            for (size_t k = 0; k < width; k++)
                buf_putc(out, ' ');
            buf_putc(out, '^');
        }
    }
    buf_release(&text);
}
