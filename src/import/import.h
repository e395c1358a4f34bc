/* import: `sheaf import jekyll|hugo SRC DEST` — make a sheaf site from a
 * Jekyll or Hugo site folder, never writing into SRC.
 *
 * Posts, pages, drafts, sections and static files go where sheaf wants
 * them; the site's settings become site.yaml; each front matter is written
 * again as YAML with sheaf's key names; Liquid and shortcode links become
 * relative .md links sheaf checks; and every page keeps its old URL — the
 * URL Jekyll's or Hugo's rules gave it is compared with the one sheaf gives
 * the imported page (read back through site/, the one place sheaf's URL
 * rules live), and an alias is added where they differ. What cannot be
 * converted is listed, at its SRC file:line:col, in the report. */
#ifndef SHEAF_IMPORT_H
#define SHEAF_IMPORT_H

#include <stdbool.h>

#include "diag/diag.h"
#include "util/buf.h"

typedef enum import_kind { IMPORT_JEKYLL, IMPORT_HUGO } import_kind;

typedef struct import_options {
    import_kind kind;
    const char *src;  /* the Jekyll or Hugo site folder (read only) */
    const char *dest; /* the new sheaf site: missing or empty, or replaced with force */
    bool force;       /* replace a non-empty dest */
} import_options;

/* Imports o->src into o->dest. The report (Markdown: what was converted,
 * then every construct left as it was, at SRC-relative file:line:col with
 * what to do) is appended to report and written as DEST/import-report.md.
 * Problems that stop the import (no such site, a dest that is not empty,
 * a front matter that does not parse) go to d as errors; returns false then. */
bool import_run(const import_options *o, buf *report, diag_list *d);

#endif
