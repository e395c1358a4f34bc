/* tpl: the template engine — a Jinja2 3.1-compatible language (see
 * docs/templates.md), parsed once per build, rendered on any thread.
 *
 * A tpl_loader finds templates by name (the site's templates/, then
 * themes/<t>/templates/, then the default theme embedded in the binary),
 * parses each once and caches it. Parsed templates are immutable: any number
 * of threads may call tpl_render at once with the same loader, each with its
 * own scratch arena and output buffer. */
#ifndef SHEAF_TPL_H
#define SHEAF_TPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/diag.h"
#include "value/value.h"
#include "util/arena.h"
#include "util/buf.h"

typedef struct tpl_loader tpl_loader;
typedef struct tpl_template tpl_template;

/* A loader searching dirs[0..ndirs) in order (copied), then, when
 * `embedded` is true, the embedded default theme's templates/. */
tpl_loader *tpl_loader_new(const char *const *dirs, size_t ndirs, bool embedded);
/* Frees the loader and every template it parsed. tpl_loader_free(NULL) is a
 * no-op. */
void tpl_loader_free(tpl_loader *l);
/* From now on a template file is read only when it resolves inside the
 * folder root (the containment rule, fs_within: a build passes its site
 * folder, so templates/x.html -> /etc/passwd is an error, not a page).
 * root is copied and resolved. */
void tpl_loader_set_root(tpl_loader *l, const char *root);
/* Adds a template from memory under `name` (wins over files); the text is
 * copied. Used by tests and by `sheaf render`. */
void tpl_loader_add(tpl_loader *l, const char *name, const char *text, size_t len);
/* Whether a template of that name can be found (without parsing it). */
bool tpl_loader_exists(tpl_loader *l, const char *name);

/* The text of template `name`, where the loader finds it (caller frees;
 * *len its length), or NULL when there is none. */
char *tpl_loader_source(tpl_loader *l, const char *name, size_t *len);
/* A hash of the text of `name` and, once it is loaded, of every template
 * it names statically (extends, include, import), recursively: equal
 * between two loaders when what it renders with is the same (templates
 * named by a computed string aside). 0 when there is no such template.
 * Thread-safe. */
uint64_t tpl_loader_fingerprint(tpl_loader *l, const char *name);

/* Finds and parses `name` and every template it names statically (extends,
 * include, import with string literals), once; later calls return the cached
 * template. Returns NULL after reporting `path:line:col: error: …` to d
 * (a missing template names every path tried). Thread-safe. Owned by the
 * loader. */
const tpl_template *tpl_load(tpl_loader *l, const char *name, diag_list *d);

/* What the sheaf filters need to know about the site. */
typedef struct tpl_options {
    const char *base_url; /* absolute_url / relative_url; e.g. "https://x.io/notes/" */
    /* t("key"): the theme strings of the site's language (string → string;
     * NULL: none), the English ones to fall back on, and the language's
     * name for messages */
    const tpl_map *strings, *strings_fallback;
    const char *language;
    /* Smaller bounds than the defaults of docs/templates.md (256 MiB of
     * output, 1 GiB of memory, 2^25 steps per render); 0 keeps the
     * default. */
    size_t max_output, max_memory;
    uint64_t max_steps;
    /* A smaller bound than 1 GiB on the memory of all the renders running
     * at once in the process, as this render checks it; 0 keeps it. */
    size_t max_process_memory;
    /* Shared by every render of one build (NULL: none): their steps
     * together are bounded too (TPL_MAX_BUILD_STEPS), so a site of many
     * pages each just under the bound of one still ends. */
    struct tpl_budget *budget;
} tpl_options;

/* The steps of the renders of one build, counted together (atomically: the
 * renders run on several threads). Zero it before the build. */
typedef struct tpl_budget {
    _Atomic uint64_t steps;
} tpl_budget;

/* Renders t with the top-level variables in `vars` (may be NULL) into out
 * (appended). Temporaries go to `scratch`, which the caller resets after
 * the page. Errors (template:line:col, plus a note naming `context`, e.g. the
 * page being rendered, when context is not NULL) go to d; returns false on
 * error, leaving partial output in out. */
bool tpl_render(const tpl_template *t, tpl_loader *l, const tpl_map *vars, const tpl_options *opt,
                const char *context, arena *scratch, buf *out, diag_list *d);

/* Appends s HTML-escaped as Jinja2/markupsafe does (& < > " ' → entities). */
void tpl_escape_html(buf *out, const char *s, size_t n);

/* s (a string) without the white space around it, as the `trim` filter
 * and Python's str.strip() remove it; a view into s's bytes. */
tpl_value tpl_trim(tpl_value s);

#endif
