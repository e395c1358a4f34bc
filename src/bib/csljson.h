/* bib/csljson: a CSL-JSON bibliography (a `.json` in `bibliography:`, as
 * Zotero and Better BibTeX export it: a list of items, each an object with
 * an "id" and a "type") → the entries of a bib, the same model the .bib
 * reader makes (bib.h), so citations, /papers/ and the built-in styles
 * read them alike.
 *
 * The JSON text itself is read by fm/json.c (fm_parse_json_value_pos):
 * bib/ may not use fm/ (the two are one stage), so the caller (site/)
 * parses and hands over the tree and a way to find where each part was
 * written. This file checks the items and maps them:
 *
 *   type             article-journal, -magazine, -newspaper → article;
 *                    paper-conference → inproceedings; chapter →
 *                    incollection; book, patent, dataset, software → the
 *                    same name; thesis → phdthesis (mastersthesis when its
 *                    genre says master); report → techreport; webpage,
 *                    post, post-weblog → online; manuscript → unpublished;
 *                    anything else → misc
 *   author, editor   → authors, editors (bib_name: family, given,
 *                    dropping- or non-dropping-particle as von, suffix as
 *                    jr; a "literal" name is one family name, as a braced
 *                    corporate author is in a .bib), and the author and
 *                    editor fields as a .bib writes them ("Family, Given
 *                    and {Literal}")
 *   issued           → year (and month, as the .bib month macros write it);
 *                    accessed → urldate ("YYYY-MM-DD")
 *   container-title  → journal (articles) or booktitle (the rest)
 *   the rest         title, volume, edition, note, abstract, publisher
 *                    (school of a thesis, institution of a report),
 *                    publisher-place → address, issue → number, number,
 *                    page → pages, DOI → doi, URL → url, ISBN, ISSN,
 *                    collection-title → series, chapter-number → chapter,
 *                    genre → type, language → langid
 *
 * Each field's raw is its text as BibTeX holds it (TeX's special
 * characters escaped), which /papers/ shows as the entry's BibTeX.
 *
 * Every item is also kept whole as CSL-JSON in bib_entry.csl (its "id" as
 * the entry's key, a string): bib_csl_json (bib/csl.h) writes that instead
 * of mapping the entry back, so the CSL styles see every variable the file
 * has, as written (titles not re-cased).
 *
 * Errors, at the place in the file: a root that is not a list, an item
 * that is not an object, a missing or empty "id" or "type", an id given
 * twice (or also in another bibliography of the site), and a variable of
 * the wrong kind (a title that is a list, a name list that is not a list
 * of objects, a date that is not an object with "date-parts", "raw" or
 * "literal"). A broken item is left out; the others are kept. Unknown
 * variables are kept in .csl and otherwise ignored. */
#ifndef SHEAF_BIB_CSLJSON_H
#define SHEAF_BIB_CSLJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "bib/bib.h"
#include "diag/diag.h"
#include "util/arena.h"
#include "value/value.h"

/* Where things were written in the file, told by the caller (who parsed
 * it): `key_at` the value of `key` in object m, `item_at` item i of list
 * l. Each sets *line and *col (1-based) and returns false when it does not
 * know, when the reader falls back to the enclosing item, then to 1:1. */
typedef struct bib_json_places {
    bool (*key_at)(void *ctx, const tpl_map *m, const char *key, int *line, int *col);
    bool (*item_at)(void *ctx, const tpl_list *l, size_t i, int *line, int *col);
    void *ctx;
} bib_json_places;

/* Adds the items of root (a CSL-JSON document parsed from `path`, its name
 * in messages) to b as entries (in a: everything points into a or root,
 * which must live as long). Returns false when an item had an error
 * (reported into d). */
bool bib_load_csljson(bib *b, tpl_value root, const char *path, const bib_json_places *at,
                      arena *a, diag_list *d);

#endif
