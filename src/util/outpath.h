/* outpath: the one rule for a path sheaf writes below its output folder.
 *
 * Every output — a page, an alias, a page placed by a permalink pattern, a
 * tag page, a copied static or bundle file — is a file path relative to the
 * output root, and each is checked here before it is claimed (site/paths.c)
 * and again before its bytes are written (render/jobs.c), so no value from
 * front matter, site.yaml or a file name can make sheaf write anywhere else.
 * docs/configuration.md ("Output paths") says the same for users. */
#ifndef SHEAF_OUTPATH_H
#define SHEAF_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The longest name one part of an output path may have (Linux's NAME_MAX). */
#define OUTPATH_NAME_MAX 255
/* The longest output path, in bytes: PATH_MAX (4096) less room for the
 * output folder's own path and its staging name. */
#define OUTPATH_MAX 3072

/* Why p (n bytes, relative to the output root) cannot be the path of an
 * output file, or NULL when it can. An output path is normalised and
 * relative: not empty, no leading '/', '/'-separated names none of which is
 * empty, "." or "..", nor longer than OUTPATH_NAME_MAX bytes, at most
 * OUTPATH_MAX bytes in all, no NUL byte and no control character (C0,
 * DEL or C1: U+0000–U+001F, U+007F–U+009F), and not inside the output
 * folder's own .sheaf-manifest (a file or a folder by that name would
 * break the next build). The result is a static
 * phrase to follow "it …" in a message, e.g. "has a '..' part". */
const char *outpath_problem(const char *p, size_t n);

/* Does a URL path (relative to the site's root, n bytes) name a file
 * rather than a folder: no trailing '/', and a last part with an
 * extension ("feed.json", "2019/old.html", ".well-known/x.txt"; not
 * "about", "about/", ".well-known")? */
bool outpath_names_file(const char *p, size_t n);

/* The file a URL path is written to: itself when it names a file, else
 * the folder's index.html ("" → "index.html", "about/" and "about" →
 * "about/index.html"). Appended to out. */
void outpath_file(buf *out, const char *p, size_t n);

/* Appends p (n bytes) to out for a message: NUL, control characters and
 * bytes that are not UTF-8 as \xNN, a backslash as \\, the rest as is. */
void outpath_quote(buf *out, const char *p, size_t n);

#endif
