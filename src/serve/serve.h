/* serve: the preview server behind `sheaf serve`.
 *
 * A libmicrohttpd daemon serves one output folder (the build's out_dir) and
 * nothing outside it, injects a small live-reload script into HTML as it
 * goes out (the files on disk stay as the build wrote them), and pushes
 * Server-Sent Events on /__sheaf/events when the caller reports a rebuild:
 * "reload", "css" (only stylesheets changed) or "error" (with the
 * diagnostics, shown in the browser as an overlay). The build and the file
 * watcher live elsewhere (render/build.h, serve/watch.h); cli/cmd_serve.c
 * ties the three together.
 *
 * The pure helpers below (path resolution, MIME types, ETags, injection)
 * are what the server calls on every request; they are public so the unit
 * tests can check them without a socket. */
#ifndef SHEAF_SERVE_H
#define SHEAF_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "diag/diag.h"
#include "util/buf.h"

/* ---- listening socket ---- */

/* Opens a listening TCP socket on host:port. host is a numeric IPv4 or IPv6
 * address ("127.0.0.1", "::1") or a name that resolves to one; port 0 picks
 * a free port. Returns the socket, or -1 after reporting the problem into d
 * (a port in use is named, with a hint to use --port). *url receives the
 * server's own address, "http://127.0.0.1:8000/" or "http://[::1]:8000/"
 * (a wildcard address is shown as localhost); the caller frees it. */
int serve_listen(const char *host, int port, char **url, diag_list *d);

/* ---- the server ---- */

typedef struct serve_server serve_server;

/* Starts serving the folder root (which may not exist yet: until it does
 * every request gets a small "not built yet" page) on listen_fd, which the
 * server now owns. bind is the --bind value the socket was opened with: a
 * request whose Host header names anything else is refused (see
 * serve_host_allowed), unless the socket listens on every address
 * (0.0.0.0 or ::). Returns NULL after reporting into d. */
serve_server *serve_server_start(const char *root, int listen_fd, const char *bind,
                                 diag_list *d);
/* Wakes every event stream so it ends, stops the daemon (closing every
 * connection and the socket) and frees the server. NULL does nothing. */
void serve_server_stop(serve_server *s);

/* A rebuild replaces files under root: between lock and unlock no request
 * opens a file, so none sees a half-swapped folder; requests that arrive
 * meanwhile wait and then get the new output. */
void serve_server_lock_output(serve_server *s);
void serve_server_unlock_output(serve_server *s);

/* Tells open pages about a finished build. ok false: d's errors (and
 * warnings) become the "error" event and the overlay on pages loaded from
 * now on. ok true: "css" when every changed file is a stylesheet outside
 * templates/ and the previous build was good, else "reload". changed may be
 * NULL (a full build). d may be NULL when ok. */
void serve_server_report(serve_server *s, bool ok, const diag_list *d,
                         const char *const *changed, size_t nchanged);

/* ---- helpers the server uses on each request ---- */

typedef enum serve_status {
    SERVE_FILE,        /* *file is the real path of a regular file inside root */
    SERVE_REDIRECT,    /* a folder asked for without its trailing slash */
    SERVE_NOT_FOUND,
    SERVE_FORBIDDEN,   /* "..", NUL, backslash, an encoded slash, or outside root */
    SERVE_BAD_REQUEST, /* not an absolute path, or a broken %-escape */
} serve_status;

/* Maps a request path as it came on the wire (still %-encoded, no query)
 * to a file under root_real, which must be a realpath() result. The path is
 * %-decoded exactly once; then any ".." segment, NUL byte or backslash is
 * refused, and so is %2f or %5c in the raw path (an encoded slash).
 * realpath() of the result must lie inside root_real, so symlinks leading
 * out are refused too. A folder gives its index.html. On SERVE_REDIRECT,
 * *location is the raw path plus "/" (with one leading slash, so it never
 * names another host). file and location are reset first. */
serve_status serve_resolve(const char *root_real, const char *raw_path, buf *file,
                           buf *location);

/* The DNS-rebinding guard: may a request carrying this Host header be
 * answered? host is the header's value ("name", "name:port", "[v6]:port"),
 * NULL when the request had none (no browser sends that). Allowed: an IP
 * address literal (a page can only send one when it was itself loaded from
 * that address), "localhost" and names under ".localhost" (which resolve to
 * the loopback only), and bind, the name the server was told to listen on;
 * case does not matter, nor a trailing dot, nor the port. any_host (the
 * server listens on every address) allows every well-formed name. A Host
 * that is not a well-formed host[:port] is refused either way. */
bool serve_host_allowed(const char *host, const char *bind, bool any_host);

/* The Content-Type for a file name, by extension (case-insensitive); text
 * types carry "; charset=utf-8". Unknown: "application/octet-stream".
 * Returns a static string. */
const char *serve_mime_type(const char *path);
/* True when the name's type is text/html. */
bool serve_is_html(const char *path);

/* Appends a strong ETag (with its quotes) made from the file's inode, size
 * and mtime; extra, when not NULL, is mixed in (served HTML also depends on
 * the live-reload state it carries). */
void serve_etag(const struct stat *st, const char *extra, buf *out);
/* Does an If-None-Match header value (a list, "*", W/ prefixes) match etag? */
bool serve_etag_match(const char *if_none_match, const char *etag);

/* Appends html with script inserted before its last </body> (any case), or
 * at the end when it has none. */
void serve_inject(const char *html, size_t len, const char *script, buf *out);

/* Appends s as a JSON string literal that is also safe inside an HTML
 * <script> element ('<', '>', '&', U+2028 and U+2029 escaped). */
void serve_json_string(buf *out, const char *s);

/* True when every path names a stylesheet (.css) that is not a template,
 * so swapping <link rel=stylesheet> hrefs shows the change. False for none. */
bool serve_css_only(const char *const *changed, size_t n);
/* One diagnostic for the browser's overlay, appended to out: its
 * `path:line:col: level: message` line with the path relative to
 * site_dir (may be NULL), then, when the file can be read, the lines
 * around it (the error's marked with '>') and a caret under its column,
 * each on its own line. */
void serve_format_error(const diag *e, const char *site_dir, buf *out);
/* The site folder, for the paths and excerpts of the overlay (copied). */
void serve_server_set_site(serve_server *s, const char *site_dir);

#endif
