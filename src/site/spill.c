/* spill: the pages' rendered bodies in a file instead of in memory, for a
 * one-shot build (site/spill.h, "bodies on disk", says why and when).
 *
 * The Markdown workers append bodies with pwritev at places they reserve
 * with one atomic add, so no lock is taken; each body is written with its
 * NUL, as template strings are. The file is unlinked from the start
 * (O_TMPFILE, else mkstemp and unlink), so nothing is left behind by a
 * build that is killed. It is mapped once, after the last write, shared
 * and read-only: dropping its pages from the process (madvise
 * MADV_DONTNEED) is then safe while other threads read them. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "site/bulk.h"
#include "site/spill.h"
#include "util/buf.h"
#include "util/xalloc.h"

struct site_spill {
    int fd;
    atomic_size_t end;   /* bytes reserved so far */
    atomic_bool failed;  /* a write failed: later bodies stay in memory */
    char *map;
    size_t map_len;
};

static int open_tmp(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    buf b = BUF_INIT;
    buf_printf(&b, "%s/.sheaf-bodies-XXXXXX", dir);
    int fd2 = mkostemp(b.data, O_CLOEXEC);
    if (fd2 >= 0)
        unlink(b.data);
    buf_release(&b);
    return fd2;
}

bool site_spill_open(site *s, const char *dir)
{
    int fd = open_tmp(dir);
    if (fd < 0)
        return false;
    site_spill *sp = xcalloc(1, sizeof *sp);
    sp->fd = fd;
    atomic_init(&sp->end, 0);
    atomic_init(&sp->failed, false);
    s->spill = sp;
    return true;
}

/* Writes the n buffers of v from `at` on, in one call when the kernel
 * takes them whole (v is used up). */
static bool write_all(int fd, struct iovec *v, int n, off_t at)
{
    while (n) {
        ssize_t k = pwritev(fd, v, n, at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        at += k;
        size_t done = (size_t)k;
        for (; n && done >= v->iov_len; v++, n--)
            done -= v->iov_len;
        if (n) { /* a short write: the rest of the buffer it stopped in */
            v->iov_base = (char *)v->iov_base + done;
            v->iov_len -= done;
        }
    }
    return true;
}

/* n parts, each with its NUL, one after the other from `at`: one call,
 * not one a part (four a page: 30,000 calls fewer at 10,000 posts). */
static bool write_parts(int fd, size_t n, const char *const data[], const size_t len[], off_t at)
{
    struct iovec v[2 * SITE_SPILL_PARTS];
    for (size_t i = 0; i < n; i++) {
        v[2 * i] = (struct iovec){ (void *)data[i], len[i] };
        v[2 * i + 1] = (struct iovec){ (void *)"", 1 };
    }
    return write_all(fd, v, (int)(2 * n), at);
}

bool site_spill_put_parts(site *s, size_t n, const char *const data[], const size_t len[], size_t place[])
{
    site_spill *sp = s->spill;
    memset(place, 0, n * sizeof *place);
    if (!sp || atomic_load(&sp->failed) || n > SITE_SPILL_PARTS)
        return false;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += len[i] + 1;
    size_t at = atomic_fetch_add(&sp->end, total);
    if (!write_parts(sp->fd, n, data, len, (off_t)at)) {
        atomic_store(&sp->failed, true); /* these and the later ones stay in memory */
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        place[i] = at + 1;
        at += len[i] + 1;
    }
    return true;
}

size_t site_spill_put(site *s, const char *data, size_t n)
{
    size_t place;
    site_spill_put_parts(s, 1, &data, &n, &place);
    return place;
}

size_t site_spill_reserve(site *s, size_t n)
{
    site_spill *sp = s->spill;
    if (!sp || atomic_load(&sp->failed))
        return 0;
    return atomic_fetch_add(&sp->end, n) + 1;
}

bool site_spill_write(const site *s, size_t place, const char *data, size_t n)
{
    site_spill *sp = s->spill;
    if (!sp || !sp->map || !place || place - 1 + n + 1 > sp->map_len)
        return false;
    return write_parts(sp->fd, 1, &data, &n, (off_t)(place - 1));
}

const char *site_spill_at(const site *s, size_t place)
{
    return s->spill && s->spill->map && place ? s->spill->map + place - 1 : NULL;
}

bool site_spill_map(site *s, diag_list *d)
{
    site_spill *sp = s->spill;
    if (!sp)
        return true;
    size_t len = atomic_load(&sp->end);
    /* the room reserved past the last write (site_spill_reserve) */
    struct stat st;
    if (len && fstat(sp->fd, &st) == 0 && (size_t)st.st_size < len && ftruncate(sp->fd, (off_t)len) != 0)
        len = (size_t)st.st_size; /* what is past it stays unwritten: read from the cache into memory */
    if (len) {
        void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, sp->fd, 0);
        if (m == MAP_FAILED) {
            /* the build fails; what still reads the pages reads "" */
            diag_error(d, NULL, 0, 0, "cannot map the file of the pages' bodies: %s", strerror(errno));
            for (size_t i = 0; i < s->npages; i++) {
                page *p = &s->pages[i];
                if (p->spill_body)
                    p->md.html = "", p->md.html_len = 0;
                if (p->spill_summary)
                    p->md.summary_html = "", p->md.summary_len = 0;
                if (p->spill_keys)
                    p->search_keys = "", p->search_keys_len = 0;
                if (p->spill_text)
                    p->search_text = "", p->search_text_len = 0;
                p->spill_body = p->spill_summary = p->spill_keys = p->spill_text = 0;
            }
            return false;
        }
        sp->map = m;
        sp->map_len = len;
    }
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->spill_body)
            p->md.html = sp->map + p->spill_body - 1;
        if (p->spill_summary)
            p->md.summary_html = sp->map + p->spill_summary - 1;
        if (p->spill_keys)
            p->search_keys = sp->map + p->spill_keys - 1;
        if (p->spill_text)
            p->search_text = sp->map + p->spill_text - 1;
    }
    return true;
}

void site_spill_trim(const site *s)
{
    if (s->spill && s->spill->map)
        madvise(s->spill->map, s->spill->map_len, MADV_DONTNEED);
}

void site_spill_free(site *s)
{
    site_bulk_hook(s, false);
    site_spill *sp = s->spill;
    if (!sp)
        return;
    if (sp->map)
        munmap(sp->map, sp->map_len);
    close(sp->fd);
    free(sp);
    s->spill = NULL;
}
