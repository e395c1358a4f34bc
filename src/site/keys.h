/* keys: site.yaml and front matter read through tables of keys.
 *
 * A table row says a key's name, what it must hold, its default and the
 * field it goes to (an offset into the struct being filled: site_config or
 * page). site_keys_read checks a mapping against a table, fills the fields and
 * reports each problem at the key's line:col; the same rows set the
 * defaults (site_keys_default), copy the fields (site_keys_copy) and compare them
 * (site_keys_same), so a key added to a table is read, reset, kept by a build
 * session and checked for by a fast rebuild without another list to edit.
 *
 * Used by config.c (site.yaml) and front_matter.c (front matter) only. A synonym
 * (Hugo's `lastmod` for `updated`) is one more row with another name and the
 * same field; a key another generator acts on and sheaf has no equivalent
 * for is a KEY_NO_EQUIVALENT row (a warning); a new kind of value is one
 * more key_type, handled in keys.c. */
#ifndef SHEAF_SITE_KEYS_H
#define SHEAF_SITE_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "fm/fm.h"
#include "util/arena.h"
#include "value/value.h"

typedef enum key_type {
    KEY_STRING, /* const char *: a string */
    KEY_TEXT,   /* const char *: a string, or a number, bool or date written as text */
    KEY_BOOL,   /* bool: true or false */
    KEY_COUNT,  /* long: a whole number, 1 or more */
    KEY_WORD,   /* bool: words[0] (false) or words[1] (true) */
    KEY_MAP,    /* tpl_value: a mapping */
    KEY_DATE,   /* sheaf_date, and the bool at `set`: a date or timestamp */
    KEY_NAMES,  /* const char **, and the size_t count at `set`: one name or a
                 * list of them (numbers written as text) */
    KEY_TABLE,  /* a mapping whose keys are the rows of `sub` */
    KEY_READER, /* the row's `read` checks the value and fills the struct */
    KEY_NO_EQUIVALENT /* a key Jekyll or Hugo acts on and sheaf cannot: a
                       * warning at the key saying so (`want`: what it does
                       * there and what to do here); the value is left alone */
} key_type;

/* Row flags. */
enum {
    /* KEY_NAMES: duplicates and empty names are dropped (tags) */
    KEY_UNIQUE = 1,
    /* front matter: a build session applies a change of this key to the
     * page's value in place (site_update_head_fields) instead of
     * rebuilding; every other key's change makes a full rebuild */
    KEY_IN_PLACE = 2,
    /* KEY_BOOL: the field gets the opposite (Jekyll's `published: false`
     * is sheaf's `draft: true`) */
    KEY_NEGATE = 4
};

typedef struct key_reader key_reader;
typedef struct key_table key_table;
typedef struct key_def key_def;

struct key_def {
    const char *name;
    key_type type;
    size_t at;   /* offsetof the field the value goes to */
    size_t set;  /* KEY_DATE: offsetof its "given" bool; KEY_NAMES: of its count;
                    KEY_BOOL: of a bool set when the key is given (0: none) */
    const char *want; /* the type error says "'name' must be <want>" */
    const char *str_default; /* KEY_STRING, KEY_TEXT */
    long num_default;        /* KEY_BOOL, KEY_WORD (0 or 1), KEY_COUNT */
    const char *words[2];    /* KEY_WORD */
    const key_table *sub;    /* KEY_TABLE */
    /* KEY_READER: reads v, the value of row k in mapping m of table t, into
     * r->out; reports problems with site_keys_type_error (or at site_keys_place) */
    void (*read)(key_reader *r, const key_table *t, const key_def *k, const tpl_map *m,
                 tpl_value v);
    unsigned flags;
};

struct key_table {
    const char *prefix;   /* "" for the file's own keys, "markdown." for a nested table */
    const key_def *keys;
    size_t n;
    /* an unknown key is a warning at the key; `unknown_hint` follows its
     * name in the message, or NULL for "(known: <every row>)". When not
     * set, unknown keys are left alone (front matter: they are params) */
    bool warn_unknown;
    const char *unknown_hint;
    bool null_is_unset;   /* `key: ~` leaves the default */
    /* keys match their rows whatever their case (`Title:`, `expiryDate:`;
     * Hugo lowercases every key); messages name the key as written */
    bool any_case;
};

struct key_reader {
    const char *path;     /* the file, as messages name it */
    arena *a;             /* where read strings and lists go */
    diag_list *d;
    const fm_key_pos *pos; /* fm_parse_yaml_pos's records */
    size_t npos;
    void *out;            /* the struct the rows' offsets point into */
    bool ok;              /* false once an error was reported */
    /* while reading a nested table: its key in the outer mapping, which
     * places its keys that have no record of their own; errors then point
     * at the key, not at its value */
    const fm_key_pos *parent;
};

/* Sets every row's field (and a nested table's) to its default. MAP
 * defaults are empty mappings in a. */
void site_keys_default(const key_table *t, void *out, arena *a);
/* Reads mapping m (parsed with fm_parse_yaml_pos) through t into r->out,
 * in the mapping's order; keys that are not strings are left alone. */
void site_keys_read(const key_table *t, const tpl_map *m, key_reader *r);
/* Copies the field(s) of every row (only == 0) or of every row with one of
 * the flags in `only` from src to dst (structs of one type). */
void site_keys_copy(const key_table *t, void *dst, const void *src, unsigned only);
/* Whether every row without any of the flags in `skip` holds the same in a
 * and b (KEY_TABLE and KEY_READER rows are not compared: false). */
bool site_keys_same(const key_table *t, const void *a, const void *b, unsigned skip);

/* Where a key of mapping m was written: its record's key (nested) or value
 * (top level) line:col; without a record, the nested table's key's value,
 * or 1:1. */
void site_keys_place(const key_reader *r, const tpl_map *m, const char *key, int *line, int *col);
/* Reports "'<prefix><name>' must be <want>" at the key's place. */
void site_keys_type_error(key_reader *r, const key_table *t, const char *name, const tpl_map *m,
                     const char *want);

#endif
