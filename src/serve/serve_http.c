/* serve_http: the preview server itself — a libmicrohttpd daemon over the
 * build's output folder, the live-reload script injected into HTML on the
 * way out, and the Server-Sent Events stream (/__sheaf/events) that tells
 * open pages to reload, swap their stylesheets, or show the last build's
 * errors.
 *
 * Connections are served by a small pool of threads, each polling its
 * share with epoll, so an idle or slow connection costs a socket and a
 * little memory, never a thread: connections are closed after IDLE_SECONDS
 * without traffic, other machines get at most PER_ADDRESS_LIMIT each (this
 * machine's own browser is not limited but by the total), and the total is
 * as many as the open-file limit allows (up to MAX_CONNECTIONS).
 *
 * The reload state is one record — a generation number bumped by every
 * report, whether the last build failed and with what — kept under a
 * mutex. An event stream with nothing to send is suspended (it takes no
 * thread and is not timed out) and sits on the list of waiting streams;
 * a report, and a ticker thread every PING_SECONDS, resume them all, and
 * each sends its event or a ping and suspends again. A page carries
 * "<boot>-<gen>" (boot differs between runs of the server), so a stream
 * that connects after a rebuild it did not see, or to a restarted server,
 * gets the current state at once. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "serve/serve.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define EVENTS_PATH "/__sheaf/events"
#define STATUS_PATH "/__sheaf/status"
#define PING_SECONDS 15
#define IDLE_SECONDS 10        /* a connection with no traffic for this long is closed */
#define PER_ADDRESS_LIMIT 64   /* connections from one address other than the loopback */
#define MAX_CONNECTIONS 10000  /* at most, however many files may be open */
#define RESERVED_FDS 128       /* kept for the build, the watcher and files being sent */
#define MAX_INJECT (64u << 20) /* larger "HTML" is sent as it is */

typedef enum ev_kind { EV_RELOAD, EV_CSS, EV_ERROR } ev_kind;

typedef struct stream stream;

/* How many connections each address other than the loopback has open. */
typedef struct addr_count {
    unsigned char key[16];
    size_t klen;
    unsigned n;
} addr_count;

struct serve_server {
    char *root;
    char *bind;    /* the --bind name: Host headers naming it are answered */
    bool any_host; /* listening on every address: any Host is answered */
    struct MHD_Daemon *mhd;
    pthread_rwlock_t output; /* held for writing while a build swaps files */

    pthread_mutex_t addr_mu; /* guards the per-address counts */
    addr_count *addrs;
    size_t naddrs, addrs_cap;

    pthread_mutex_t mu; /* guards everything below */
    pthread_cond_t changed; /* the ticker waits on it */
    pthread_t ticker;
    bool have_ticker;
    stream *waiting;    /* suspended event streams */
    bool stopping;
    char boot[24];
    unsigned long gen;
    ev_kind kind;   /* of the last report */
    bool failed;    /* the last build failed */
    char *lines;    /* its diagnostics, one per line, or the changed stylesheets */
    size_t nlines;
    char *site_dir; /* for the overlay's paths and source lines; NULL: none */
};

void serve_server_set_site(serve_server *s, const char *site_dir)
{
    pthread_mutex_lock(&s->mu);
    free(s->site_dir);
    s->site_dir = site_dir ? xstrdup(site_dir) : NULL;
    pthread_mutex_unlock(&s->mu);
}

/* ---- listening socket ---- */

/* A numeric IPv4 or IPv6 address with `port`, into ss. */
static bool numeric_address(const char *name, int port, struct sockaddr_storage *ss, socklen_t *len)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, name, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        *len = sizeof *s4;
        return true;
    }
    if (inet_pton(AF_INET6, name, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *len = sizeof *s6;
        return true;
    }
    return false;
}

/* The address `host` names for --bind: a numeric IPv4 or IPv6 address
 * (brackets allowed), `localhost` (127.0.0.1), or a name in /etc/hosts. No
 * DNS and no NSS: a bind address is this machine's, and a static binary's
 * getaddrinfo would load the NSS modules of whatever glibc the machine has
 * (docs/install.md). Returns false when it names none of those. */
static bool bind_address(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
    char name[256];
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        host++;
        n -= 2;
    }
    if (n == 0 || n >= sizeof name)
        return false;
    memcpy(name, host, n);
    name[n] = '\0';
    if (!strcasecmp(name, "localhost"))
        strcpy(name, "127.0.0.1");
    if (numeric_address(name, port, ss, len))
        return true;
    /* /etc/hosts: "address name alias…" lines, `#` to the end of a line. */
    FILE *f = fopen("/etc/hosts", "re");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\n")] = '\0';
        char *save = NULL, *addr = strtok_r(line, " \t", &save), *w;
        while (addr && !found && (w = strtok_r(NULL, " \t", &save)))
            if (!strcasecmp(w, name))
                found = numeric_address(addr, port, ss, len);
    }
    fclose(f);
    return found;
}

int serve_listen(const char *host, int port, char **url, diag_list *d)
{
    *url = NULL;
    if (port < 0 || port > 65535) {
        diag_error(d, NULL, 0, 0, "port %d is out of range (0-65535)", port);
        return -1;
    }
    struct sockaddr_storage want;
    socklen_t want_len;
    if (!bind_address(host, port, &want, &want_len)) {
        diag_error(d, NULL, 0, 0,
                   "cannot listen on '%s': not an IP address, 'localhost' or a name in /etc/hosts",
                   host);
        return -1;
    }
    int fd = socket(want.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        diag_error(d, NULL, 0, 0, "cannot create a socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (want.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&want, want_len) != 0 || listen(fd, 64) != 0) {
        int e = errno;
        if (e == EADDRINUSE)
            diag_error(d, NULL, 0, 0,
                       "port %d is already in use on %s: stop the other server or pick "
                       "another port with --port",
                       port, host);
        else
            diag_error(d, NULL, 0, 0, "cannot listen on %s port %d: %s (try another --bind or --port)",
                       host, port, strerror(e));
        close(fd);
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    char addr[INET6_ADDRSTRLEN] = "";
    int actual = port;
    buf u = BUF_INIT;
    if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof addr);
        actual = ntohs(s6->sin6_port);
        if (IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr))
            buf_printf(&u, "http://localhost:%d/", actual);
        else
            buf_printf(&u, "http://[%s]:%d/", addr, actual);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof addr);
        actual = ntohs(s4->sin_port);
        if (s4->sin_addr.s_addr == htonl(INADDR_ANY))
            buf_printf(&u, "http://localhost:%d/", actual);
        else
            buf_printf(&u, "http://%s:%d/", addr, actual);
    }
    *url = buf_detach(&u, NULL);
    return fd;
}

/* ---- the injected script ---- */

/* The page's copy of the reload state: which server and build it came from,
 * and the errors to show at once when the last build failed. */
static const char live_js[] =
    "(function(){"
    "if(window.__sheaf)return;window.__sheaf=S;"
    /* the overlay: opaque, over everything; × or Escape closes it (the next
     * report opens it again); each error line red, the source below it */
    "function overlay(lines){"
    "var o=document.getElementById('__sheaf_overlay');"
    "if(!lines){if(o)o.remove();return;}"
    "if(!o){o=document.createElement('div');o.id='__sheaf_overlay';o.setAttribute('role','alert');"
    "o.style.cssText='position:fixed;inset:0;z-index:2147483647;overflow:auto;margin:0;"
    "padding:2.5em 2em 2em;box-sizing:border-box;background:#181818;color:#f4f4f4;"
    "font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;"
    "text-align:left';"
    "(document.body||document.documentElement).appendChild(o);"
    "document.addEventListener('keydown',function(e){if(e.key==='Escape')overlay(null);});}"
    "o.textContent='';"
    "var x=document.createElement('button');x.type='button';x.textContent='\\u00d7';"
    "x.setAttribute('aria-label','Close');x.style.cssText='position:absolute;top:.5em;right:.75em;"
    "font:24px/1 sans-serif;background:none;border:0;color:#f4f4f4;cursor:pointer;padding:.25em';"
    "x.onclick=function(){overlay(null);};o.appendChild(x);"
    "var h=document.createElement('div');h.style.cssText='color:#bbb;margin-bottom:1em';"
    "h.textContent='sheaf: the build failed (still showing the last good build)';o.appendChild(h);"
    "lines.forEach(function(l){var d=document.createElement('div');d.textContent=l;"
    "if(/: error: /.test(l))d.style.cssText='color:#ff8a80;margin-top:.75em';"
    "else if(/: warning: /.test(l))d.style.cssText='color:#ffd27f;margin-top:.75em';"
    "else if(/^[> ] +\\d+ \\||^ +\\|/.test(l))d.style.color='#d0d0d0';"
    "o.appendChild(d);});x.focus();}"
    "function css(){var l=document.querySelectorAll('link[rel~=\"stylesheet\"][href]');"
    "for(var i=0;i<l.length;i++){var u=new URL(l[i].href,location.href);"
    "if(u.origin!==location.origin)continue;u.searchParams.set('__sheaf',Date.now());"
    "l[i].href=u.href;}}"
    "if(S.errors.length)overlay(S.errors);"
    "var es=new EventSource('" EVENTS_PATH "?v='+encodeURIComponent(S.v));"
    "es.addEventListener('reload',function(){es.close();location.reload();});"
    "es.addEventListener('css',function(){css();});"
    "es.addEventListener('error',function(e){"
    "if(typeof e.data==='string')overlay(e.data.split('\\n'));});"
    "window.addEventListener('pagehide',function(){es.close();});"
    "})();";

/* Appends the state as a JS object literal; caller holds s->mu. */
static void state_json(serve_server *s, buf *out)
{
    char v[64];
    snprintf(v, sizeof v, "%s-%lu", s->boot, s->gen);
    buf_puts(out, "{\"v\":");
    serve_json_string(out, v);
    buf_puts(out, ",\"ok\":");
    buf_puts(out, s->failed ? "false" : "true");
    buf_puts(out, ",\"errors\":[");
    if (s->failed && s->lines) {
        const char *p = s->lines;
        for (size_t i = 0; i < s->nlines; i++) {
            const char *nl = strchr(p, '\n');
            char *line = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
            if (i)
                buf_putc(out, ',');
            serve_json_string(out, line);
            free(line);
            p = nl ? nl + 1 : p + strlen(p);
        }
    }
    buf_puts(out, "]}");
}

/* The script for one page, and the ETag suffix it implies. */
static void make_script(serve_server *s, buf *script, buf *tag)
{
    pthread_mutex_lock(&s->mu);
    buf_puts(script, "<script>/* sheaf serve: live reload */var S=");
    state_json(s, script);
    buf_puts(script, ";");
    buf_puts(script, live_js);
    buf_puts(script, "</script>\n");
    buf_printf(tag, "%s-%lu", s->boot, s->gen);
    pthread_mutex_unlock(&s->mu);
}

/* ---- responses ---- */

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r)
{
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type,
                                 char *body, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", type);
    return queue(c, status, r);
}

static enum MHD_Result send_plain(struct MHD_Connection *c, unsigned status, const char *msg)
{
    char *body = xstrdup(msg);
    return send_text(c, status, "text/plain; charset=utf-8", body, strlen(body));
}

/* Sends an open file (the fd is consumed) with status; HTML gets the script. */
static enum MHD_Result send_file(serve_server *s, struct MHD_Connection *c, unsigned status,
                                 const char *path, int fd, const struct stat *st)
{
    const char *type = serve_mime_type(path);
    bool html = serve_is_html(path) && (uint64_t)st->st_size <= MAX_INJECT;
    buf etag = BUF_INIT, script = BUF_INIT, extra = BUF_INIT;
    if (html)
        make_script(s, &script, &extra);
    serve_etag(st, html ? extra.data : NULL, &etag);
    struct MHD_Response *r = NULL;
    unsigned code = status;
    const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
    if (status == MHD_HTTP_OK && serve_etag_match(inm, etag.data)) {
        close(fd);
        r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_NOT_MODIFIED;
    } else if (html) {
        buf page = BUF_INIT, body = BUF_INIT;
        bool ok = fs_read_fd(fd, &page);
        close(fd);
        if (!ok) {
            buf_release(&page);
            buf_release(&script);
            buf_release(&extra);
            buf_release(&etag);
            return send_plain(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the file\n");
        }
        serve_inject(page.data, page.len, script.data, &body);
        buf_release(&page);
        size_t len;
        char *data = buf_detach(&body, &len);
        r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
    } else {
        r = MHD_create_response_from_fd64((uint64_t)st->st_size, fd);
        if (!r)
            close(fd);
    }
    buf_release(&script);
    buf_release(&extra);
    if (!r) {
        buf_release(&etag);
        return MHD_NO;
    }
    if (code != MHD_HTTP_NOT_MODIFIED)
        MHD_add_response_header(r, "Content-Type", type);
    if (status == MHD_HTTP_OK)
        MHD_add_response_header(r, "ETag", etag.data);
    buf_release(&etag);
    return queue(c, code, r);
}

/* Opens path read-only if it is still a regular file. */
static int open_regular(const char *path, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

static const char not_built_page[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
    "<title>Not found</title></head>\n<body>\n<h1>Not found</h1>\n"
    "<p>There is no page at this address.</p>\n</body>\n</html>\n";

/* The site's 404.html with status 404, or a small page of our own; both get
 * the script, so a failed first build still shows its errors. Caller holds
 * the output lock for reading. */
static enum MHD_Result send_not_found(serve_server *s, struct MHD_Connection *c,
                                      const char *root_real)
{
    if (root_real) {
        buf p = BUF_INIT;
        buf_printf(&p, "%s/404.html", root_real);
        char *rp = realpath(p.data, NULL);
        buf_release(&p);
        size_t n = strlen(root_real);
        struct stat st;
        int fd = -1;
        if (rp && !strncmp(rp, root_real, n) && rp[n] == '/')
            fd = open_regular(rp, &st);
        if (fd >= 0) {
            enum MHD_Result r = send_file(s, c, MHD_HTTP_NOT_FOUND, rp, fd, &st);
            free(rp);
            return r;
        }
        free(rp);
    }
    buf script = BUF_INIT, tag = BUF_INIT, body = BUF_INIT;
    make_script(s, &script, &tag);
    serve_inject(not_built_page, sizeof not_built_page - 1, script.data, &body);
    buf_release(&script);
    buf_release(&tag);
    size_t len;
    char *data = buf_detach(&body, &len);
    return send_text(c, MHD_HTTP_NOT_FOUND, "text/html; charset=utf-8", data, len);
}

/* ---- the event stream ---- */

struct stream {
    serve_server *s;
    struct MHD_Connection *c;
    unsigned long seen; /* generation the page knows */
    bool stale;         /* the page is from another build or server: send the state */
    bool started;
    bool suspended;     /* on s->waiting, until a report or the ticker resumes it */
    struct timespec ping_at; /* when to send a ping if nothing happens */
    stream *prev, *next;
    buf pending;
    size_t off;
};

/* Formats one event; each line of text becomes a data: line. */
static void put_event(buf *out, const char *name, const char *id, const char *text)
{
    buf_printf(out, "id: %s\nevent: %s\n", id, name);
    const char *p = text && *text ? text : "";
    do {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        buf_puts(out, "data: ");
        for (size_t i = 0; i < n; i++)
            if (p[i] != '\r')
                buf_putc(out, p[i]);
        buf_putc(out, '\n');
        p = nl ? nl + 1 : NULL;
    } while (p && *p);
    buf_putc(out, '\n');
}

/* Caller holds s->mu: the event that brings a page at st->seen up to date. */
static void next_event(stream *st)
{
    serve_server *s = st->s;
    char id[64];
    snprintf(id, sizeof id, "%s-%lu", s->boot, s->gen);
    bool missed = st->stale || s->gen - st->seen > 1;
    if (s->failed)
        put_event(&st->pending, "error", id, s->lines);
    else if (s->kind == EV_CSS && !missed)
        put_event(&st->pending, "css", id, s->lines);
    else {
        char g[24];
        snprintf(g, sizeof g, "%lu", s->gen);
        put_event(&st->pending, "reload", id, g);
    }
    st->seen = s->gen;
    st->stale = false;
}

/* The ticker wakes the streams every PING_SECONDS; a stream pings when it
 * has sent nothing for half that, so a page hears from the server every
 * 7 to 22 seconds. */
static void ping_later(stream *st)
{
    clock_gettime(CLOCK_MONOTONIC, &st->ping_at);
    st->ping_at.tv_sec += PING_SECONDS / 2;
}

static bool ping_due(const stream *st)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > st->ping_at.tv_sec ||
           (now.tv_sec == st->ping_at.tv_sec && now.tv_nsec >= st->ping_at.tv_nsec);
}

/* Caller holds s->mu: resumes every suspended stream, so each looks again
 * at the state (and its ping time). */
static void wake_streams(serve_server *s)
{
    for (stream *st = s->waiting; st; st = st->next) {
        st->suspended = false;
        MHD_resume_connection(st->c);
    }
    s->waiting = NULL;
}

/* Called by the connection's thread whenever the socket can take more.
 * With nothing to send, the connection is suspended (returning 0 bytes)
 * until wake_streams. */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    stream *st = cls;
    serve_server *s = st->s;
    if (st->off >= st->pending.len) {
        buf_reset(&st->pending);
        st->off = 0;
        pthread_mutex_lock(&s->mu);
        if (s->stopping) {
            pthread_mutex_unlock(&s->mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if (!st->started) {
            buf_puts(&st->pending, "retry: 1000\n\n");
            st->started = true;
            ping_later(st);
        }
        if (st->stale || st->seen != s->gen) {
            next_event(st);
            ping_later(st);
        } else if (st->pending.len == 0 && ping_due(st)) {
            buf_puts(&st->pending, ": ping\n\n");
            ping_later(st);
        } else if (st->pending.len == 0) {
            st->suspended = true;
            st->prev = NULL;
            st->next = s->waiting;
            if (s->waiting)
                s->waiting->prev = st;
            s->waiting = st;
            MHD_suspend_connection(st->c);
            pthread_mutex_unlock(&s->mu);
            return 0;
        }
        pthread_mutex_unlock(&s->mu);
    }
    size_t n = st->pending.len - st->off;
    if (n > max)
        n = max;
    memcpy(out, st->pending.data + st->off, n);
    st->off += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    stream *st = cls;
    serve_server *s = st->s;
    pthread_mutex_lock(&s->mu);
    if (st->suspended) { /* only when the daemon stops */
        if (st->prev)
            st->prev->next = st->next;
        else
            s->waiting = st->next;
        if (st->next)
            st->next->prev = st->prev;
    }
    pthread_mutex_unlock(&s->mu);
    buf_release(&st->pending);
    free(st);
}

/* The ticker: every PING_SECONDS, wakes the waiting streams so those due
 * send a ping (which also finds the ones whose page has gone). */
static void *ticker_main(void *arg)
{
    serve_server *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += PING_SECONDS;
        while (!s->stopping &&
               pthread_cond_timedwait(&s->changed, &s->mu, &until) != ETIMEDOUT)
            ;
        wake_streams(s);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static enum MHD_Result send_events(serve_server *s, struct MHD_Connection *c)
{
    stream *st = xcalloc(1, sizeof *st);
    st->s = s;
    st->c = c;
    st->pending = (buf)BUF_INIT;
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID");
    if (!v || !*v)
        v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "v");
    pthread_mutex_lock(&s->mu);
    st->seen = s->gen;
    char mine[64];
    snprintf(mine, sizeof mine, "%s-%lu", s->boot, s->gen);
    /* No version at all: a client of its own (curl, a test) that only
     * wants what comes next. */
    st->stale = v && strcmp(v, mine) != 0;
    pthread_mutex_unlock(&s->mu);
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, st, stream_free);
    if (!r) {
        stream_free(st);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream; charset=utf-8");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    return queue(c, MHD_HTTP_OK, r);
}

static enum MHD_Result send_status(serve_server *s, struct MHD_Connection *c)
{
    buf b = BUF_INIT;
    pthread_mutex_lock(&s->mu);
    state_json(s, &b);
    pthread_mutex_unlock(&s->mu);
    buf_putc(&b, '\n');
    size_t len;
    char *data = buf_detach(&b, &len);
    return send_text(c, MHD_HTTP_OK, "application/json", data, len);
}

/* ---- dispatch ---- */

/* Appends one query argument to the redirect target. */
static enum MHD_Result add_query(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    (void)kind;
    buf *loc = cls;
    buf_putc(loc, strchr(loc->data, '?') ? '&' : '?');
    buf_puts(loc, key);
    if (value) {
        buf_putc(loc, '=');
        buf_puts(loc, value);
    }
    return MHD_YES;
}

static size_t no_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s); /* serve_resolve decodes the path itself, exactly once */
}

/* libmicrohttpd's handler for every request, on its connection threads.
 * In order: the first call only marks the connection (the body, if any,
 * comes next and is dropped); a Host that is not this server's is refused
 * (DNS rebinding); methods other than GET and HEAD are refused; the two
 * internal paths (reload events, status) are answered; anything else is a
 * path under the output folder, resolved by serve_resolve while the output
 * is read-locked (a build cannot commit under a response) and answered as
 * a file, a redirect (query string kept), the site's 404 page, 403 or
 * 400. */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)version;
    (void)upload;
    serve_server *s = cls;
    if (!*con_cls) {
        /* First call: headers only. Answer on the next, once any body was
         * read (GET and HEAD have none). */
        *con_cls = (void *)1;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0; /* drop a body; the method is refused below */
        return MHD_YES;
    }
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!serve_host_allowed(host, s->bind, s->any_host)) {
        /* DNS rebinding: a page on another site whose name now resolves
         * to this machine must not read the preview. */
        buf b = BUF_INIT;
        buf_puts(&b, "403 forbidden: this preview server answers only requests addressed to "
                     "localhost, an IP address");
        if (s->bind && *s->bind)
            buf_printf(&b, " or %s", s->bind);
        buf_puts(&b, ", not to the host named in this request (a guard against DNS "
                     "rebinding). To reach it under another name, start it with "
                     "`sheaf serve --bind NAME` (or --bind 0.0.0.0 to answer any name).\n");
        size_t len;
        char *data = buf_detach(&b, &len);
        return send_text(c, MHD_HTTP_FORBIDDEN, "text/plain; charset=utf-8", data, len);
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        char *body = xstrdup("only GET and HEAD are served here\n");
        struct MHD_Response *r =
            MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(r, "Allow", "GET, HEAD");
        MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
        return queue(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
    }
    if (!strcmp(url, EVENTS_PATH))
        return send_events(s, c);
    if (!strcmp(url, STATUS_PATH))
        return send_status(s, c);

    pthread_rwlock_rdlock(&s->output);
    char *root_real = realpath(s->root, NULL);
    buf file = BUF_INIT, loc = BUF_INIT;
    serve_status st = root_real ? serve_resolve(root_real, url, &file, &loc) : SERVE_NOT_FOUND;
    if (st == SERVE_NOT_FOUND && !root_real && url[0] != '/')
        st = SERVE_BAD_REQUEST;
    /* browsers ask for /favicon.ico whatever the page names: the site's
     * own icon answers when it has none by that name */
    static const char *const icons[] = { "/favicon.svg", "/favicon.png" };
    for (size_t i = 0; st == SERVE_NOT_FOUND && root_real && !strcmp(url, "/favicon.ico") &&
                       i < sizeof icons / sizeof *icons; i++) {
        buf_reset(&file);
        buf_reset(&loc);
        st = serve_resolve(root_real, icons[i], &file, &loc);
        if (st != SERVE_FILE)
            st = SERVE_NOT_FOUND;
    }
    enum MHD_Result ret;
    struct stat sb;
    int fd = st == SERVE_FILE ? open_regular(file.data, &sb) : -1;
    if (st == SERVE_FILE && fd < 0)
        st = SERVE_NOT_FOUND;
    switch (st) {
    case SERVE_FILE:
        ret = send_file(s, c, MHD_HTTP_OK, file.data, fd, &sb);
        break;
    case SERVE_REDIRECT: {
        /* Keep the query string (raw: nothing is unescaped for us). */
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_query, &loc);
        buf body = BUF_INIT;
        buf_printf(&body, "moved to %s\n", loc.data);
        size_t len;
        char *data = buf_detach(&body, &len);
        struct MHD_Response *r =
            MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(r, "Location", loc.data);
        MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
        ret = queue(c, MHD_HTTP_MOVED_PERMANENTLY, r);
        break;
    }
    case SERVE_NOT_FOUND:
        ret = send_not_found(s, c, root_real);
        break;
    case SERVE_FORBIDDEN:
        ret = send_plain(c, MHD_HTTP_FORBIDDEN, "403 forbidden\n");
        break;
    default:
        ret = send_plain(c, MHD_HTTP_BAD_REQUEST, "400 bad request\n");
        break;
    }
    pthread_rwlock_unlock(&s->output);
    free(root_real);
    buf_release(&file);
    buf_release(&loc);
    return ret;
}

/* ---- connection limits ---- */

/* The address of a client as a key (an IPv4-mapped IPv6 address as its
 * IPv4 one); false for the loopback, which is not limited per address:
 * every page in this machine's browser comes from there. */
static bool addr_key(const struct sockaddr *sa, unsigned char key[16], size_t *klen)
{
    if (!sa)
        return false;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        memcpy(key, &a->sin_addr, 4);
        *klen = 4;
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        if (IN6_IS_ADDR_LOOPBACK(&a->sin6_addr))
            return false;
        if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
            memcpy(key, a->sin6_addr.s6_addr + 12, 4);
            *klen = 4;
        } else {
            memcpy(key, &a->sin6_addr, 16);
            *klen = 16;
        }
    } else {
        return false;
    }
    /* 127.0.0.1 itself; the rest of 127/8 counts as another machine (a
     * client has to choose such a source address on purpose) */
    return !(*klen == 4 && key[0] == 127 && key[1] == 0 && key[2] == 0 && key[3] == 1);
}

/* Caller holds addr_mu. */
static addr_count *addr_find(serve_server *s, const unsigned char *key, size_t klen)
{
    for (size_t i = 0; i < s->naddrs; i++)
        if (s->addrs[i].klen == klen && !memcmp(s->addrs[i].key, key, klen))
            return &s->addrs[i];
    return NULL;
}

/* Counting per address is exact although the pool's threads accept at
 * once: each thread accepts a connection, asks accept_policy, then sets
 * the connection up and reports it started, all in turn. So the policy
 * counts the connection at once (no other thread can slip one in between)
 * and leaves the count pending in its thread; "started" confirms it. A
 * connection the library then fails to set up never starts: the next
 * policy call in that thread gives its count back. */
static _Thread_local struct {
    bool set;
    unsigned char key[16];
    size_t klen;
} pending;

/* Caller holds addr_mu. */
static void addr_release(serve_server *s, const unsigned char *key, size_t klen)
{
    addr_count *e = addr_find(s, key, klen);
    if (e && --e->n == 0)
        *e = s->addrs[--s->naddrs];
}

/* Before a connection is accepted: refused once its address (other than
 * the loopback) has PER_ADDRESS_LIMIT open. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *sa, socklen_t len)
{
    (void)len;
    serve_server *s = cls;
    unsigned char key[16];
    size_t klen;
    pthread_mutex_lock(&s->addr_mu);
    if (pending.set) {
        addr_release(s, pending.key, pending.klen);
        pending.set = false;
    }
    bool ok = true;
    if (addr_key(sa, key, &klen)) {
        addr_count *e = addr_find(s, key, klen);
        ok = !e || e->n < PER_ADDRESS_LIMIT;
        if (ok) {
            if (!e) {
                e = VEC_ADD(s->addrs, s->naddrs, s->addrs_cap, 16);
                memcpy(e->key, key, klen);
                e->klen = klen;
                e->n = 0;
            }
            e->n++;
            memcpy(pending.key, key, klen);
            pending.klen = klen;
            pending.set = true;
        }
    }
    pthread_mutex_unlock(&s->addr_mu);
    return ok ? MHD_YES : MHD_NO;
}

/* A connection counted by accept_policy started (in the same thread), or
 * closed. */
static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
    serve_server *s = cls;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    unsigned char key[16];
    size_t klen;
    if (!ci || !addr_key(ci->client_addr, key, &klen))
        return;
    pthread_mutex_lock(&s->addr_mu);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        if (pending.set && pending.klen == klen && !memcmp(pending.key, key, klen)) {
            pending.set = false;
            *socket_context = s; /* counted: give it back when it closes */
        }
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        addr_release(s, key, klen);
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&s->addr_mu);
}

/* Raises the soft open-file limit to the hard one (each connection is a
 * socket) and returns how many connections to allow. */
static unsigned connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1000;
    rlim_t want = (rlim_t)MAX_CONNECTIONS + RESERVED_FDS;
    if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
        return MAX_CONNECTIONS;
    return rl.rlim_cur > RESERVED_FDS + 16 ? (unsigned)(rl.rlim_cur - RESERVED_FDS) : 16;
}

/* ---- the server ---- */

serve_server *serve_server_start(const char *root, int listen_fd, const char *bind,
                                 diag_list *d)
{
    serve_server *s = xcalloc(1, sizeof *s);
    s->root = xstrdup(root);
    s->bind = xstrdup(bind ? bind : "");
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    /* A rebuild must not wait behind a stream of requests. */
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&s->output, &ra);
    pthread_rwlockattr_destroy(&ra);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->addr_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->changed, &ca);
    pthread_condattr_destroy(&ca);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(s->boot, sizeof s->boot, "%lx%x", (unsigned long)now.tv_sec,
             (unsigned)(now.tv_nsec ^ (unsigned)getpid()) & 0xffffu);

    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    bool named = getsockname(listen_fd, (struct sockaddr *)&ss, &sl) == 0;
    bool v6 = named && ss.ss_family == AF_INET6;
    if (named && v6)
        s->any_host = IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr);
    else if (named && ss.ss_family == AF_INET)
        s->any_host = ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_ANY);
    /* the pool's threads share the socket: accept must never block */
    int fl = fcntl(listen_fd, F_GETFL);
    if (fl >= 0)
        fcntl(listen_fd, F_SETFL, fl | O_NONBLOCK);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned pool = ncpu < 4 ? 4 : ncpu > 8 ? 8 : (unsigned)ncpu;
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
                     (v6 ? MHD_USE_IPv6 : 0);
    s->mhd = MHD_start_daemon(flags, 0, accept_policy, s, handle, s,
                              MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                              MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, (void *)NULL,
                              MHD_OPTION_THREAD_POOL_SIZE, pool,
                              MHD_OPTION_CONNECTION_LIMIT, connection_limit(),
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_SECONDS,
                              MHD_OPTION_NOTIFY_CONNECTION, notify_connection, (void *)s,
                              MHD_OPTION_END);
    if (!s->mhd) {
        diag_error(d, NULL, 0, 0, "cannot start the HTTP server (libmicrohttpd)");
        close(listen_fd);
        serve_server_stop(s);
        return NULL;
    }
    if (pthread_create(&s->ticker, NULL, ticker_main, s) != 0) {
        diag_error(d, NULL, 0, 0, "cannot start the HTTP server: %s", strerror(errno));
        serve_server_stop(s);
        return NULL;
    }
    s->have_ticker = true;
    return s;
}

void serve_server_stop(serve_server *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    wake_streams(s); /* they end: stream_read sees stopping */
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->mu);
    if (s->have_ticker)
        pthread_join(s->ticker, NULL);
    if (s->mhd)
        MHD_stop_daemon(s->mhd);
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->addr_mu);
    pthread_rwlock_destroy(&s->output);
    free(s->addrs);
    free(s->lines);
    free(s->site_dir);
    free(s->root);
    free(s->bind);
    free(s);
}

void serve_server_lock_output(serve_server *s)
{
    pthread_rwlock_wrlock(&s->output);
}

void serve_server_unlock_output(serve_server *s)
{
    pthread_rwlock_unlock(&s->output);
}

void serve_server_report(serve_server *s, bool ok, const diag_list *d,
                         const char *const *changed, size_t nchanged)
{
    buf lines = BUF_INIT, one = BUF_INIT;
    size_t n = 0;
    ev_kind kind = EV_RELOAD;
    if (!ok) {
        kind = EV_ERROR;
        pthread_mutex_lock(&s->mu);
        char *site_dir = s->site_dir ? xstrdup(s->site_dir) : NULL;
        pthread_mutex_unlock(&s->mu);
        for (size_t i = 0; d && i < diag_count(d); i++) {
            const diag *e = diag_get(d, i);
            buf_reset(&one);
            serve_format_error(e, site_dir, &one);
            if (n++)
                buf_putc(&lines, '\n');
            buf_put(&lines, one.data, one.len);
            for (size_t k = 0; k < one.len; k++)
                n += one.data[k] == '\n';
        }
        free(site_dir);
        if (n == 0) {
            buf_puts(&lines, "error: the build failed");
            n = 1;
        }
    } else if (serve_css_only(changed, nchanged)) {
        kind = EV_CSS;
        for (size_t i = 0; i < nchanged; i++) {
            if (n++)
                buf_putc(&lines, '\n');
            buf_puts(&lines, changed[i]);
        }
    }
    buf_release(&one);
    pthread_mutex_lock(&s->mu);
    if (kind == EV_CSS && s->failed)
        kind = EV_RELOAD; /* the overlay must go: reload */
    s->gen++;
    s->kind = kind;
    s->failed = !ok;
    free(s->lines);
    s->lines = buf_detach(&lines, NULL);
    s->nlines = n;
    wake_streams(s);
    pthread_mutex_unlock(&s->mu);
}
