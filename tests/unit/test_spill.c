/* test_spill: the file of the pages' bodies (site/spill.c). A page's
 * parts go in one write, each with its NUL, one after the other; the map
 * shows each at its place; a reserved place is written after the map; a
 * put that cannot be made leaves every place 0 (the caller keeps the
 * bytes); the file leaves nothing in its folder. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "site/site.h"
#include "site/spill.h"

static char dir[64];

/* The entries of dir, "." and ".." aside. */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

/* Whether place shows data[0..n) and its NUL in the map. */
static bool shows(const site *s, size_t place, const char *data, size_t n)
{
    const char *at = site_spill_at(s, place);
    return at && !memcmp(at, data, n) && at[n] == '\0';
}

TEST(parts_in_one_write)
{
    snprintf(dir, sizeof dir, "/tmp/sheaf-test-spill-XXXXXX");
    OK(mkdtemp(dir) != NULL);
    site s = { 0 };
    OK(site_spill_open(&s, dir));
    size_t big_n = 300000; /* more than one page of the file, more than a pipe's buffer */
    char *big = malloc(big_n);
    for (size_t i = 0; i < big_n; i++)
        big[i] = (char)('a' + i % 26);
    const char *part[] = { "<p>body</p>", "", big, "keys\x01\x02" };
    const size_t len[] = { 11, 0, big_n, 6 };
    size_t place[4];
    OK(site_spill_put_parts(&s, 4, part, len, place));
    EQ_INT(place[0], 1);
    for (size_t i = 1; i < 4; i++)
        EQ_INT(place[i], place[i - 1] + len[i - 1] + 1);
    size_t one = site_spill_put(&s, "alone", 5);
    EQ_INT(one, place[3] + len[3] + 1);
    size_t room = site_spill_reserve(&s, 8); /* 7 bytes and their NUL */
    EQ_INT(room, one + 6);
    /* more parts than a page has: none written */
    const char *five[] = { "a", "b", "c", "d", "e" };
    const size_t five_len[] = { 1, 1, 1, 1, 1 };
    size_t five_place[5] = { 9, 9, 9, 9, 9 };
    OK(!site_spill_put_parts(&s, 5, five, five_len, five_place));
    for (size_t i = 0; i < 5; i++)
        EQ_INT(five_place[i], 0);
    OK(site_spill_at(&s, place[0]) == NULL); /* not mapped yet */
    diag_list *d = diag_list_new();
    OK(site_spill_map(&s, d));
    EQ_INT(diag_count(d), 0);
    for (size_t i = 0; i < 4; i++)
        OK(shows(&s, place[i], part[i], len[i]));
    OK(shows(&s, one, "alone", 5));
    OK(site_spill_write(&s, room, "written", 7));
    OK(shows(&s, room, "written", 7));
    OK(!site_spill_write(&s, room, "too long", 8)); /* past the file's end */
    site_spill_trim(&s);
    OK(shows(&s, place[2], big, big_n)); /* read again from the file */
    EQ_INT(entries(), 0);
    site_spill_free(&s);
    diag_list_free(d);
    free(big);
    EQ_INT(entries(), 0);
    rmdir(dir);
}

/* Without a file (a session, or a folder it cannot be made in) the bytes
 * stay with the caller. */
TEST(no_file)
{
    site s = { 0 };
    OK(!site_spill_open(&s, "/nonexistent/folder"));
    const char *part[] = { "x" };
    const size_t len[] = { 1 };
    size_t place[1] = { 7 };
    OK(!site_spill_put_parts(&s, 1, part, len, place));
    EQ_INT(place[0], 0);
    EQ_INT(site_spill_put(&s, "x", 1), 0);
    EQ_INT(site_spill_reserve(&s, 2), 0);
    OK(site_spill_at(&s, 1) == NULL);
}

int main(void)
{
    RUN(parts_in_one_write);
    RUN(no_file);
    return harness_done();
}
