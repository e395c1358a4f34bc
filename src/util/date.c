/* date: YAML timestamps in, strftime-style text out (see date.h).
 *
 * Calendar arithmetic is done here on the proleptic Gregorian calendar
 * (days from 1970-01-01, Howard Hinnant's civil-date algorithms) rather than
 * with mktime/localtime/strftime, so nothing depends on the process time
 * zone or locale and every function is safe to call from several threads.
 *
 * Parsing follows the YAML 1.1 timestamp type, as PyYAML does, plus two
 * leniencies the header promises: a zone may be written `-0500` (no colon)
 * as well as `-05`, `-5` and `-05:00`. The date-only form needs two-digit
 * month and day (`2024-03-08`); single digits are allowed only with a time
 * (`2024-3-8 1:02:03`), as in YAML 1.1. Years run from 1 to 9999, hours to
 * 23, seconds to 59 (no leap seconds), zones to ±23:59. A fraction of a
 * second is accepted and dropped.
 *
 * Formatting uses the C/POSIX locale's English names. Choices where strftime
 * implementations differ: %Y is zero-padded to four digits (`%-Y` unpads);
 * %Z is "UTC" when the offset is zero and "+08:00" otherwise; %z is "+0000"
 * for a date written without a zone. Beyond the directives in date.h, %h %n
 * %t %u %w %C %k %l %P %r %c %x %X %U %W %V %G %g work as in glibc, and the
 * flags `-` (no padding), `_` (pad with spaces) and `0` (pad with zeros)
 * apply to every number. An unknown directive is copied as written.
 *
 * RFC 3339 output writes a zero offset as "Z" whether or not a zone was
 * written (RFC 3339 gives "Z" and "+00:00" the same meaning), any other
 * offset as "+08:00", and a date without a time as midnight of that day. */
#include "util/date.h"

#include <string.h>

static const char *const month_names[12] = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December",
};
static const char *const day_names[7] = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
};

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int days_in_month(int64_t y, int m)
{
    static const int dim[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && is_leap(y) ? 29 : dim[m - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

/* Sunday = 0, like struct tm's tm_wday; 1970-01-01 was a Thursday. */
static int weekday(int64_t days) { return (int)floor_mod(days + 4, 7); }

/* ---- parsing ---- */

/* Reads min..max digits at s[*i]; false when fewer than min. */
static bool read_num(const char *s, size_t n, size_t *i, int min, int max, int *val)
{
    int v = 0, k = 0;
    while (k < max && *i < n && s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        k++;
    }
    *val = v;
    return k >= min;
}

static bool valid_date(int y, int m, int d)
{
    return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= days_in_month(y, m);
}

static void fill(sheaf_date *out, int y, int mo, int d, int h, int mi, int s, int off,
                 bool has_time, bool has_zone)
{
    if (!out)
        return;
    out->t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - (int64_t)off * 60;
    out->offset_min = off;
    out->has_time = has_time;
    out->has_zone = has_zone;
}

/* The YAML timestamp grammar; with loose, the seconds may be left out
 * ("2024-03-18 10:20"), as Jekyll and Hugo front matter allow. */
static bool parse_timestamp(const char *s, size_t n, sheaf_date *out, bool loose)
{
    size_t i = 0;
    int y, mo, d;
    size_t mo_at, d_at;
    if (!read_num(s, n, &i, 4, 4, &y) || i >= n || s[i++] != '-')
        return false;
    mo_at = i;
    if (!read_num(s, n, &i, 1, 2, &mo) || i >= n || s[i++] != '-')
        return false;
    d_at = i;
    if (!read_num(s, n, &i, 1, 2, &d))
        return false;
    if (!valid_date(y, mo, d))
        return false;
    if (i == n) {
        /* the date-only form: YYYY-MM-DD exactly */
        if (d_at - mo_at != 3 || i - d_at != 2)
            return false;
        fill(out, y, mo, d, 0, 0, 0, 0, false, false);
        return true;
    }
    if (s[i] == 'T' || s[i] == 't') {
        i++;
    } else if (s[i] == ' ' || s[i] == '\t') {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
    } else {
        return false;
    }
    int h, mi, sec = 0;
    if (!read_num(s, n, &i, 1, 2, &h) || i >= n || s[i++] != ':')
        return false;
    if (!read_num(s, n, &i, 2, 2, &mi))
        return false;
    if (i < n && s[i] == ':') {
        i++;
        if (!read_num(s, n, &i, 2, 2, &sec))
            return false;
    } else if (!loose) {
        return false;
    }
    if (h > 23 || mi > 59 || sec > 59)
        return false;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i == n) {
        fill(out, y, mo, d, h, mi, sec, 0, true, false);
        return true;
    }
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i == n)
        return false;
    int off = 0;
    if (s[i] == 'Z') {
        i++;
    } else if (s[i] == '+' || s[i] == '-') {
        int sign = s[i++] == '-' ? -1 : 1;
        size_t h_at = i;
        int oh, om = 0;
        if (!read_num(s, n, &i, 1, 2, &oh))
            return false;
        if (i < n && s[i] == ':') {
            i++;
            if (!read_num(s, n, &i, 2, 2, &om))
                return false;
        } else if (i < n && i - h_at == 2) {
            if (!read_num(s, n, &i, 2, 2, &om))
                return false;
        }
        if (oh > 23 || om > 59)
            return false;
        off = sign * (oh * 60 + om);
    } else {
        return false;
    }
    if (i != n)
        return false;
    fill(out, y, mo, d, h, mi, sec, off, true, true);
    return true;
}

bool date_parse(const char *s, size_t n, sheaf_date *out)
{
    return parse_timestamp(s, n, out, false);
}

bool date_parse_loose(const char *s, size_t n, sheaf_date *out)
{
    return parse_timestamp(s, n, out, true);
}

size_t date_parse_prefix(const char *name, size_t n, sheaf_date *out)
{
    static const char shape[] = "dddd-dd-dd-";
    if (n < 11)
        return 0;
    for (size_t i = 0; i < 11; i++) {
        if (shape[i] == 'd' ? !(name[i] >= '0' && name[i] <= '9') : name[i] != '-')
            return 0;
    }
    int y = (name[0] - '0') * 1000 + (name[1] - '0') * 100 + (name[2] - '0') * 10 +
            (name[3] - '0');
    int m = (name[5] - '0') * 10 + (name[6] - '0');
    int d = (name[8] - '0') * 10 + (name[9] - '0');
    if (!valid_date(y, m, d))
        return 0;
    fill(out, y, m, d, 0, 0, 0, 0, false, false);
    return 11;
}

/* ---- formatting ---- */

typedef struct fields {
    int64_t year;
    int mon, mday, hour, min, sec; /* mon 1..12 */
    int wday;                      /* Sunday = 0 */
    int yday;                      /* 0..365 */
    int64_t t;
    int32_t off;
} fields;

/* The date's time in its own offset, and the day (since 1970-01-01) it falls on there. */
static int64_t local_time(const sheaf_date *d) { return d->t + (int64_t)d->offset_min * 60; }
static int64_t local_days(const sheaf_date *d) { return floor_div(local_time(d), 86400); }

static void split(const sheaf_date *d, fields *f)
{
    int64_t days = local_days(d);
    int64_t secs = local_time(d) - days * 86400;
    civil_from_days(days, &f->year, &f->mon, &f->mday);
    f->hour = (int)(secs / 3600);
    f->min = (int)(secs / 60 % 60);
    f->sec = (int)(secs % 60);
    f->wday = weekday(days);
    f->yday = (int)(days - days_from_civil(f->year, 1, 1));
    f->t = d->t;
    f->off = d->offset_min;
}

int64_t date_year(const sheaf_date *d)
{
    int64_t y;
    int m, day;
    civil_from_days(local_days(d), &y, &m, &day);
    return y;
}

/* A number, padded to width with pad unless flag says otherwise. */
static void put_num(buf *out, int64_t v, int width, char pad, char flag)
{
    if (flag == '-')
        width = 0;
    else if (flag == '_')
        pad = ' ';
    else if (flag == '0')
        pad = '0';
    /* written right to left into tmp, then appended at once */
    char tmp[48], *e = tmp + sizeof tmp, *d = e;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--d = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (width > 32)
        width = 32;
    if (v < 0 && pad != '0')
        *--d = '-';
    while (e - d < width - (v < 0 && pad == '0'))
        *--d = pad;
    if (v < 0 && pad == '0')
        *--d = '-';
    buf_put(out, d, (size_t)(e - d));
}

static void put_offset(buf *out, int32_t off, bool colon)
{
    int32_t a = off < 0 ? -off : off;
    buf_putc(out, off < 0 ? '-' : '+');
    put_num(out, a / 60, 2, '0', 0);
    if (colon)
        buf_putc(out, ':');
    put_num(out, a % 60, 2, '0', 0);
}

static int64_t weeks_in_iso_year(int64_t y)
{
    int jan1 = weekday(days_from_civil(y, 1, 1));
    return (jan1 == 4 || (jan1 == 3 && is_leap(y))) ? 53 : 52;
}

/* ISO 8601 week number and the year it belongs to. */
static void iso_week(const fields *f, int64_t *year, int64_t *week)
{
    int iso_wday = f->wday == 0 ? 7 : f->wday;
    int64_t w = (f->yday + 1 - iso_wday + 10) / 7;
    int64_t y = f->year;
    if (w < 1) {
        y--;
        w = weeks_in_iso_year(y);
    } else if (w > weeks_in_iso_year(y)) {
        y++;
        w = 1;
    }
    *year = y;
    *week = w;
}

/* strftime over the broken-down date f: each directive of fmt (with its
 * -, _ or 0 flag) appended to out, other text copied as it is. */
static void format_fields(buf *out, const fields *f, const char *fmt)
{
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            const char *q = p;
            while (q[1] && q[1] != '%')
                q++;
            buf_put(out, p, (size_t)(q - p + 1));
            p = q;
            continue;
        }
        const char *start = p;
        char flag = 0;
        if (p[1] == '-' || p[1] == '_' || p[1] == '0')
            flag = *++p;
        char c = *++p;
        int h12 = f->hour % 12 == 0 ? 12 : f->hour % 12;
        switch (c) {
        case 'Y': put_num(out, f->year, 4, '0', flag); break;
        case 'C': put_num(out, floor_div(f->year, 100), 2, '0', flag); break;
        case 'y': put_num(out, floor_mod(f->year, 100), 2, '0', flag); break;
        case 'm': put_num(out, f->mon, 2, '0', flag); break;
        case 'd': put_num(out, f->mday, 2, '0', flag); break;
        case 'e': put_num(out, f->mday, 2, ' ', flag); break;
        case 'H': put_num(out, f->hour, 2, '0', flag); break;
        case 'k': put_num(out, f->hour, 2, ' ', flag); break;
        case 'I': put_num(out, h12, 2, '0', flag); break;
        case 'l': put_num(out, h12, 2, ' ', flag); break;
        case 'M': put_num(out, f->min, 2, '0', flag); break;
        case 'S': put_num(out, f->sec, 2, '0', flag); break;
        case 'j': put_num(out, f->yday + 1, 3, '0', flag); break;
        case 'u': put_num(out, f->wday == 0 ? 7 : f->wday, 1, '0', flag); break;
        case 'w': put_num(out, f->wday, 1, '0', flag); break;
        case 's': put_num(out, f->t, 1, '0', flag); break;
        case 'U': put_num(out, (f->yday + 7 - f->wday) / 7, 2, '0', flag); break;
        case 'W': put_num(out, (f->yday + 7 - (f->wday + 6) % 7) / 7, 2, '0', flag); break;
        case 'V':
        case 'G':
        case 'g': {
            int64_t iy, iw;
            iso_week(f, &iy, &iw);
            if (c == 'V')
                put_num(out, iw, 2, '0', flag);
            else if (c == 'G')
                put_num(out, iy, 4, '0', flag);
            else
                put_num(out, floor_mod(iy, 100), 2, '0', flag);
            break;
        }
        case 'p': buf_puts(out, f->hour < 12 ? "AM" : "PM"); break;
        case 'P': buf_puts(out, f->hour < 12 ? "am" : "pm"); break;
        case 'b':
        case 'h': buf_put(out, month_names[f->mon - 1], 3); break;
        case 'B': buf_puts(out, month_names[f->mon - 1]); break;
        case 'a': buf_put(out, day_names[f->wday], 3); break;
        case 'A': buf_puts(out, day_names[f->wday]); break;
        case 'z': put_offset(out, f->off, false); break;
        case 'Z':
            if (f->off == 0)
                buf_puts(out, "UTC");
            else
                put_offset(out, f->off, true);
            break;
        case 'F': format_fields(out, f, "%Y-%m-%d"); break;
        case 'T':
        case 'X': format_fields(out, f, "%H:%M:%S"); break;
        case 'D':
        case 'x': format_fields(out, f, "%m/%d/%y"); break;
        case 'R': format_fields(out, f, "%H:%M"); break;
        case 'r': format_fields(out, f, "%I:%M:%S %p"); break;
        case 'c': format_fields(out, f, "%a %b %e %H:%M:%S %Y"); break;
        case 'n': buf_putc(out, '\n'); break;
        case 't': buf_putc(out, '\t'); break;
        case '%': buf_putc(out, '%'); break;
        case '\0':
            /* a lone '%' (or "%-") at the end is kept as written */
            buf_put(out, start, (size_t)(p - start));
            return;
        default:
            buf_put(out, start, (size_t)(p - start + 1));
            break;
        }
    }
}

void date_format(buf *out, const sheaf_date *d, const char *fmt)
{
    fields f;
    split(d, &f);
    format_fields(out, &f, fmt);
}

static void two_digits(char *d, int v)
{
    d[0] = (char)('0' + v / 10);
    d[1] = (char)('0' + v % 10);
}

void date_format_rfc3339(buf *out, const sheaf_date *d)
{
    fields f;
    split(d, &f);
    if (!d->has_time)
        f.hour = f.min = f.sec = 0;
    int32_t a = f.off < 0 ? -f.off : f.off;
    if (f.year >= 0 && f.year <= 9999 && a < 100 * 60) {
        /* what format_fields and put_offset write, digit by digit: every
         * feed, list and post page asks for many of these */
        char s[25];
        two_digits(s, (int)(f.year / 100));
        two_digits(s + 2, (int)(f.year % 100));
        s[4] = '-';
        two_digits(s + 5, f.mon);
        s[7] = '-';
        two_digits(s + 8, f.mday);
        s[10] = 'T';
        two_digits(s + 11, f.hour);
        s[13] = ':';
        two_digits(s + 14, f.min);
        s[16] = ':';
        two_digits(s + 17, f.sec);
        size_t n = 19;
        if (f.off == 0) {
            s[n++] = 'Z';
        } else {
            s[n++] = f.off < 0 ? '-' : '+';
            two_digits(s + n, a / 60);
            s[n + 2] = ':';
            two_digits(s + n + 3, a % 60);
            n += 5;
        }
        buf_put(out, s, n);
        return;
    }
    format_fields(out, &f, "%Y-%m-%dT%H:%M:%S");
    if (f.off == 0)
        buf_putc(out, 'Z');
    else
        put_offset(out, f.off, true);
}
