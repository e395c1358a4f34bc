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
/* For a size that does not fit in a size_t: prints a message and aborts. */
_Noreturn void xalloc_too_large(void);
/* Copies of a NUL-terminated string / of n bytes (always NUL-terminated).
 * The caller frees the result with free(). */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
