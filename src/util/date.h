/* date: parsing YAML timestamps and formatting dates with strftime, in the
 * offset they were written in (a post written at 23:30 +08:00 shows that day).
 * Thread-safe: no use of the process time zone or locale. */
#ifndef SHEAF_DATE_H
#define SHEAF_DATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct sheaf_date {
    int64_t t;          /* seconds since the epoch, UTC */
    int32_t offset_min; /* minutes east of UTC the date was written in */
    bool has_time;      /* a time of day was given */
    bool has_zone;      /* an offset (or Z) was given */
} sheaf_date;

/* Parses the YAML 1.1 timestamp forms: `2024-03-18`, `2024-03-18T10:20:30`,
 * `2024-03-18 10:20:30.5 +08:00`, `…Z`, `…-0500`, `2024-3-8 1:02:03`.
 * A date without a zone is taken as UTC. Returns false when s is not one. */
bool date_parse(const char *s, size_t n, sheaf_date *out);
/* date_parse, also taking a time without seconds ("2024-03-18 10:20", as
 * Jekyll and Hugo do): for front matter dates written as strings. */
bool date_parse_loose(const char *s, size_t n, sheaf_date *out);
/* Parses a `YYYY-MM-DD-` prefix of a file name; returns the prefix length
 * (11) and fills out, or 0 when there is none or it is not a real date. */
size_t date_parse_prefix(const char *name, size_t n, sheaf_date *out);
/* Appends the date formatted with a strftime-style format (the C/POSIX
 * locale: %Y %m %d %e %H %I %M %S %p %y %b %B %a %A %j %z %Z %F %T %D %R %s
 * %%, and %-d / %-m style no-padding flags), in the date's own offset. */
void date_format(buf *out, const sheaf_date *d, const char *fmt);
/* The year of the date in its own offset (what "%Y" writes). */
int64_t date_year(const sheaf_date *d);
/* RFC 3339, as Atom and sitemaps want: 2024-03-18T10:20:30+08:00. */
void date_format_rfc3339(buf *out, const sheaf_date *d);

#endif
