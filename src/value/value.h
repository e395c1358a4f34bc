/* value: the data that front matter, site.yaml, the site model and templates
 * share — none, bool, int, float, string, date, list, map (plus undefined and
 * the template engine's own callables).
 *
 * THE RULE: a value is immutable once it has been handed to anyone else.
 * Values live in an arena: site data (front matter, pages, collections) in
 * the site arena, which outlives every render; temporaries of one render in
 * that render's scratch arena, reset after the page. A value may point into
 * an older (longer-lived) arena, never into a younger one. Because nothing
 * is mutated after construction, many threads may read the site's values at
 * once without locks. Nothing here is reference-counted or freed one by one.
 *
 * THE EXCEPTION: a build session (`sheaf serve`) keeps the site model
 * between runs, and after an edit that leaves every page where it was, it
 * updates a page's map in place instead of building the model again: with
 * tpl_map_update, and nowhere else, an entry's value is replaced (its key
 * and place stay, so the map's index and every hint stay right). This
 * happens only between renders, on the session's thread, while no other
 * thread reads the model (render/session.c calls site/model.c's
 * site_update_*_fields, which call tpl_map_update); the map's `owner` has
 * recorded which outputs read the entry, and those are rendered again.
 * SHEAF_CHECK_INCREMENTAL=1 checks the outcome against a full build.
 * The only other use: a bibliography entry's `reference`, set once per
 * render by its own job (render/jobs.c, render_references) before any job
 * that reads entries starts.
 *
 * A tpl_value is 16 bytes and passed by value.
 *
 * The names keep their historic tpl_ prefix: the type was the template
 * engine's before it became the stage that front matter, the site model and
 * templates all share. */
#ifndef SHEAF_VALUE_H
#define SHEAF_VALUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"

typedef enum tpl_kind {
    TPL_UNDEFINED = 0, /* a missing name/attribute/key: prints "", falsy */
    TPL_NONE,          /* YAML null, Jinja2 None */
    TPL_BOOL,
    TPL_INT,
    TPL_FLOAT,
    TPL_STRING,
    TPL_DATE,          /* an instant with the offset it was written in */
    TPL_LIST,
    TPL_MAP,
    TPL_OBJECT         /* engine-internal: macro, loop, namespace, caller… */
} tpl_kind;

/* flags */
#define TPL_SAFE 0x01     /* string is markup: not escaped on output */
#define TPL_HAS_TIME 0x02 /* date: a time of day was given */
#define TPL_HAS_ZONE 0x04 /* date: an offset was given (else UTC / naive) */
#define TPL_GROUP 0x08    /* map {grouper, list} from groupby: unpacks as a pair */
#define TPL_TUPLE 0x10    /* list: a Python tuple, printed (a, b) — literals, items(), varargs */

typedef struct tpl_list tpl_list;
typedef struct tpl_map tpl_map;

typedef struct tpl_value {
    uint8_t kind;   /* tpl_kind */
    uint8_t flags;
    uint16_t pad_;
    uint32_t len;   /* string: byte length; date: offset in minutes (int32) */
    union {
        bool b;
        int64_t i;
        double f;
        const char *s;        /* string bytes, NUL-terminated */
        int64_t t;            /* date: seconds since the epoch (UTC) */
        const tpl_list *list;
        const tpl_map *map;
        const void *obj;      /* TPL_OBJECT: engine-defined */
    } u;
} tpl_value;

struct tpl_list {
    size_t len;
    tpl_value items[];
};

typedef struct tpl_map_entry {
    tpl_value key; /* nearly always a string */
    tpl_value value;
} tpl_map_entry;

/* Insertion-ordered map. Keys are unique. Small maps are scanned; a map is
 * given a hash index by tpl_map_seal when it is large. */
struct tpl_map {
    /* 32 bits each, as the index's entries are: 40 bytes a map with the
     * lazy flag, not 48 (a model holds ten maps a page: 8 MB at 100,000
     * posts) */
    uint32_t len, cap;
    tpl_map_entry *entries;
    uint32_t *index;   /* open addressing over entries (NULL: scan); see value.c */
    uint32_t index_cap;
    uint32_t owner;    /* non-zero: reads are recorded (tpl_deps), see below */
    _Atomic uint32_t lazy; /* non-zero: entries filled on first read (tpl_lazy_hook) */
};

/* Dependency recording. A map with a non-zero `owner` (sheaf gives each
 * page's map one) reports every read of it to the thread's current
 * recorder, if any: one entry per key looked up, TPL_DEPS_ALL when the map
 * is read whole (iterated, printed, compared, converted). A build session
 * uses this to know which outputs read which page fields. */
#define TPL_DEPS_ALL 0xffffu
typedef struct tpl_deps {
    uint64_t *v;       /* owner << 16 | entry index (or TPL_DEPS_ALL) */
    size_t n, cap;
} tpl_deps;
/* Sets the calling thread's recorder (NULL: none); returns the old one. */
tpl_deps *tpl_deps_use(tpl_deps *d);
/* Sorts and drops repeats. */
void tpl_deps_finish(tpl_deps *d);
void tpl_deps_release(tpl_deps *d);
void tpl_deps_note(const tpl_map *m, long index); /* the slow path of the two below */
static inline void tpl_map_touch(const tpl_map *m, long index)
{
    if (m->owner)
        tpl_deps_note(m, index);
}
static inline void tpl_map_touch_all(const tpl_map *m) { tpl_map_touch(m, (long)TPL_DEPS_ALL); }
/* Records a read of m's entry (TPL_DEPS_ALL: of m whole) for the thread's
 * recorder, as tpl_map_touch does, but fills no lazy entry: for a reader
 * whose output depends on the map without looking at its entries (the
 * search index of a build session, which reads the page itself). */
void tpl_deps_record(const tpl_map *m, long index);
/* Lazy entries. A map whose `lazy` is set (an owned map: only those are
 * touched on every read) holds entries whose values are not made yet: the
 * hook set here is called with the map and the entry about to be read
 * (TPL_DEPS_ALL: all of them) before the reader looks at it, and fills the
 * entries with tpl_map_update, then clears `lazy` (release). This is the
 * second exception to THE RULE: it may happen while renders run, so the
 * hook fills under its own lock and every read of the map goes through
 * tpl_map_touch first (what the dependency recording already requires).
 * A one-shot build with the build cache uses it for the pages' bodies,
 * which stay on disk until a render reads them (site/bulk.c). One hook in
 * the process; fn NULL removes it. */
typedef void (*tpl_lazy_fn)(void *ctx, const tpl_map *m, long index);
void tpl_lazy_hook(tpl_lazy_fn fn, void *ctx);
/* The bits of `lazy`. A map may also lack its entries altogether
 * (TPL_LAZY_MAP: len 0 until made): the hook is then called with
 * TPL_LAZY_MAKE before anyone looks at its keys or length — by every
 * look-up by key (value.c), by tpl_map_touch_all (which readers of a map
 * whole call first), and by tpl_map_ready, which a reader of its length
 * calls; a reader that only guesses at what to fetch (a prefetch) skips a
 * map that is not made (tpl_map_made). The hook makes the entries under
 * its lock and then sets `lazy` to TPL_LAZY_ENTRIES or 0 (release). A
 * one-shot build with the render record uses it for the maps of pages
 * whose inputs are the last build's (site/model.c). */
#define TPL_LAZY_ENTRIES 1u
#define TPL_LAZY_MAP 2u
#define TPL_LAZY_MAKE (-1L)
void tpl_map_make(const tpl_map *m); /* the slow path of tpl_map_ready */
static inline bool tpl_map_made(const tpl_map *m)
{
    return !(atomic_load_explicit(&((tpl_map *)m)->lazy, memory_order_acquire) & TPL_LAZY_MAP);
}
static inline void tpl_map_ready(const tpl_map *m)
{
    if (!tpl_map_made(m))
        tpl_map_make(m);
}
/* The entry index of a string key, or -1 (not recorded). */
long tpl_map_find(const tpl_map *m, const char *key);
/* Where an expression last found its key in a map: maps made alike (every
 * page's) keep a key at the same place, so the next map is checked there
 * first. Safe to share between threads. (Only the place: a key's bytes may
 * be freed and their address reused by another key, so keys are always
 * compared by content.) */
typedef struct tpl_map_hint {
    _Atomic uint16_t index;
} tpl_map_hint;
/* tpl_map_get, trying the hinted entry first and leaving the found one in
 * the hint. */
tpl_value tpl_map_get_hinted(const tpl_map *m, const char *key, size_t klen, tpl_map_hint *hint);

/* Constructors. Strings are NOT copied by tpl_str: the bytes must live at
 * least as long as the value (use tpl_str_copy to copy into an arena). */
static inline tpl_value tpl_undefined(void) { tpl_value v = { 0 }; return v; }
static inline tpl_value tpl_none(void) { tpl_value v = { 0 }; v.kind = TPL_NONE; return v; }
static inline tpl_value tpl_bool(bool b) { tpl_value v = { 0 }; v.kind = TPL_BOOL; v.u.b = b; return v; }
static inline tpl_value tpl_int(int64_t i) { tpl_value v = { 0 }; v.kind = TPL_INT; v.u.i = i; return v; }
static inline tpl_value tpl_float(double f) { tpl_value v = { 0 }; v.kind = TPL_FLOAT; v.u.f = f; return v; }
static inline tpl_value tpl_strn(const char *s, size_t n)
{
    tpl_value v = { 0 };
    v.kind = TPL_STRING;
    v.len = (uint32_t)n;
    v.u.s = s;
    return v;
}
/* s NUL-terminated, not copied; inline, so that a literal's length is
 * known when compiled (a page's map is built of ≈ 30 named entries) */
static inline tpl_value tpl_str(const char *s) { return tpl_strn(s, strlen(s)); }
tpl_value tpl_str_copy(arena *a, const char *s, size_t n);
tpl_value tpl_safe_strn(const char *s, size_t n); /* markup, not copied */
/* A date: `t` seconds since the epoch, written at `offset_min` minutes east of
 * UTC; flags TPL_HAS_TIME / TPL_HAS_ZONE say what the source gave. */
tpl_value tpl_date(int64_t t, int32_t offset_min, uint8_t flags);
static inline int32_t tpl_date_offset(tpl_value v) { return (int32_t)v.len; }
struct sheaf_date;
/* A date value, or a string holding one (a YAML timestamp, or a time without
 * seconds: date_parse_loose), as a sheaf_date. False for anything else. */
bool tpl_value_as_date(tpl_value v, struct sheaf_date *out);

/* Lists: allocate with room for n, fill items[0..n), then hand out. */
tpl_list *tpl_list_new(arena *a, size_t n);
static inline tpl_value tpl_list_value(const tpl_list *l)
{
    tpl_value v = { 0 };
    v.kind = TPL_LIST;
    v.u.list = l;
    return v;
}

/* Maps: build with tpl_map_set (replaces an existing key, keeps its place),
 * then tpl_map_seal before sharing. */
tpl_map *tpl_map_new(arena *a, size_t cap_hint);
void tpl_map_set(arena *a, tpl_map *m, tpl_value key, tpl_value value);
static inline void tpl_map_set_str(arena *a, tpl_map *m, const char *key, tpl_value value)
{
    tpl_map_set(a, m, tpl_str(key), value);
}
void tpl_map_seal(arena *a, tpl_map *m);
/* Replaces the value of entry `index` of a sealed, shared map: THE ONE
 * EXCEPTION to the rule above, and only as it describes. */
void tpl_map_update(const tpl_map *m, size_t index, tpl_value value);
static inline tpl_value tpl_map_value(const tpl_map *m)
{
    tpl_value v = { 0 };
    v.kind = TPL_MAP;
    v.u.map = m;
    return v;
}
/* Lookup by string key; returns undefined when absent. */
tpl_value tpl_map_get(const tpl_map *m, const char *key, size_t klen);
static inline tpl_value tpl_map_get_cstr(const tpl_map *m, const char *key);
/* Lookup by any key value (Python equality: 1 == 1.0 == True). */
tpl_value tpl_map_get_value(const tpl_map *m, tpl_value key);

/* Equality as Python's == for these types. */
bool tpl_value_equal(tpl_value a, tpl_value b);
/* Truthiness as Python's bool(). */
bool tpl_value_truthy(tpl_value v);
/* Appends str(v) as Python/Jinja2 prints it (no escaping): None, True,
 * 1.0, 1e+20, [1, 'a'], {'k': 1}, 2024-03-18 10:00:00+08:00.
 * A list or map that shares its parts can print far larger than it is in
 * memory (ten levels of ten times the same list: 10^10 items), so the
 * printing of lists and maps stops once `out` holds more than
 * TPL_VALUE_TEXT_MAX bytes: a result longer than that is cut, and the
 * template engine reports it as too large. */
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define TPL_VALUE_TEXT_MAX ((size_t)1 << 26)
#else /* the fuzz targets (and the template engine's string bound with it) */
#define TPL_VALUE_TEXT_MAX ((size_t)1 << 20)
#endif
/* Lists and maps nested deeper than this (a loop that wraps a namespace's
 * list in a list 100,000 times) print their inner levels as "..." (Python's
 * mark for a list inside itself), compare unequal and do not order, rather
 * than walk as deep as the C stack goes. */
#define TPL_VALUE_MAX_DEPTH 1000
void tpl_value_to_str(tpl_value v, buf *out);
/* Appends an int in decimal, as str(i) (tpl_value_to_str's, without printf). */
void tpl_put_int(buf *out, int64_t i);
/* Appends repr(v) as Python prints it: strings quoted ('a', "it's"), the
 * rest as tpl_value_to_str. */
void tpl_value_repr(tpl_value v, buf *out);

/* buf_putc without the call, for the byte loops of value printing, the
 * filters and output. */
static inline void tpl_putc(buf *b, char c)
{
    if (b->len + 2 > b->cap)
        buf_grow(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

static inline tpl_value tpl_map_get_cstr(const tpl_map *m, const char *key)
{
    return tpl_map_get(m, key, strlen(key));
}

#endif
