/* import/source.c: reading the old site, and only inside it: the walk
 * with the build's rule for symbolic links, a page's front matter and a
 * config file (YAML as Jekyll and Hugo read it: a key written twice, the
 * last wins), and a config value whatever its case. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/internal.h"
#include "fm/fm.h"
#include "util/fs.h"
#include "util/text.h"
#include "util/vec.h"

/* ---- the source's containment rule ------------------------------------ */

#define OUTSIDE_TODO "not imported: it leads outside the source folder, and the import reads nothing from outside it"

/* fs_strerror, in the import's words for FS_EOUTSIDE */
const char *import_src_strerror(int e)
{
    return e == FS_EOUTSIDE ? "it leads outside the source folder, and the import reads nothing from outside it"
                            : fs_strerror(e);
}

bool import_src_inside(imp *m, const char *rel, const char *what)
{
    if (fs_within(m->src_real, import_src_path(m, rel)))
        return true;
    if (what)
        diag_error(m->d, import_src_path(m, rel), 0, 0, "%s leads outside the source folder: the import "
                   "reads nothing from outside it", what);
    else
        diag_error(m->d, import_src_path(m, rel), 0, 0, "cannot read: %s", import_src_strerror(FS_EOUTSIDE));
    return false;
}

typedef struct src_walk {
    imp *m;
    const char *dir_rel; /* "" or "content/" */
    const char *root;    /* SRC/dir_rel */
    void (*fn)(void *ctx, const char *rel);
    void *ctx;
    int err;
} src_walk;

static void src_visit(void *vctx, const char *rel, fs_kind kind, int err)
{
    src_walk *w = vctx;
    imp *m = w->m;
    if (kind == FS_UNREADABLE) {
        w->err = err;
        return;
    }
    if (kind == FS_FILE) {
        w->fn(w->ctx, rel);
        return;
    }
    const char *full = arena_printf(m->a, "%s/%s", w->root, rel);
    const char *shown = arena_printf(m->a, "%s%s", w->dir_rel, rel);
    char target[4096];
    ssize_t tn = readlink(full, target, sizeof target - 1);
    target[tn > 0 ? tn : 0] = 0;
    const char *what = arena_printf(m->a, "a symbolic link to '%s'", target);
    char *real = realpath(full, NULL);
    struct stat st;
    if (!real || stat(real, &st) != 0)
        w->fn(w->ctx, rel); /* to nowhere: its reader says so */
    else if (!fs_inside(real, m->src_real))
        import_note_add(m, shown, 0, 0, what, OUTSIDE_TODO);
    else if (S_ISREG(st.st_mode))
        w->fn(w->ctx, rel);
    else if (S_ISDIR(st.st_mode))
        import_note_add(m, shown, 0, 0, what,
                        "not imported: the import does not follow a linked folder (copy the folder here)");
    else
        import_note_add(m, shown, 0, 0, what, "not imported: not a regular file");
    free(real);
}

bool import_walk(imp *m, const char *dir_rel, bool skip_hidden, void (*fn)(void *ctx, const char *rel),
                 void *ctx)
{
    const char *root = dir_rel[0] ? import_src_path(m, dir_rel) : m->o->src;
    src_walk w = { m, dir_rel[0] ? arena_printf(m->a, "%s/", dir_rel) : "", root, fn, ctx, 0 };
    if (dir_rel[0] && !import_src_inside(m, dir_rel, arena_printf(m->a, "the folder %s", dir_rel)))
        return true; /* said */
    bool ok = fs_visit(root, skip_hidden, src_visit, &w);
    if (!ok && w.err)
        errno = w.err;
    return ok;
}

tpl_value import_get(const tpl_map *m, const char *key)
{
    for (size_t i = 0; m && i < m->len; i++) {
        tpl_value k = m->entries[i].key;
        if (k.kind == TPL_STRING && k.len == strlen(key) && !strncasecmp(k.u.s, key, k.len))
            return m->entries[i].value;
    }
    return tpl_undefined();
}

const char *import_get_str(const tpl_map *m, const char *key)
{
    tpl_value v = import_get(m, key);
    return v.kind == TPL_STRING ? v.u.s : NULL;
}

void import_key_place(const fm_key_pos *pos, size_t npos, const tpl_map *m, const char *key, int *line,
                   int *col)
{
    *line = *col = npos ? 1 : 0; /* 0: no place to give */
    for (size_t i = 0; i < npos; i++)
        if (pos[i].map == m && !strcasecmp(pos[i].key, key)) {
            *line = pos[i].line;
            *col = pos[i].col;
        }
}

/* ---- reading ---------------------------------------------------------- */

/* YAML as Jekyll and Hugo read it: a key written twice is taken, the last
 * one winning, and each such key is listed (sheaf's own reading refuses
 * it; the import writes the map again, each key once). */
static bool yaml_last_wins(imp *m, const char *rel, const char *what, str text, int line, tpl_value *out,
                           fm_key_pos **pos, size_t *npos)
{
    const char *path = import_src_path(m, rel);
    diag_list *pd = diag_list_new();
    bool ok = fm_parse_yaml_pos_flags(text, line, path, m->a, out, FM_DUPS_LAST_WINS, pos, npos, pd);
    for (size_t i = 0; i < diag_count(pd); i++) {
        const diag *e = diag_get(pd, i);
        if (e->level == DIAG_WARNING) {
            const char *msg = !strncmp(e->message, "YAML: ", 6) ? e->message + 6 : e->message;
            import_note_add(m, rel, e->line, e->col, what,
                            arena_printf(m->a, "%s, as %s did", msg,
                                         m->o->kind == IMPORT_JEKYLL ? "Jekyll" : "Hugo"));
        } else {
            diag_add(m->d, e->level, e->path, e->line, e->col, "%s", e->message);
        }
    }
    diag_list_free(pd);
    return ok;
}

bool import_read_page(imp *m, const char *rel, fm_split *sp, tpl_value *fm, fm_key_pos **pos,
                   size_t *npos, buf *text)
{
    const char *path = import_src_path(m, rel);
    if (!fs_read_file_within(m->src_real, path, FS_READ_MAX, text)) {
        diag_error(m->d, path, 0, 0, "cannot read: %s", import_src_strerror(errno));
        return false;
    }
    size_t bad = text_utf8_check(text->data, text->len);
    if (bad != (size_t)-1) {
        int line = 1, col = 1;
        for (size_t i = 0; i < bad; i++)
            text->data[i] == '\n' ? (line++, col = 1) : col++;
        diag_error(m->d, path, line, col, "not valid UTF-8 (save the file as UTF-8, then import again)");
        return false;
    }
    if (!fm_split_source(str_make(text->data, text->len), path, sp, m->d))
        return false;
    if (!sp->has_front_matter || sp->format != FM_YAML)
        return fm_parse_head(sp, path, m->a, fm, pos, npos, m->d);
    return yaml_last_wins(m, rel, "front matter", sp->head, sp->head_line, fm, pos, npos);
}

bool import_read_config(imp *m, const char *rel, tpl_value *out)
{
    const char *path = import_src_path(m, rel);
    buf b = BUF_INIT;
    if (!fs_read_file_within(m->src_real, path, FS_READ_MAX, &b)) {
        diag_error(m->d, path, 0, 0, "cannot read: %s", import_src_strerror(errno));
        buf_release(&b);
        return false;
    }
    char *text = arena_strndup(m->a, b.data, b.len);
    str s = str_make(text, b.len);
    buf_release(&b);
    fm_key_pos *pos;
    size_t npos;
    size_t n = strlen(rel);
    if (n > 5 && !strcmp(rel + n - 5, ".toml"))
        return fm_parse_toml_pos(s, 1, path, m->a, out, &pos, &npos, m->d);
    if (n > 5 && !strcmp(rel + n - 5, ".json"))
        return fm_parse_json_pos(s, 1, path, m->a, out, &pos, &npos, m->d);
    return yaml_last_wins(m, rel, "settings", s, 1, out, &pos, &npos);
}
