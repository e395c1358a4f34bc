/* manifest: the list of files sheaf wrote in a folder — `.sheaf-manifest`
 * at the top of a build's output folder and of a local deploy target. sheaf
 * removes only files listed there (docs/publishing.md).
 *
 * The file: a first line naming it, then one path a line, relative to the
 * folder, sorted, '\' written "\\" and a newline "\n". An entry that is not a
 * plain relative path (absolute, empty, "." or ".." components) is ignored
 * when read: it is not trusted to name a file of sheaf's. */
#ifndef SHEAF_MANIFEST_H
#define SHEAF_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

#define MANIFEST_NAME ".sheaf-manifest"

struct strmap;

typedef struct manifest {
    struct strmap *paths; /* path → its index in list; keys point into text */
    char **list;          /* the same paths, in the file's order */
    size_t n, cap;
    char *text;           /* the file's bytes, unescaped in place */
    size_t len;           /* the file's length */
} manifest;

/* Reads dir/.sheaf-manifest into m (which it initialises). false when
 * there is none, or the file is not a manifest: m is then empty. Free with
 * manifest_free either way. */
bool manifest_read(const char *dir, manifest *m);
/* Whether m lists rel. */
bool manifest_has(const manifest *m, const char *rel);
void manifest_free(manifest *m);
/* Appends the manifest file's bytes for the n paths (in any order). */
void manifest_format(char *const *paths, size_t n, buf *out);
/* Writes dir/.sheaf-manifest for the n paths through a temporary file and a
 * rename, so that it is always whole. false + errno. */
bool manifest_write(const char *dir, char *const *paths, size_t n);

#endif
