/* Unit tests for util/date: YAML timestamps, file-name prefixes, strftime
 * formatting in the date's own offset, RFC 3339. Expected instants were
 * checked against Python's datetime. */
#include "harness.h"

#include <stdlib.h>

#include "util/buf.h"
#include "util/date.h"

static bool parse(const char *s, sheaf_date *d)
{
    return date_parse(s, strlen(s), d);
}

/* Formats s (which must parse) with fmt; the result lives in b. */
static const char *fmt(buf *b, const char *s, const char *f)
{
    sheaf_date d;
    buf_reset(b);
    if (!parse(s, &d))
        return "(no parse)";
    date_format(b, &d, f);
    return b->data;
}

static const char *rfc(buf *b, const char *s)
{
    sheaf_date d;
    buf_reset(b);
    if (!parse(s, &d))
        return "(no parse)";
    date_format_rfc3339(b, &d);
    return b->data;
}

TEST(parse_forms)
{
    sheaf_date d;
    OK(parse("2024-03-18", &d));
    EQ_INT(d.t, 1710720000);
    EQ_INT(d.offset_min, 0);
    OK(!d.has_time);
    OK(!d.has_zone);

    OK(parse("2024-03-18T10:20:30", &d));
    EQ_INT(d.t, 1710720000 + 10 * 3600 + 20 * 60 + 30);
    OK(d.has_time);
    OK(!d.has_zone);
    EQ_INT(d.offset_min, 0);

    OK(parse("2024-03-18 10:20:30.5 +08:00", &d));
    EQ_INT(d.t, 1710728430);
    EQ_INT(d.offset_min, 480);
    OK(d.has_time);
    OK(d.has_zone);

    OK(parse("2024-03-18t10:20:30Z", &d));
    EQ_INT(d.t, 1710757230);
    OK(d.has_zone);
    EQ_INT(d.offset_min, 0);

    OK(parse("2024-03-18T10:20:30-0500", &d));
    EQ_INT(d.t, 1710775230);
    EQ_INT(d.offset_min, -300);
    OK(parse("2024-03-18T10:20:30-05:00", &d));
    EQ_INT(d.t, 1710775230);
    OK(parse("2024-03-18T10:20:30-05", &d));
    EQ_INT(d.t, 1710775230);
    OK(parse("2024-03-18T10:20:30 -5", &d));
    EQ_INT(d.offset_min, -300);
    OK(parse("2000-01-01T00:00:00-09:30", &d));
    EQ_INT(d.t, 946719000);
    EQ_INT(d.offset_min, -570);
    OK(parse("2024-03-18 10:20:30 Z", &d));
    OK(parse("2024-03-18 \t 10:20:30.", &d)); /* YAML allows an empty fraction */

    /* Front matter strings may leave the seconds out; YAML timestamps may not. */
    OK(!parse("2024-03-18 10:20", &d));
    OK(date_parse_loose("2024-03-18 10:20", 16, &d));
    EQ_INT(d.t, 1710720000 + 10 * 3600 + 20 * 60);
    OK(d.has_time);
    OK(date_parse_loose("2024-03-18T10:20+08:00", 22, &d));
    EQ_INT(d.offset_min, 480);
    EQ_INT(d.t, 1710720000 + 2 * 3600 + 20 * 60);
    OK(date_parse_loose("2024-03-18 10:20:30", 19, &d));
    OK(!date_parse_loose("2024-03-18 10:2", 15, &d));
    OK(!date_parse_loose("2024-03-18 10:20:", 17, &d));
    OK(!date_parse_loose("2024-03-18 10", 13, &d));

    OK(parse("2024-3-8 1:02:03", &d));
    EQ_INT(d.t, 1709859723);
    OK(parse("2024-03-18T23:30:00+08:00", &d));
    EQ_INT(d.t, 1710775800);

    /* bounds and years before 1970 */
    OK(parse("1969-12-31T23:59:59Z", &d));
    EQ_INT(d.t, -1);
    OK(parse("1900-02-28 12:00:00", &d));
    EQ_INT(d.t, -2203934400LL);
    OK(parse("0001-01-01", &d));
    EQ_INT(d.t, -62135596800LL);
    OK(parse("9999-12-31T23:59:59Z", &d));
    EQ_INT(d.t, 253402300799LL);
    OK(parse("2024-02-29", &d));
    EQ_INT(d.t, 1709164800);
    OK(parse("2000-02-29", &d));

    /* only s[0..n) is read */
    OK(date_parse("2024-03-18 is a Monday", 10, &d));
    EQ_INT(d.t, 1710720000);
    /* out may be NULL to test the form only */
    OK(date_parse("2024-03-18", 10, NULL));
}

TEST(parse_rejects)
{
    sheaf_date d = { 42, 7, true, true };
    static const char *const bad[] = {
        "", "2024", "2024-03", "2024-03-18x", "2024-02-30", "2023-02-29",
        "1900-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "2024-01-00",
        "0000-01-01", "24-03-18", "02024-03-18", "2024-3-8", "2024-03-8",
        "2024/03/18", " 2024-03-18", "2024-03-18 ", "2024-03-18T", "2024-03-18T10:20",
        "2024-03-18T10:20:30 ", "2024-03-18T24:00:00", "2024-03-18T10:60:00",
        "2024-03-18T10:20:60", "2024-03-18T10:2:30", "2024-03-18T100:20:30",
        "2024-03-18T 10:20:30", "2024-03-18T10:20:30+", "2024-03-18T10:20:30+24:00",
        "2024-03-18T10:20:30+08:60", "2024-03-18T10:20:30+08:0",
        "2024-03-18T10:20:30+080", "2024-03-18T10:20:30+08:00x", "2024-03-18T10:20:30z",
        "2024-03-18T10:20:30 UTC", "2024-03-18T10:20:30.5.5", "yesterday", "2024-03-18\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i], &d))
            FAILF("date_parse accepted \"%s\"", bad[i]);
        harness_checks++;
    }
    /* a failed parse leaves out alone */
    EQ_INT(d.t, 42);
    EQ_INT(d.offset_min, 7);
}

TEST(parse_prefix)
{
    sheaf_date d;
    EQ_INT(date_parse_prefix("2024-03-18-foo.md", 17, &d), 11);
    EQ_INT(d.t, 1710720000);
    OK(!d.has_time);
    OK(!d.has_zone);
    EQ_INT(date_parse_prefix("2024-13-01-x", 12, &d), 0);
    EQ_INT(date_parse_prefix("2024-02-30-x", 12, &d), 0);
    EQ_INT(date_parse_prefix("2024-02-29-leap", 15, &d), 11);
    EQ_INT(date_parse_prefix("2024-03-18.md", 13, &d), 0);
    EQ_INT(date_parse_prefix("2024-03-18", 10, &d), 0);
    EQ_INT(date_parse_prefix("2024-3-18-foo.md", 16, &d), 0);
    EQ_INT(date_parse_prefix("about.md", 8, &d), 0);
    EQ_INT(date_parse_prefix("0000-01-01-x", 12, &d), 0);
    EQ_INT(date_parse_prefix("1999-12-31-", 11, &d), 11);
    EQ_INT(date_parse_prefix("2024-03-18-foo.md", 10, &d), 0); /* n limits */
}

TEST(format_basics)
{
    buf b = BUF_INIT;
    EQ_STR(fmt(&b, "2024-03-18", "%b %-d, %Y"), "Mar 18, 2024");
    EQ_STR(fmt(&b, "2024-03-08", "%b %-d, %Y"), "Mar 8, 2024");
    EQ_STR(fmt(&b, "2024-03-08", "%B %d %e|%-m/%m"), "March 08  8|3/03");
    EQ_STR(fmt(&b, "2024-03-18", "%a %A %j %u %w"), "Mon Monday 078 1 1");
    EQ_STR(fmt(&b, "2024-03-18", "%F %T %H"), "2024-03-18 00:00:00 00");
    EQ_STR(fmt(&b, "2024-03-18 10:20:30.5 +08:00", "%Y-%m-%d %H:%M:%S %z %Z"),
           "2024-03-18 10:20:30 +0800 +08:00");
    EQ_STR(fmt(&b, "2024-03-18T10:20:30", "%z %Z"), "+0000 UTC");
    EQ_STR(fmt(&b, "2024-03-18T10:20:30Z", "%Z"), "UTC");
    EQ_STR(fmt(&b, "2024-03-18T10:20:30-0930", "%z %Z"), "-0930 -09:30");
    EQ_STR(fmt(&b, "2024-03-18T10:20:30+05:45", "%z"), "+0545");
    EQ_STR(fmt(&b, "2024-03-18 13:05:09", "%I:%M %p %-I%P %l %k"), "01:05 PM 1pm  1 13");
    EQ_STR(fmt(&b, "2024-03-18 00:05:09", "%I %p %-H:%-M:%-S"), "12 AM 0:5:9");
    EQ_STR(fmt(&b, "2024-03-18 12:00:00", "%I %p"), "12 PM");
    EQ_STR(fmt(&b, "2024-03-18 13:05:09", "%D %R %y %C"), "03/18/24 13:05 24 20");
    EQ_STR(fmt(&b, "2024-03-18 13:05:09", "%r|%c|%x|%X"),
           "01:05:09 PM|Mon Mar 18 13:05:09 2024|03/18/24|13:05:09");
    EQ_STR(fmt(&b, "2024-03-18T10:20:30+08:00", "%s"), "1710728430");
    EQ_STR(fmt(&b, "1969-12-31T23:59:59Z", "%s"), "-1");
    EQ_STR(fmt(&b, "2024-03-08", "%_m|%_d|%0e|%-j|%_j"), " 3| 8|08|68| 68");
    EQ_STR(fmt(&b, "2024-03-18", "100%% %n%t"), "100% \n\t");
    EQ_STR(fmt(&b, "2024-03-18", "%h"), "Mar");
    /* unknown directives and a trailing '%' are copied as written */
    EQ_STR(fmt(&b, "2024-03-18", "%Q %-Q %"), "%Q %-Q %");
    EQ_STR(fmt(&b, "2024-03-18", "%-"), "%-");
    EQ_STR(fmt(&b, "2024-03-18", ""), "");
    EQ_STR(fmt(&b, "2024-03-18", "plain text"), "plain text");
    /* every month and weekday name */
    static const char *const mon[] = { "January", "February", "March", "April",
                                       "May", "June", "July", "August", "September",
                                       "October", "November", "December" };
    for (int m = 1; m <= 12; m++) {
        char s[16];
        snprintf(s, sizeof s, "2023-%02d-01", m);
        EQ_STR(fmt(&b, s, "%B"), mon[m - 1]);
    }
    static const char *const days[] = { "Sunday", "Monday", "Tuesday", "Wednesday",
                                         "Thursday", "Friday", "Saturday" };
    for (int i = 0; i < 7; i++) {
        char s[16];
        snprintf(s, sizeof s, "2024-03-%02d", 17 + i);
        char want[32];
        snprintf(want, sizeof want, "%s %.3s", days[i], days[i]);
        EQ_STR(fmt(&b, s, "%A %a"), want);
    }
    /* appends */
    sheaf_date d;
    OK(parse("2024-03-18", &d));
    buf_reset(&b);
    buf_puts(&b, "— ");
    date_format(&b, &d, "%b %-d, %Y");
    EQ_STR(b.data, "— Mar 18, 2024");
    buf_release(&b);
}

TEST(format_in_own_offset)
{
    buf b = BUF_INIT;
    /* written late in the evening east of UTC: still that day */
    EQ_STR(fmt(&b, "2024-03-18T23:30:00+08:00", "%b %-d, %Y %H:%M"), "Mar 18, 2024 23:30");
    /* early in the morning east of UTC (the day before in UTC) */
    EQ_STR(fmt(&b, "2024-03-18T01:00:00+08:00", "%F %T %a"), "2024-03-18 01:00:00 Mon");
    /* late at night west of UTC (the day after in UTC) */
    EQ_STR(fmt(&b, "2024-03-18T22:00:00-05:00", "%F %T %a"), "2024-03-18 22:00:00 Mon");
    EQ_STR(fmt(&b, "2023-12-31T23:59:59-12:00", "%F %T %j"), "2023-12-31 23:59:59 365");
    EQ_STR(fmt(&b, "2024-01-01T00:00:00+14:00", "%F %T %j"), "2024-01-01 00:00:00 001");

    /* the same instant shown in a different offset */
    sheaf_date d;
    OK(parse("2024-03-18T23:30:00+08:00", &d));
    d.offset_min = 0;
    buf_reset(&b);
    date_format(&b, &d, "%F %T %Z");
    EQ_STR(b.data, "2024-03-18 15:30:00 UTC");
    d.offset_min = -600;
    buf_reset(&b);
    date_format(&b, &d, "%F %T %z");
    EQ_STR(b.data, "2024-03-18 05:30:00 -1000");
    buf_release(&b);
}

TEST(year_in_own_offset)
{
    /* date_year is what "%Y" writes, in the date's own offset */
    static const char *const dates[] = { "2023-12-31T23:59:59-12:00", "2024-01-01T00:00:00+14:00",
                                         "2023-12-31T23:30:00-05:00", "1970-01-01T00:00:00Z",
                                         "1969-12-31T23:59:59Z",      "1900-03-01",
                                         "2400-02-29T12:00:00+01:00", "0001-01-01" };
    buf b = BUF_INIT;
    for (size_t i = 0; i < sizeof dates / sizeof *dates; i++) {
        sheaf_date d;
        OK(parse(dates[i], &d));
        EQ_INT(date_year(&d), strtoll(fmt(&b, dates[i], "%Y"), NULL, 10));
    }
    sheaf_date d;
    OK(parse("2023-12-31T23:30:00-05:00", &d)); /* 2024 in UTC */
    EQ_INT(date_year(&d), 2023);
    d.offset_min = 0;
    EQ_INT(date_year(&d), 2024);
    buf_release(&b);
}

TEST(format_calendar)
{
    buf b = BUF_INIT;
    EQ_STR(fmt(&b, "2024-02-29", "%F %j %a"), "2024-02-29 060 Thu");
    EQ_STR(fmt(&b, "2024-12-31", "%j"), "366");
    EQ_STR(fmt(&b, "2023-12-31", "%j"), "365");
    EQ_STR(fmt(&b, "2000-02-29", "%A"), "Tuesday");
    EQ_STR(fmt(&b, "1970-01-01", "%A %s"), "Thursday 0");
    EQ_STR(fmt(&b, "1969-12-31T23:59:59Z", "%F %T %A"), "1969-12-31 23:59:59 Wednesday");
    EQ_STR(fmt(&b, "1900-02-28 12:00:00", "%F %A %j"), "1900-02-28 Wednesday 059");
    EQ_STR(fmt(&b, "1900-03-01", "%A %j"), "Thursday 060"); /* 1900 not leap */
    EQ_STR(fmt(&b, "1066-10-14 09:00:00", "%a %A %j %U %W %V %G"),
           "Sun Sunday 287 41 41 41 1066");
    EQ_STR(fmt(&b, "0001-01-01", "%F %A %C %y"), "0001-01-01 Monday 00 01");
    EQ_STR(fmt(&b, "0800-06-01", "%Y %-Y"), "0800 800");
    EQ_STR(fmt(&b, "9999-12-31T23:59:59Z", "%F %T %A"), "9999-12-31 23:59:59 Friday");
    /* week numbers (checked against glibc strftime) */
    EQ_STR(fmt(&b, "2021-01-03", "%j %U %W %V %G %g %u %w"), "003 01 00 53 2020 20 7 0");
    EQ_STR(fmt(&b, "2020-12-31", "%j %U %W %V %G %g %u %w"), "366 52 52 53 2020 20 4 4");
    EQ_STR(fmt(&b, "2024-12-30", "%j %U %W %V %G %g %u %w"), "365 52 53 01 2025 25 1 1");
    EQ_STR(fmt(&b, "2027-01-01", "%j %U %W %V %G %g %u %w"), "001 00 00 53 2026 26 5 5");
    EQ_STR(fmt(&b, "2026-12-31", "%j %U %W %V %G %g %u %w"), "365 52 52 53 2026 26 4 4");
    /* every day from 1600 to 2400 round-trips through parse and format */
    int bad = 0;
    long long prev = 0;
    for (int y = 1600; y <= 2400 && bad < 5; y++) {
        for (int m = 1; m <= 12; m++) {
            for (int dd = 1; dd <= 31; dd++) {
                char s[16];
                snprintf(s, sizeof s, "%04d-%02d-%02d", y, m, dd);
                sheaf_date d;
                bool real = dd <= 28 || (m == 2 ? dd == 29 && y % 4 == 0 &&
                                                      (y % 100 != 0 || y % 400 == 0)
                                                : dd <= 30 || m == 1 || m == 3 ||
                                                      m == 5 || m == 7 || m == 8 ||
                                                      m == 10 || m == 12);
                if (parse(s, &d) != real) {
                    FAILF("%s: parse says %d", s, !real);
                    bad++;
                    continue;
                }
                if (!real)
                    continue;
                if (!(y == 1600 && m == 1 && dd == 1) && d.t != prev + 86400) {
                    FAILF("%s: %lld is not a day after %lld", s, (long long)d.t, prev);
                    bad++;
                }
                prev = d.t;
                buf_reset(&b);
                date_format(&b, &d, "%F");
                if (strcmp(b.data, s) != 0) {
                    FAILF("%s formats as %s", s, b.data);
                    bad++;
                }
            }
        }
    }
    harness_checks++;
    buf_release(&b);
}

TEST(rfc3339)
{
    buf b = BUF_INIT;
    EQ_STR(rfc(&b, "2024-03-18T10:20:30+08:00"), "2024-03-18T10:20:30+08:00");
    EQ_STR(rfc(&b, "2024-03-18 10:20:30.75 -0500"), "2024-03-18T10:20:30-05:00");
    EQ_STR(rfc(&b, "2024-03-18T10:20:30-09:30"), "2024-03-18T10:20:30-09:30");
    EQ_STR(rfc(&b, "2024-03-18"), "2024-03-18T00:00:00Z");
    EQ_STR(rfc(&b, "2024-03-18T10:20:30"), "2024-03-18T10:20:30Z");
    EQ_STR(rfc(&b, "2024-03-18T10:20:30Z"), "2024-03-18T10:20:30Z");
    EQ_STR(rfc(&b, "2024-03-18T10:20:30+00:00"), "2024-03-18T10:20:30Z");
    EQ_STR(rfc(&b, "2024-03-18T23:30:00+08:00"), "2024-03-18T23:30:00+08:00");
    EQ_STR(rfc(&b, "1969-07-20 20:17:40 Z"), "1969-07-20T20:17:40Z");
    EQ_STR(rfc(&b, "2024-3-8 1:02:03"), "2024-03-08T01:02:03Z");
    /* a date without a time, shown in an offset, is midnight of its own day */
    sheaf_date d = { 1710720000 - 8 * 3600, 480, false, true };
    buf_reset(&b);
    date_format_rfc3339(&b, &d);
    EQ_STR(b.data, "2024-03-18T00:00:00+08:00");
    buf_reset(&b);
    buf_puts(&b, "<updated>");
    OK(parse("2024-03-18", &d));
    date_format_rfc3339(&b, &d);
    EQ_STR(b.data, "<updated>2024-03-18T00:00:00Z");
    /* years of other than four digits, offsets of 100 hours or more */
    sheaf_date far = { 253402300800 + 86400, 0, true, false }; /* 10000-01-02 */
    buf_reset(&b);
    date_format_rfc3339(&b, &far);
    EQ_STR(b.data, "10000-01-02T00:00:00Z");
    sheaf_date early = { -62135596800 + 86400 * 31 + 3661, 0, true, false }; /* 0001-02-01 */
    buf_reset(&b);
    date_format_rfc3339(&b, &early);
    EQ_STR(b.data, "0001-02-01T01:01:01Z");
    sheaf_date wide = { 0, 100 * 60 + 5, true, true };
    buf_reset(&b);
    date_format_rfc3339(&b, &wide);
    EQ_STR(b.data, "1970-01-05T04:05:00+100:05");
    buf_release(&b);
}

int main(void)
{
    RUN(parse_forms);
    RUN(parse_rejects);
    RUN(parse_prefix);
    RUN(format_basics);
    RUN(format_in_own_offset);
    RUN(year_in_own_offset);
    RUN(format_calendar);
    RUN(rfc3339);
    return harness_done();
}
