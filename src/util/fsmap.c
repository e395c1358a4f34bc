/* fsmap: a read-only mapping of a large input file (see fsmap.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/fsmap.h"

static size_t page_size;
static struct sigaction before; /* SIGBUS's action before ours */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local fs_map *guarded;

/* A SIGBUS in the guarded map of this thread: the rest of the map becomes
 * zero pages (mmap is a plain system call on Linux, safe here), and the
 * faulting read, run again, reads zeros. Any other: the action before
 * ours, the fault happening again at once. */
static void on_bus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    fs_map *m = guarded;
    char *a = si->si_addr;
    char *base = m ? (char *)m->data : NULL;
    if (m && m->maplen && a >= base && a < base + m->maplen) {
        char *pg = (char *)((uintptr_t)a & ~(uintptr_t)(page_size - 1));
        if (mmap(pg, (size_t)(base + m->maplen - pg), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != MAP_FAILED) {
            m->cut = 1;
            return;
        }
    }
    sigaction(sig, &before, NULL);
}

static void install(void)
{
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &before);
}

bool fs_map_within(const char *root_real, const char *path, size_t max, fs_map *m)
{
    memset(m, 0, sizeof *m);
    m->data = "";
    pthread_once(&once, install);
    if (root_real && !fs_within(root_real, path)) {
        errno = FS_EOUTSIDE;
        return false;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return false;
    }
    if (!S_ISREG(st.st_mode) || st.st_size < 0 || (uintmax_t)st.st_size > max) {
        int e;
        if (S_ISDIR(st.st_mode))
            e = EISDIR;
        else if (!S_ISREG(st.st_mode))
            e = FS_ENOTREG;
        else
            e = FS_ETOOBIG;
        close(fd);
        errno = e;
        return false;
    }
    size_t len = (size_t)st.st_size;
    if (len) {
        size_t maplen = (len + page_size - 1) & ~(page_size - 1);
        void *p = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            errno = e;
            return false;
        }
        madvise(p, maplen, MADV_SEQUENTIAL);
        m->data = p;
        m->len = len;
        m->maplen = maplen;
    }
    close(fd);
    return true;
}

void fs_map_drop(const fs_map *m, size_t off, size_t n)
{
    if (!m->maplen || off >= m->len)
        return;
    if (n > m->len - off)
        n = m->len - off;
    uintptr_t from = ((uintptr_t)m->data + off + page_size - 1) & ~(uintptr_t)(page_size - 1);
    uintptr_t to = ((uintptr_t)m->data + off + n) & ~(uintptr_t)(page_size - 1);
    if (off + n == m->len)
        to = (uintptr_t)m->data + m->maplen;
    if (to > from)
        madvise((void *)from, to - from, MADV_DONTNEED);
}

void fs_map_guard(fs_map *m)
{
    guarded = m;
}

void fs_map_unguard(void)
{
    guarded = NULL;
}

void fs_map_free(fs_map *m)
{
    if (m->maplen)
        munmap((void *)m->data, m->maplen);
    memset(m, 0, sizeof *m);
    m->data = "";
}
