/* manifest: the list of files sheaf wrote in a folder — `.sheaf-manifest`
 * at the top of a build's output folder and of a local deploy target. sheaf
 * removes only files listed there (docs/publishing.md).
 *
 * The file: a first line naming it, then one path a line, relative to the
 * folder, sorted, '\' written "\\" and a newline "\n". An entry that is not a
 * plain relative path (absolute, empty, "." or ".." components) is ignored
 * when read: it is not trusted to name a file of sheaf's.
 *
 * A build's output folder's manifest also says which generation of the
 * output the folder is and what its spare (the previous generation, kept
 * beside it: docs/internals.md, "The commit") should be: lines after the
 * first that start with '\' and a word, which a plain path cannot (a
 * path's '\' is written "\\"), so a sheaf without them ignores them:
 *   \generation N SPARE     N: 1, 2, …; SPARE: the 16 hex digits of the
 *                            hash of the spare's manifest file, 0 for none
 *   \changed PATH           a path whose file is not the spare's (written,
 *                            added or removed by the build that made it)
 *   \user PATH              a file, link or empty folder someone else put
 *                            in the folder, carried over by that build
 *   \base HASH              this tree was the spare whose manifest had
 *                            this hash, brought up to date in place
 *   \folder STAMP D PATH    a folder of the tree this build replaced (the
 *                            one its \generation line names), as the build
 *                            saw it: STAMP the 16 hex digits of its stamp
 *                            (who it is and its times; 0: not to be
 *                            trusted), D '+' when it held files of sheaf's
 *                            itself, else '-' (docs/internals.md, "The
 *                            commit", says what a stamp proves)
 *   \own STAMP D PATH       a folder of this tree itself, as the build
 *                            that staged the tree whole saw it just before
 *                            its exchange (the same fields as \folder): the
 *                            records of this tree when no build has walked
 *                            it yet */
#ifndef SHEAF_MANIFEST_H
#define SHEAF_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define MANIFEST_NAME ".sheaf-manifest"

struct strmap;

/* A \folder line. */
typedef struct manifest_folder {
    char *path;     /* into the manifest's text */
    uint64_t stamp; /* 0: seen, but not to be trusted */
    bool direct;    /* it held files of sheaf's itself (not only in folders below) */
} manifest_folder;

typedef struct manifest {
    struct strmap *paths; /* path → its index in list; keys point into text */
    char **list;          /* the same paths, in the file's order */
    size_t n, cap;
    char *text;           /* the file's bytes, unescaped in place */
    size_t len;           /* the file's length */
    uint64_t hash;        /* hash_bytes of the file's bytes, as read */
    unsigned long long generation; /* 0: none said */
    uint64_t spare;       /* the hash its spare's manifest should have; 0: none */
    char **changed, **user; /* the \changed and \user paths (into text) */
    size_t nchanged, nuser, capchanged, capuser;
    bool sorted;          /* list is in byte order (as written) */
    uint64_t base;        /* \base: the spare this tree was made from; 0: none */
    manifest_folder *folders; /* the \folder lines, in the file's order */
    size_t nfolders, capfolders;
    manifest_folder *own; /* the \own lines, in the file's order */
    size_t nown, capown;
    bool dropped;         /* manifest_drop_paths: paths and list gone */
    size_t paths_from;    /* where the first path line starts in text, when plain_tail */
    bool plain_tail;      /* from there to the end: only the paths of list, one a
                           * line, none escaped, each line ending in a newline */
} manifest;

/* What a build's manifest says beyond its paths (see above). */
typedef struct manifest_gen {
    unsigned long long generation;
    uint64_t spare;
    char *const *changed;
    size_t nchanged;
    char *const *user;
    size_t nuser;
    uint64_t base;                  /* 0: no \base line */
    const manifest_folder *folders; /* written in this order */
    size_t nfolders;
    const manifest_folder *own;     /* the \own lines, written in this order */
    size_t nown;
    bool sorted;                    /* the paths are in byte order already */
    const manifest *same;           /* the paths are exactly same's list (and it is
                                     * plain_tail): its lines are copied, not formatted */
} manifest_gen;

/* Reads dir/.sheaf-manifest into m (which it initialises). false when
 * there is none, or the file is not a manifest: m is then empty. Free with
 * manifest_free either way. */
bool manifest_read(const char *dir, manifest *m);
/* Whether m lists rel. */
bool manifest_has(const manifest *m, const char *rel);
/* Lets go of m's paths (their list and index), keeping the rest (its hash,
 * \changed, \user and \folder lines): for a manifest whose paths are
 * known otherwise. Asking manifest_has of it afterwards is a bug: it
 * aborts. */
void manifest_drop_paths(manifest *m);
void manifest_free(manifest *m);
/* Appends the manifest file's bytes for the n paths (in any order). */
void manifest_format(char *const *paths, size_t n, buf *out);
/* manifest_format, with the generation lines of g before the paths (the
 * \folder and \own lines in g's order, the others sorted). */
void manifest_format_gen(char *const *paths, size_t n, const manifest_gen *g, buf *out);
/* Writes dir/.sheaf-manifest for the n paths through a temporary file and a
 * rename, so that it is always whole. false + errno. */
bool manifest_write(const char *dir, char *const *paths, size_t n);

#endif
