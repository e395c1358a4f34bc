/* xalloc: allocation that never returns NULL.
 *
 * sheaf treats running out of memory as fatal: these wrappers print a message
 * and abort, so callers never check for NULL. */
#ifndef SHEAF_XALLOC_H
#define SHEAF_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t n);
void *xrealloc(void *p, size_t n);
/* Zeroed as xcalloc, but by writing every byte now: for a table whose
 * pages are all written soon, in no order (a hash table). calloc's fresh
 * pages are the kernel's one zero page until written, so a table's slot
 * read before it is written costs a second fault, a copy and, in a process
 * with threads, a flush of every other core's TLB; written now, one fault
 * a page. */
void *xcalloc_written(size_t count, size_t n);
/* For a size that does not fit in a size_t: prints a message and aborts. */
_Noreturn void xalloc_too_large(void);
/* Copies of a NUL-terminated string / of n bytes (always NUL-terminated).
 * The caller frees the result with free(). */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
