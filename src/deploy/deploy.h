/* deploy: publishing a freshly built output folder.
 *
 * `sheaf deploy` builds into a fresh folder, then syncs it to the site's
 * deploy target. A local target is synced here: plan (compare the two trees
 * by size and content) then apply (each new or changed file is written to a
 * temporary name in its own folder and renamed over the old one, then stale
 * files and folders are removed), so an interrupted deploy leaves only
 * complete files behind. A remote target (`host:path`) is handed to rsync,
 * run without a shell.
 *
 * A local target holds `.sheaf-manifest` (util/manifest.h): the files sheaf
 * deployed there. Only those are ever removed; anything else (a `.git`, a
 * CNAME) stays, and one that stands where the deploy writes is an error
 * unless `force`. A non-empty target without a manifest (a top-level `.git`
 * aside) is refused unless `force`. */
#ifndef SHEAF_DEPLOY_H
#define SHEAF_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "util/buf.h"

typedef enum deploy_action {
    DEPLOY_ADD,    /* a file the target lacks */
    DEPLOY_CHANGE, /* a file whose size or bytes differ (or a folder there) */
    DEPLOY_REMOVE, /* a file or folder of sheaf's no longer produced */
    DEPLOY_KEEP    /* not sheaf's: left alone (listed by --dry-run only) */
} deploy_action;

typedef struct deploy_item {
    deploy_action action;
    bool dir;   /* DEPLOY_REMOVE of a folder (its contents come before it) */
    char *path; /* relative to both roots, '/'-separated; owned by the plan */
    const char *why; /* a few words for --dry-run: "new", "changed", … */
} deploy_item;

/* What a sync would do. Items are in apply order: files to write (in tree
 * order), then removals, deepest first. Counts are of files, except that
 * `removed` also counts folders. */
typedef struct deploy_plan {
    deploy_item *items;
    size_t len, cap;
    size_t added, changed, removed, unchanged;
    char **produced; /* every file of the build: the target's next manifest */
    size_t nproduced, capproduced;
    char **listed;   /* the target's manifest before */
    size_t nlisted, caplisted;
} deploy_plan;

#define DEPLOY_PLAN_INIT { 0 }

/* Frees the items; the plan is DEPLOY_PLAN_INIT again. NULL is a no-op. */
void deploy_plan_free(deploy_plan *p);

/* Whether target names an rsync destination (`host:path`, `user@host:path`,
 * `rsync://…`) rather than a local folder: as rsync decides, a ':' before
 * any '/'. */
bool deploy_is_remote(const char *target);

/* Refuses a local target that would destroy the site or the build: the site
 * folder itself or a folder above it, a folder inside the site's .git/
 * (its history), content/, static/, templates/, themes/ or data/ (the next
 * build would read it), the build folder, a folder inside the build folder,
 * or one above it. Paths need not exist (the target usually
 * does not yet); they are compared after resolving what exists. Returns
 * false after reporting why to d. */
bool deploy_check_target(const char *site_dir, const char *build_dir, const char *target,
                         diag_list *d);

/* Compares the tree at src with the tree at target (which may be missing)
 * and fills p (which must be DEPLOY_PLAN_INIT). Symbolic links in the target
 * are never followed: they count as files to replace or remove. Only files
 * in the target's manifest are removed (and temporary files of an
 * interrupted deploy); a folder only when nothing else is left in it.
 * Returns false after reporting to d when a folder cannot be read, the
 * target is not empty and has no manifest, or something sheaf did not
 * write is in the way (the last two are fine with `force`). */
bool deploy_plan_make(const char *src, const char *target, bool force, deploy_plan *p,
                      diag_list *d);

/* Carries out p: creates target (its parent must exist) and folders as
 * needed, lists in the target's manifest what it had and what is coming,
 * writes each added or changed file to a temporary name beside it and
 * renames it into place, removes stale files and folders, and writes the
 * manifest of what the target now holds. Stops at the first failure, after
 * reporting it to d, leaving every file in target either as it was or
 * complete (and listed if it is sheaf's); returns false then. `max_ops` > 0 stops
 * (successfully) after that many items, as an interruption would: tests use
 * it; callers pass 0. */
bool deploy_apply(const char *src, const char *target, const deploy_plan *p, size_t max_ops,
                  diag_list *d);

/* Appends one line per item, for --dry-run: `+ path (new)`, `~ path
 * (changed)`, `- path (why)`, `= path (kept: why)`; folders end in '/'. */
void deploy_plan_list(const deploy_plan *p, buf *out);

/* Appends the summary line (no newline):
 * `deployed to DIR: 3 added, 1 changed, 2 removed` (or `would deploy …`). */
void deploy_plan_summary(const deploy_plan *p, const char *target, bool dry_run, buf *out);

/* Builds the rsync command line for copying the contents of src to the
 * remote target: `rsync -rlc --delete --delay-updates -p --chmod=D755,F644
 * --exclude=/.git --itemize-changes --stats [--dry-run] -- SRC/ TARGET`,
 * a remote path starting with '-' written ./-path. `rsync` names the
 * program (NULL: "rsync" on PATH). Returns a NULL-terminated vector; the
 * caller frees it with deploy_argv_free. */
char **deploy_rsync_argv(const char *rsync, const char *src, const char *target, bool dry_run);
void deploy_argv_free(char **argv);

/* Why rsync must not be given target (a control character, a leading
 * '-', a host starting with '-': ssh would read it as an option), or NULL. */
const char *deploy_rsync_target_problem(const char *target);

/* Runs rsync (as deploy_rsync_argv builds it, no shell), appending its
 * list of changes to `out` (its summary is checked, then cut off). When
 * the target is refused (deploy_rsync_target_problem), rsync is missing,
 * exits non-zero, or exits 0 without the itemized changes and summary a
 * transfer prints, reports an error to d (quoting what rsync wrote on
 * stderr) and returns false. rsync honours RSYNC_RSH from the environment. */
bool deploy_rsync(const char *rsync, const char *src, const char *target, bool dry_run, buf *out,
                  diag_list *d);

#endif
