/* bib/csl: a .bib entry as a CSL-JSON item, the input of citeproc-js
 * (src/js/csl.c), mapped as Pandoc maps BibTeX and BibLaTeX to CSL: types
 * (article → article-journal, inproceedings → paper-conference, the theses
 * with their genre, …), names (a braced corporate name → "literal"; von
 * parts → "dropping-particle"; Jr → "suffix"), dates (year + month, or
 * BibLaTeX's date, urldate → accessed), containers (journal, booktitle),
 * volume / issue / pages, publisher and place (school, institution and
 * organization stand for the publisher where BibTeX puts them), DOI, URL
 * (an arXiv eprint → its abs page), and the language: langid / language as
 * a BCP 47 tag ("chinese" → zh-CN), else zh-CN, ja-JP or ko-KR when the
 * title or a name holds Han, kana or Hangul characters — which citeproc-js
 * uses for the entry's terms (等 / et al., docs/citations.md). */
#ifndef SHEAF_BIB_CSL_H
#define SHEAF_BIB_CSL_H

#include "bib/bib.h"
#include "util/buf.h"

/* Appends e as one CSL-JSON object ({"id": key, "type": …, …}) to out.
 * doc_lang is the document's language ("en-US", the style's locale): the
 * titles of an English entry — by its own language, else by doc_lang —
 * are put in sentence case, as CSL styles expect (csl.c says how). An
 * entry read from a CSL-JSON file is written as it was read (e->csl). */
void bib_csl_json(const bib_entry *e, const char *doc_lang, buf *out);

/* The BCP 47 tag of e's language: langid / language mapped (a tag kept
 * as written; NULL when it is neither), else detected: zh-CN, ja-JP or
 * ko-KR for Han, kana or Hangul in the title or a name, else en-US.
 * Static. */
const char *bib_csl_language(const bib_entry *e);

/* Appends s[0..n) as a JSON string (quoted, escaped) to out. */
void bib_json_string(buf *out, const char *s, size_t n);

#endif
