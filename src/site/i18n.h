/* i18n: the theme strings and the words Markdown writes, in a page's language (i18n.c). */
#ifndef SHEAF_SITE_I18N_H
#define SHEAF_SITE_I18N_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "md/md.h"
#include "site/model.h"
#include "util/arena.h"

/* ---- theme strings (i18n.c) ------------------------------------------ */

/* Loads the theme strings of the site's `language:` and the English ones
 * (each: the built-in theme's i18n/<lang>.yaml, then the site theme's, then
 * the site's i18n/<lang>.yaml). A language without any table is a warning
 * (English is shown), given only while *warned is false, which it then
 * sets (a build session says it once: a warning on every run would keep
 * serve from its fast rebuilds); warned may be NULL. A file that is not a
 * mapping of strings is an error. */
void site_load_strings(site *s, bool *warned, diag_list *d);
/* p's HTML (summary: its summary) with the text of its links that have
 * none to another page's label (`[](other.md#fig-a)`, md_xlink) put in:
 * "Figure 2 in <em>Other note</em>", in the site's language. The
 * Markdown's own HTML when it has no such link; else a copy in a. */
const char *site_xlink_html(const site *s, const page *p, bool summary, arena *a, size_t *len);
/* Label l's words in page p's language, "Figure 2" (a section's title
 * when sections are not numbered), in a. */
const char *site_label_words(const site *s, arena *a, const page *p, const md_label *l);
/* Page t's label `id` (a figure, table, equation or section), or NULL. */
const md_label *site_page_label(const page *t, const char *id);

/* The words Markdown writes (cross-references, captions, alerts) from the
 * theme strings (xref_fig, …), in the site arena. */
const md_words *site_md_words(site *s);
/* The same for a page in language `lang` (its front matter's
 * `language:`): that language's strings when the theme or site has them,
 * else the site's words. Made on first use and kept (not thread-safe: call
 * it between the parallel stages). */
const md_words *site_md_words_lang(site *s, const char *lang);
/* A page's `language:` (front matter), or NULL. */
const char *site_page_language(const page *p);

/* The theme string `key` in the site's language, else in English, else
 * NULL (what t("key") gives templates, for what sheaf writes itself). */
const char *site_string(const site *s, const char *key);

#endif
