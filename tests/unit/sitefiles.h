/* sitefiles: the files of a site a unit test builds, under root/site/
 * (root: the test's own temporary folder, made with mkdtemp). */
#ifndef SHEAF_TEST_SITEFILES_H
#define SHEAF_TEST_SITEFILES_H

#include <stdio.h>
#include <stdlib.h>

static char root[256];

/* Writes root/site/rel (its folders made first) with text. */
static void put(const char *rel, const char *text)
{
    char path[512], cmd[600];
    snprintf(path, sizeof path, "%s/site/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    if (system(cmd) != 0)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

#endif
