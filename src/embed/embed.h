/* embed: the default theme, compiled into the binary (the generated
 * embed_theme.c holds the bytes of every file under themes/default/), so
 * `sheaf build` works on a folder that holds only content/. */
#ifndef SHEAF_EMBED_H
#define SHEAF_EMBED_H

#include <stddef.h>

typedef struct embed_file {
    const char *path;          /* relative to themes/default/, e.g. "templates/base.html" */
    const unsigned char *data; /* NUL-terminated */
    size_t len;
} embed_file;

extern const embed_file embed_files[];
extern const size_t embed_count;

/* The embedded file at `path`, or NULL. */
const embed_file *embed_find(const char *path);

#endif
