/* paths: output paths and URLs (paths.c) — permalinks, the base path and
 * URL, aliases, the one check every output path passes, and the check
 * that no two outputs claim one path. */
#ifndef SHEAF_SITE_PATHS_H
#define SHEAF_SITE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"
#include "util/arena.h"

/* The date a permalink placeholder names, as a date_format format: "%Y"
 * for "year", "%-m" for "i_month" … (Jekyll's names: year, month,
 * i_month, day, i_day, short_year, hour, minute, second, y_day, week,
 * w_year, w_day, short_month, long_month, short_day, long_day; Hugo's:
 * monthname and weekdayname, lower-cased in the URL, weekday, yearday);
 * NULL for any other name (slug, section, or unknown). n: the name's
 * length. */
const char *site_permalink_date(const char *name, size_t n);
/* Whether one part of a URL path (between '/') is one sheaf writes as it
 * is, in `url:` and in a kept `slug:`: not empty, '.' or '..', and no
 * blank, control character, '?', '#', '%', quote, '<', '>', '|' or '\\'. */
bool site_url_part_safe(const char *s, size_t n);
/* Whether one part of a `url:` path is one sheaf writes: as
 * site_url_part_safe, and single spaces inside ("machine learning", as
 * Jekyll's :categories make): the output folder holds the space, every
 * URL of it has %20 (site_url, url_path_escape). */
bool site_url_part_ok(const char *s, size_t n);

/* Output paths, permalinks and the duplicate-path check (needs front matter). */
bool site_assign_paths(site *s, diag_list *d);
/* The output path of an alias (`aliases:` in front matter), allocated in a
 * when it is not `al` itself: "/old/" → "old/index.html". */
const char *site_alias_output(arena *a, const char *al);

/* After the model: the outputs only it knows (tag pages, /page/2/ … up to
 * `index_pages`) against every page, alias and file; each clash is an
 * error. */
bool site_check_generated_paths(site *s, size_t index_pages, diag_list *d);

/* The URL templates see for an output path: base path + path, in the
 * site's arena (site_url_in: in a, for other threads). */
const char *site_url(const site *s, const char *path);
const char *site_url_in(const site *s, arena *a, const char *path);
/* The file a page's (or any output's) path is written to, in a:
 * "posts/a/" → "posts/a/index.html", "old.html" as is (outpath_file). */
const char *site_output_file(arena *a, const char *path);

/* The absolute URL of an output path: base URL + path (site_permalink_in:
 * in a). */
const char *site_permalink(const site *s, const char *path);
const char *site_permalink_in(const site *s, arena *a, const char *path);

#endif
