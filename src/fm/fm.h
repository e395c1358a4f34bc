/* fm: front matter — split a source file into its YAML head and Markdown
 * body, and turn YAML (front matter, site.yaml, `sheaf render --data`) into
 * template values with libyaml. libyaml objects never leave this folder.
 *
 * Scalars resolve as PyYAML/Jekyll do (YAML 1.1): null/~/empty, bools
 * (true/false/yes/no/on/off), ints, floats, timestamps → TPL_DATE; quoted
 * scalars are strings; anchors, aliases and `<<` merge keys work. */
#ifndef SHEAF_FM_H
#define SHEAF_FM_H

#include <stdbool.h>

#include "diag/diag.h"
#include "value/value.h"
#include "util/arena.h"
#include "util/str.h"

typedef struct fm_split {
    bool has_front_matter;
    str yaml;      /* between the fences (empty when none) */
    str body;      /* the Markdown after the closing fence (or the whole file) */
    int yaml_line; /* 1-based line of the file where `yaml` starts */
    int body_line; /* 1-based line of the file where `body` starts */
} fm_split;

/* Splits src (a whole file). A first line `---` opens front matter; a line
 * `---` or `...` closes it. A missing closing fence is an error reported at
 * the opening fence (path:1:1). Returns false on error. */
bool fm_split_source(str src, const char *path, fm_split *out, diag_list *d);

/* Parses YAML text into a value allocated in `a`. `first_line` is the file
 * line where `yaml` starts, so errors point into the file. An empty document
 * gives an empty map. Errors (`path:line:col: error: …`) go to d; returns
 * false on error. */
bool fm_parse_yaml(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                   diag_list *d);

/* Where each key of each mapping was written, for every message about a
 * key: "unknown key" and "wrong type" when the file is read, and later ones
 * (a `template:` that names no template) alike. fm_parse_yaml_pos is
 * fm_parse_yaml plus one record per key of every mapping in the document
 * (nested mappings first, each mapping's keys in its order; the records and
 * their array are in `a`). A key written twice has the later place; keys
 * merged in with `<<` have the place of the `<<`; keys that are not
 * strings are recorded as text. */
typedef struct fm_key_pos {
    const tpl_map *map;  /* the mapping the key is in */
    const char *key;
    int line, col;       /* of the key */
    int vline, vcol;     /* of the value */
} fm_key_pos;
bool fm_parse_yaml_pos(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d);
/* The record of `key` in mapping m, or NULL. */
const fm_key_pos *fm_key_find(const fm_key_pos *pos, size_t npos, const tpl_map *m,
                              const char *key);

#endif
