/* bib: BibTeX / BibLaTeX bibliographies, read by sheaf's own BibTeX
 * reader (read.c, names.c, tex.c).
 *
 * A bibliography is the entries of one or more `.bib` files: `@string`
 * macros expanded (and the month macros jan … dec, as BibTeX's styles
 * define them), `#` concatenations joined, `crossref` fields followed (a
 * child takes every field it lacks from its parent, and the parent's title
 * as its booktitle), name lists split into given / von / family / jr parts
 * by BibTeX's rules, and every text turned from TeX into plain Unicode
 * (`M{\"u}ller` → Müller, `{SGD}` → SGD, `--` → –, `~` → a no-break
 * space); UTF-8 text is kept as it is. `@comment`, `@preamble`, `%` lines
 * and other text between entries are skipped.
 *
 * Problems are reported at the .bib's file:line:col where they are — a
 * missing comma at the field after it, an unbalanced brace at the value
 * that never closes (naming where it runs to), a duplicate field or an
 * unknown macro where it is written, a duplicate key at both places, a
 * missing file at the key that names it. After a broken entry the reader
 * goes on at the next `@` at the start of a line, so one run shows every
 * broken entry, and the entries that did parse are kept.
 *
 * Bounded: reading is linear in the file; macro text copied into values is
 * capped (BIB_VALUE_MAX per value, BIB_EXPANSION_MAX per file), an error at
 * the macro use past either. Nothing is global: bib_load may be called
 * from any thread (each with its own bib). Everything it returns lives in
 * the caller's arena. */
#ifndef SHEAF_BIB_H
#define SHEAF_BIB_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "util/arena.h"

/* A value may be at most 1 MiB once its macros are expanded; one file's
 * macros may copy at most 64 MiB into its values (and @string values) in
 * all. docs/internals.md, "Budgets". */
enum { BIB_VALUE_MAX = 1 << 20, BIB_EXPANSION_MAX = 64 << 20 };
/* After this many errors in one file, one more says so and the rest of
 * the file is not read. */
enum { BIB_ERRORS_MAX = 100 };

typedef struct bib_name {
    const char *given, *von, *family, *jr; /* "" when absent */
    const char *full;                       /* "Given von Family, Jr" */
} bib_name;

typedef struct bib_field {
    const char *name;  /* lower case: "title", "booktitle", … */
    const char *text;  /* Unicode text */
    const char *raw;   /* the TeX it was made from, macros expanded: which
                          words braces protect (bib/csl.c's sentence case) */
} bib_field;

typedef struct bib_entry {
    const char *key;        /* as written (keys are case-sensitive) */
    const char *type;       /* lower case: "article", "inproceedings", … */
    const char *src;        /* the .bib it comes from, as given */
    int line;               /* where its `@` is */
    bib_field *fields;      /* in the order written, then inherited ones */
    size_t nfields;
    bib_name *authors, *editors;
    size_t nauthors, neditors;
    const char *csl;        /* from a CSL-JSON file (bib/csljson.h): the item
                               as written, one JSON object whose "id" is key;
                               NULL for a .bib entry */
} bib_entry;

typedef struct bib {
    bib_entry *entries;     /* in the order read */
    size_t n, cap;
    struct strmap *by_key;  /* key → index */
} bib;

/* Reads `path` (its name in messages; `file` the path to open) and adds
 * its entries to b. `where_*` locates what asked for the file (site.yaml's
 * or a page's `bibliography:`), for a missing file. Returns false when the
 * file had an error (reported into d). */
bool bib_load(bib *b, const char *file, const char *path, const char *where_path, int where_line,
              int where_col, arena *a, diag_list *d);
/* The same for a file's bytes already read (tests, the fuzzer). */
bool bib_load_text(bib *b, const char *text, size_t len, const char *path, arena *a, diag_list *d);
/* After the last bib_load: every `crossref` followed (the parent may be in
 * any file); an unknown parent is an error at the child. */
bool bib_resolve_crossrefs(bib *b, arena *a, diag_list *d);
/* The entry with this key, or NULL. */
const bib_entry *bib_find(const bib *b, const char *key);
/* The key closest to an unknown one (for "did you mean"), or NULL. */
const char *bib_suggest(const bib *b, const char *key);
/* A field's text, or NULL. */
const char *bib_field_get(const bib_entry *e, const char *name);
void bib_free(bib *b);

/* A name list (an author or editor field's TeX, macros expanded) split
 * into names at ` and `, each cut into its parts as BibTeX does; parts are
 * text (bib_tex_to_text). Empty names are left out. The array is in a;
 * *n its length. */
bib_name *bib_split_names(arena *a, const char *tex, size_t *n);

/* TeX → Unicode text, in a: accents and special letters become their
 * characters (NFC), braces go, `--`/`---` become dashes, `~` a no-break
 * space, ``…'' curly quotes, `\emph{x}` and other commands keep their
 * argument. */
const char *bib_tex_to_text(arena *a, const char *tex, size_t n);

#endif
