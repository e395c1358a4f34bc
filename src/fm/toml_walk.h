/* toml_walk: the C face of toml_walk.cc, the one C++ file of sheaf.
 *
 * TOML 1.0 is parsed by toml++ (Debian's libtomlplusplus-dev, used header
 * only); toml_walk.cc hands the parsed document to C as a stream of events
 * and toml.c composes them into template values. No C++ type, exception or
 * allocation crosses this interface. */
#ifndef SHEAF_FM_TOML_WALK_H
#define SHEAF_FM_TOML_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fm_toml_kind {
    FM_TOML_TABLE,  /* n entries follow, then FM_TOML_END */
    FM_TOML_ARRAY,  /* n items follow, then FM_TOML_END */
    FM_TOML_END,
    FM_TOML_STRING, /* s[0..len) */
    FM_TOML_INT,    /* i */
    FM_TOML_FLOAT,  /* f */
    FM_TOML_BOOL,   /* b */
    FM_TOML_DATE,   /* s: a date or date-time as RFC 3339 text ("1979-05-27",
                     * "1979-05-27T07:32:00.5", "1979-05-27T07:32:00-07:00") */
    FM_TOML_TIME    /* s: a local time of day, "07:32:00" or "07:32:00.5" */
} fm_toml_kind;

typedef struct fm_toml_event {
    fm_toml_kind kind;
    /* an entry of a table: its key (UTF-8, s[0..len) style) and where it
     * is written; key is NULL for array items, the root and END */
    const char *key;
    size_t key_len;
    int key_line, key_col;
    int line, col; /* where the value starts (1-based, in the TOML text) */
    size_t n;
    const char *s;
    size_t len;
    int64_t i;
    double f;
    bool b;
} fm_toml_event;

typedef struct fm_toml_error {
    char message[256];
    int line, col; /* 1-based, in the TOML text */
} fm_toml_error;

/* Parses text[0..len) as a TOML 1.0 document and calls fn for every node,
 * depth first: the root table, then each table's entries in the order they
 * are written in the text. Strings handed to fn live only during the call.
 * Returns false (with *err filled and fn never called) when the text is not
 * valid TOML. */
bool fm_toml_walk(const char *text, size_t len, void (*fn)(void *ctx, const fm_toml_event *ev),
                  void *ctx, fm_toml_error *err);

#ifdef __cplusplus
}
#endif

#endif
