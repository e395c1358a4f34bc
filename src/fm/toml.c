/* toml: TOML front matter → template values, from the events of
 * toml_walk.cc (toml++). Tables become maps in the order their keys are
 * written, arrays lists; a date or date-time becomes a date (a local one
 * is taken as UTC, as YAML's are), a local time of day the string
 * "07:32:00". Key positions are recorded as fm_parse_yaml_pos records them. */
#include <stdlib.h>

#include "fm/fm.h"
#include "fm/toml_walk.h"
#include "util/date.h"
#include "util/vec.h"
#include "util/xalloc.h"

typedef struct frame {
    bool is_table;
    tpl_map *map;
    tpl_value *items;   /* arrays: n slots in the arena */
    size_t n, filled;
    /* where this table's or array's own entry goes in its parent */
    tpl_value key;
    int key_line, key_col, line, col;
    size_t first_pos;   /* tables: its keys' records start here in `keys` */
} frame;

typedef struct key_rec {
    tpl_value key;
    int line, col, vline, vcol;
} key_rec;

typedef struct composer {
    arena *a;
    int line0;          /* added to toml++'s lines: the file line before the TOML */
    frame *stack;
    size_t depth, capstack;
    key_rec *keys;      /* pending records of the open tables' keys */
    size_t nkeys, capkeys;
    fm_key_pos *pos;    /* finished records */
    size_t npos, cappos;
    tpl_value root;
    bool bad_date;
    int bad_line, bad_col;
} composer;

/* Adds v, written at ev, to the innermost open table or array. */
static void put(composer *c, const fm_toml_event *ev, tpl_value v)
{
    if (!c->depth) {
        c->root = v;
        return;
    }
    frame *f = &c->stack[c->depth - 1];
    if (f->is_table) {
        tpl_value k = tpl_str_copy(c->a, ev->key ? ev->key : "", ev->key ? ev->key_len : 0);
        tpl_map_set(c->a, f->map, k, v);
        key_rec *r = VEC_ADD(c->keys, c->nkeys, c->capkeys, 16);
        r->key = k;
        r->line = c->line0 + ev->key_line;
        r->col = ev->key_col;
        r->vline = c->line0 + ev->line;
        r->vcol = ev->col;
    } else if (f->filled < f->n) {
        f->items[f->filled++] = v;
    }
}

static void on_event(void *ctx, const fm_toml_event *ev)
{
    composer *c = ctx;
    tpl_value v;
    switch (ev->kind) {
    case FM_TOML_TABLE:
    case FM_TOML_ARRAY: {
        frame *f = VEC_ADD(c->stack, c->depth, c->capstack, 8);
        memset(f, 0, sizeof *f);
        f->is_table = ev->kind == FM_TOML_TABLE;
        f->n = ev->n;
        if (f->is_table)
            f->map = tpl_map_new(c->a, ev->n);
        else
            f->items = ev->n ? arena_alloc(c->a, ev->n * sizeof *f->items) : NULL;
        f->key = ev->key ? tpl_str_copy(c->a, ev->key, ev->key_len) : tpl_undefined();
        f->key_line = ev->key_line;
        f->key_col = ev->key_col;
        f->line = ev->line;
        f->col = ev->col;
        f->first_pos = c->nkeys;
        return;
    }
    case FM_TOML_END: {
        if (!c->depth)
            return;
        frame f = c->stack[--c->depth];
        if (f.is_table) {
            tpl_map_seal(c->a, f.map);
            v = tpl_map_value(f.map);
            /* this table's keys are complete: their records move to pos */
            for (size_t i = f.first_pos; i < c->nkeys; i++) {
                fm_key_pos *p = VEC_ADD(c->pos, c->npos, c->cappos, 16);
                p->map = f.map;
                p->key = c->keys[i].key.u.s;
                p->line = c->keys[i].line;
                p->col = c->keys[i].col;
                p->vline = c->keys[i].vline;
                p->vcol = c->keys[i].vcol;
            }
            c->nkeys = f.first_pos;
        } else {
            tpl_list *l = tpl_list_new(c->a, f.filled);
            if (f.filled)
                memcpy(l->items, f.items, f.filled * sizeof *f.items);
            v = tpl_list_value(l);
        }
        fm_toml_event at = { 0 };
        at.key = f.key.kind == TPL_STRING ? f.key.u.s : NULL;
        at.key_len = f.key.len;
        at.key_line = f.key_line;
        at.key_col = f.key_col;
        at.line = f.line;
        at.col = f.col;
        put(c, &at, v);
        return;
    }
    case FM_TOML_STRING: v = tpl_str_copy(c->a, ev->s, ev->len); break;
    case FM_TOML_INT: v = tpl_int(ev->i); break;
    case FM_TOML_FLOAT: v = tpl_float(ev->f); break;
    case FM_TOML_BOOL: v = tpl_bool(ev->b); break;
    case FM_TOML_TIME: v = tpl_str_copy(c->a, ev->s, ev->len); break;
    case FM_TOML_DATE: {
        sheaf_date d;
        if (date_parse(ev->s, ev->len, &d)) {
            v = tpl_date(d.t, d.offset_min,
                         (uint8_t)((d.has_time ? TPL_HAS_TIME : 0) | (d.has_zone ? TPL_HAS_ZONE : 0)));
        } else {
            /* a valid TOML date sheaf cannot hold (none known): say so */
            v = tpl_str_copy(c->a, ev->s, ev->len);
            if (!c->bad_date) {
                c->bad_date = true;
                c->bad_line = c->line0 + ev->line;
                c->bad_col = ev->col;
            }
        }
        break;
    }
    default: return;
    }
    put(c, ev, v);
}

bool fm_parse_toml_pos(str toml, int first_line, const char *path, arena *a, tpl_value *out,
                       fm_key_pos **pos, size_t *npos, diag_list *d)
{
    composer c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.line0 = (first_line > 0 ? first_line : 1) - 1;
    c.root = tpl_undefined();
    fm_toml_error err;
    bool ok = fm_toml_walk(toml.ptr, toml.len, on_event, &c, &err);
    if (!ok)
        diag_error(d, path, c.line0 + err.line, err.col, "TOML: %s", err.message);
    else if (c.bad_date)
        diag_error(d, path, c.bad_line, c.bad_col, "TOML: this date is out of the range sheaf handles");
    free(c.stack);
    free(c.keys);
    *out = ok && c.root.kind == TPL_MAP ? c.root : tpl_map_value(tpl_map_new(a, 0));
    if (pos) {
        *pos = c.npos ? arena_alloc(a, c.npos * sizeof **pos) : NULL;
        if (c.npos)
            memcpy(*pos, c.pos, c.npos * sizeof **pos);
        *npos = c.npos;
    }
    free(c.pos);
    return ok && !c.bad_date;
}
