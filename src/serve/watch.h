/* watch: which source files of a site changed, for `sheaf serve`.
 *
 * inotify watches content/, templates/, themes/ and static/ recursively
 * (folders created later are added as they appear) and site.yaml. A burst of
 * events is collected until the files have been quiet for a moment, editor
 * droppings (backups, swap files, lock files, hidden files) are left out,
 * and what is left is handed over as paths relative to the site folder,
 * sorted and without repeats: "content/posts/a.md", "site.yaml". */
#ifndef SHEAF_WATCH_H
#define SHEAF_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"

typedef struct watch watch;

/* Starts watching site_dir. Returns NULL after reporting into d. */
watch *watch_new(const char *site_dir, diag_list *d);
/* NULL does nothing. */
void watch_free(watch *w);

typedef struct watch_changes {
    char **paths; /* relative to the site folder; owned by the struct */
    size_t n;
    bool full;    /* something was lost or moved away: rebuild everything */
} watch_changes;

#define WATCH_CHANGES_INIT { NULL, 0, false }
void watch_changes_free(watch_changes *c);

typedef enum watch_result { WATCH_CHANGED, WATCH_STOP, WATCH_ERROR } watch_result;

/* Waits for changes. When one arrives, keeps collecting until every changed
 * file open for writing has been closed, then until the events pause:
 * quiet_ms when a file was deleted or moved away (an editor's rename-then-
 * write may bring it back), a few milliseconds when each is whole (closed
 * after writing, or moved into place); two seconds at most in all. Then
 * fills *out (emptied first) and returns WATCH_CHANGED. Returns WATCH_STOP
 * as soon as stop_fd (-1: none) is readable, and WATCH_ERROR after
 * reporting into d. */
watch_result watch_wait(watch *w, int stop_fd, int quiet_ms, watch_changes *out, diag_list *d);

/* Is this file name an editor's dropping, or hidden? ("a.md~", ".a.md.swp",
 * "4913", ".#a.md", "#a.md#", ".DS_Store") */
bool watch_ignored(const char *name);

#endif
