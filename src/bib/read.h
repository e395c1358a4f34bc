/* bib/read.h: inside bib/ only — the reader (read.c) and what it calls
 * back in bib.c. */
#ifndef SHEAF_BIB_READ_H
#define SHEAF_BIB_READ_H

#include "bib/bib.h"

/* Reads a .bib's text (UTF-8, no NUL byte: bib_load_text checks) into b;
 * false when it had an error (reported into d). */
bool bib_read(bib *b, const char *text, size_t len, const char *path, arena *a, diag_list *d);
/* Adds an entry whose key is new; a duplicate key is an error at it
 * (returns false). */
bool bib_add_entry(bib *b, const bib_entry *e, diag_list *d);

#endif
