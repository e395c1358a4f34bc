/* fm: front matter — split a source file into its head and Markdown body,
 * and turn the head (YAML, TOML or JSON, as Jekyll and Hugo write them) and
 * the other YAML sheaf reads (site.yaml, `sheaf render --data`) into
 * template values. libyaml and toml++ objects never leave this folder.
 *
 * Every format gives the same tree (value/value.h) and the same key
 * positions (fm_key_pos), so what reads front matter never asks which
 * format it was.
 *
 * YAML scalars resolve as PyYAML/Jekyll do (YAML 1.1): null/~/empty, bools
 * (true/false/yes/no/on/off), ints, floats, timestamps → TPL_DATE; quoted
 * scalars are strings; anchors, aliases and `<<` merge keys work. TOML is
 * TOML 1.0 (toml.c); JSON is RFC 8259 (json.c). */
#ifndef SHEAF_FM_H
#define SHEAF_FM_H

#include <stdbool.h>

#include "diag/diag.h"
#include "value/value.h"
#include "util/arena.h"
#include "util/str.h"

struct fm_key_pos;

typedef enum fm_format {
    FM_YAML, /* between `---` lines (Jekyll, Hugo, sheaf) */
    FM_TOML, /* between `+++` lines (Hugo) */
    FM_JSON  /* a `{…}` object at the top of the file (Hugo) */
} fm_format;

typedef struct fm_split {
    bool has_front_matter;
    fm_format format;
    str head;      /* the front matter: between the fences, or the JSON
                    * object with its braces (empty when none) */
    str body;      /* the Markdown after the front matter (or the whole file) */
    int head_line; /* 1-based line of the file where `head` starts */
    int body_line; /* 1-based line of the file where `body` starts */
} fm_split;

/* Splits src (a whole file). After an optional UTF-8 byte order mark, a
 * first line `---` opens YAML front matter, closed by a line `---` or
 * `...`; a first line `+++` opens TOML, closed by a line `+++`; a `{`
 * followed by a blank, a newline, `"` or `}` starts a JSON object, which
 * ends at its matching `}` (the rest of that line must be blank). A fence
 * line may end in blanks. A missing end is an error reported at the
 * opening fence (path:1:1). Returns false on error. */
bool fm_split_source(str src, const char *path, fm_split *out, diag_list *d);

/* Parses the front matter of a split in its format: fm_parse_yaml_pos,
 * fm_parse_toml_pos or fm_parse_json_pos (below). Without front matter,
 * an empty mapping. */
bool fm_parse_head(const fm_split *sp, const char *path, arena *a, tpl_value *out,
                   struct fm_key_pos **pos, size_t *npos, diag_list *d);

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
/* The site's own files are read with fm_parse_yaml_pos, and there a value
 * holding a character XML 1.0 forbids (a control character written as an
 * escape, "\x07", "\0") is an error at the value: any of their values may
 * reach atom.xml or sitemap.xml (util/xmlchar.h). fm_parse_yaml (the data
 * of `sheaf render --data`) lets them through. */
bool fm_parse_yaml_pos(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d);
/* fm_parse_yaml_pos with flags: FM_DUPS_LAST_WINS makes a key written twice
 * a warning, the last one winning, as Jekyll's YAML reader (Ruby's Psych)
 * has it — for `sheaf import jekyll`, which carries over a site Jekyll
 * built; everywhere else it is an error. */
enum { FM_DUPS_LAST_WINS = 1 };
bool fm_parse_yaml_pos_flags(str yaml, int first_line, const char *path, arena *a, tpl_value *out,
                             unsigned flags, fm_key_pos **pos, size_t *npos, diag_list *d);
/* TOML 1.0 (through toml++, toml_walk.cc) and JSON (RFC 8259), as
 * fm_parse_yaml_pos reads YAML: the root must be a table/object; `first_line`
 * is the file line the text starts on. TOML dates and date-times become
 * dates (local ones as UTC), a local time of day the string "07:32:00". */
bool fm_parse_toml_pos(str toml, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d);
bool fm_parse_json_pos(str json, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d);
/* A whole JSON file of any value (an object, a list, a string, …), as
 * fm_parse_json_pos reads front matter: a data file. */
bool fm_parse_json_value(str json, const char *path, arena *a, tpl_value *out, diag_list *d);
/* fm_parse_json_value with the places of what is in it, for a file whose
 * items are checked one by one (a CSL-JSON bibliography, bib/csljson.h):
 * every key as fm_parse_json_pos records it, and where each list item
 * starts (its first character). Both arrays are in a. */
typedef struct fm_item_pos {
    const tpl_list *list;
    size_t index;
    int line, col;
} fm_item_pos;
bool fm_parse_json_value_pos(str json, const char *path, arena *a, tpl_value *out, fm_key_pos **pos,
                             size_t *npos, fm_item_pos **items, size_t *nitems, diag_list *d);
/* The record of `key` in mapping m, or NULL. */
const fm_key_pos *fm_key_find(const fm_key_pos *pos, size_t npos, const tpl_map *m,
                              const char *key);

#endif
