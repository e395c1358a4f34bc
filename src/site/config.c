/* config: site.yaml → site_config, with a default for every key.
 * An unknown key is a warning at its line; a value of the wrong type is an
 * error at the value. No site.yaml at all is a valid (default) site. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "site/site.h"
#include "util/fs.h"
#include "util/url.h"
#include "util/xalloc.h"
#include <stdlib.h>

static const char *const known_keys[] = { "title", "description", "base_url", "author", "language",
                                          "theme", "permalinks", "paginate", "markdown", "links",
                                          "deploy", "params", NULL };

static bool type_error(diag_list *d, const char *path, const fm_key_pos *p, const char *key,
                       const char *want)
{
    diag_error(d, path, p ? p->vline : 1, p ? p->vcol : 1, "'%s' must be %s", key, want);
    return false;
}

/* Where `key` of a nested mapping is written: fm_parse_yaml_pos knows the
 * top-level keys only, so look in the text below the parent key (block
 * style: a more indented line `key:`; flow style: `key:` on the value's
 * line). Falls back to the parent's value. */
static void nested_pos(const char *text, const fm_key_pos *parent, const char *key, int *line,
                       int *col)
{
    *line = parent ? parent->vline : 1;
    *col = parent ? parent->vcol : 1;
    if (!parent)
        return;
    size_t kl = strlen(key);
    const char *s = text;
    for (int l = 1; l < parent->line && *s; l++) {
        s = strchr(s, '\n');
        if (!s)
            return;
        s++;
    }
    for (int l = parent->line; *s; l++) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        size_t ind = 0;
        while (ind < n && s[ind] == ' ')
            ind++;
        bool blank = ind == n || s[ind] == '#';
        if (l > parent->line && !blank && (int)ind < parent->col)
            return; /* back at the parent's level: not found */
        for (size_t i = l == parent->line ? (size_t)parent->col - 1 + kl : ind; i + kl < n; i++) {
            if (strncmp(s + i, key, kl) || (i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')))
                continue;
            size_t j = i + kl;
            while (j < n && s[j] == ' ')
                j++;
            if (j < n && s[j] == ':') {
                *line = l;
                *col = (int)i + 1;
                return;
            }
        }
        if (!eol)
            return;
        s = eol + 1;
    }
}

/* "https://x.io/notes" → base_url "https://x.io/notes/", origin
 * "https://x.io", base_path "/notes/"; "/blog" → "", "/blog/". */
static void split_base_url(arena *a, const char *in, site_config *c)
{
    buf b = BUF_INIT;
    buf_puts(&b, in && *in ? in : "/");
    if (b.data[b.len - 1] != '/')
        buf_putc(&b, '/');
    const char *s = b.data;
    const char *path = s + url_origin_len(s);
    if (path == s && s[0] != '/') {
        /* "notes/" → "/notes/" */
        buf c2 = BUF_INIT;
        buf_putc(&c2, '/');
        buf_puts(&c2, s);
        buf_release(&b);
        b = c2;
        s = b.data;
        path = s;
    }
    c->base_url = arena_strdup(a, s);
    c->origin = arena_strndup(a, s, (size_t)(path - s));
    c->base_path = arena_strdup(a, *path ? path : "/");
    buf_release(&b);
}

bool site_config_load(const char *site_dir, const char *base_url_override, arena *a,
                      site_config *c, diag_list *d)
{
    memset(c, 0, sizeof *c);
    c->title = "My notes";
    c->description = "";
    c->author = "";
    c->language = "en";
    c->theme = "default";
    c->paginate = 10;
    c->markdown.unsafe = true;
    c->params = tpl_map_value(tpl_map_new(a, 0));
    c->raw = tpl_map_value(tpl_map_new(a, 0));
    const char *base = "/";

    char *path = fs_join(site_dir, "site.yaml");
    const char *shown = strcmp(site_dir, ".") ? path : "site.yaml";
    buf text = BUF_INIT;
    bool ok = true;
    if (!fs_read_file(path, &text)) {
        if (errno != ENOENT) {
            diag_error(d, shown, 0, 0, "cannot read: %s", strerror(errno));
            ok = false;
        }
        goto finish;
    }
    shown = arena_strdup(a, shown);
    char *copy = arena_strndup(a, text.data, text.len);
    tpl_value v;
    fm_key_pos *pos;
    size_t npos;
    if (!fm_parse_yaml_pos(str_make(copy, text.len), 1, shown, a, &v, &pos, &npos, d)) {
        ok = false;
        goto finish;
    }
    if (v.kind != TPL_MAP) {
        diag_error(d, shown, 1, 1, "site.yaml must be a mapping of keys (title: …, base_url: …)");
        ok = false;
        goto finish;
    }
    c->raw = v;
    const tpl_map *m = v.u.map;
    for (size_t i = 0; i < m->len; i++) {
        tpl_value k = m->entries[i].key, val = m->entries[i].value;
        if (k.kind != TPL_STRING)
            continue;
        const char *key = k.u.s;
        const fm_key_pos *p = fm_key_find(pos, npos, m, key);
        bool known = false;
        for (size_t j = 0; known_keys[j]; j++)
            known |= !strcmp(known_keys[j], key);
        if (!known) {
            diag_warning(d, shown, p ? p->line : 1, p ? p->col : 1,
                         "unknown key '%s' (ignored; put your own values under 'params:')", key);
            continue;
        }
        if (val.kind == TPL_NONE)
            continue;
        if (!strcmp(key, "title") || !strcmp(key, "description") || !strcmp(key, "author") ||
            !strcmp(key, "language") || !strcmp(key, "theme") || !strcmp(key, "base_url")) {
            if (val.kind != TPL_STRING) {
                ok = type_error(d, shown, p, key, "a string");
                continue;
            }
            if (!strcmp(key, "title"))
                c->title = val.u.s;
            else if (!strcmp(key, "description"))
                c->description = val.u.s;
            else if (!strcmp(key, "author"))
                c->author = val.u.s;
            else if (!strcmp(key, "language"))
                c->language = val.u.s;
            else if (!strcmp(key, "theme"))
                c->theme = val.u.s;
            else
                base = val.u.s;
        } else if (!strcmp(key, "paginate")) {
            if (val.kind != TPL_INT || val.u.i < 1) {
                ok = type_error(d, shown, p, key, "a whole number of posts per page (1 or more)");
                continue;
            }
            c->paginate = (long)val.u.i;
        } else if (!strcmp(key, "links")) {
            if (val.kind != TPL_STRING || (strcmp(val.u.s, "error") && strcmp(val.u.s, "warn"))) {
                ok = type_error(d, shown, p, key, "'error' or 'warn'");
                continue;
            }
            c->links_warn = !strcmp(val.u.s, "warn");
        } else if (!strcmp(key, "params")) {
            if (val.kind != TPL_MAP) {
                ok = type_error(d, shown, p, key, "a mapping");
                continue;
            }
            c->params = val;
        } else if (!strcmp(key, "deploy")) {
            if (val.kind != TPL_MAP) {
                ok = type_error(d, shown, p, key, "a mapping (deploy: {target: …})");
                continue;
            }
            tpl_value t = tpl_map_get_cstr(val.u.map, "target");
            if (t.kind == TPL_STRING)
                c->deploy_target = t.u.s;
            else if (t.kind != TPL_UNDEFINED && t.kind != TPL_NONE) {
                int tl, tc;
                nested_pos(copy, p, "target", &tl, &tc);
                diag_error(d, shown, tl, tc, "'deploy.target' must be a string (a folder, or host:path for rsync)");
                ok = false;
            }
        } else if (!strcmp(key, "markdown")) {
            if (val.kind != TPL_MAP) {
                ok = type_error(d, shown, p, key, "a mapping (markdown: {unsafe: true})");
                continue;
            }
            const tpl_map *mm = val.u.map;
            for (size_t k2 = 0; k2 < mm->len; k2++) {
                const char *mk = mm->entries[k2].key.kind == TPL_STRING ? mm->entries[k2].key.u.s : "?";
                tpl_value mv = mm->entries[k2].value;
                bool *slot = !strcmp(mk, "unsafe") ? &c->markdown.unsafe
                           : !strcmp(mk, "smart") ? &c->markdown.smart
                           : !strcmp(mk, "hard_breaks") ? &c->markdown.hard_breaks : NULL;
                int ml, mc;
                nested_pos(copy, p, mk, &ml, &mc);
                if (!slot) {
                    diag_warning(d, shown, ml, mc,
                                 "unknown key 'markdown.%s' (known: unsafe, smart, hard_breaks)", mk);
                    continue;
                }
                if (mv.kind != TPL_BOOL) {
                    diag_error(d, shown, ml, mc, "'markdown.%s' must be true or false", mk);
                    ok = false;
                    continue;
                }
                *slot = mv.u.b;
            }
        } else if (!strcmp(key, "permalinks")) {
            if (val.kind != TPL_MAP) {
                ok = type_error(d, shown, p, key, "a mapping of section → pattern (posts: /:year/:slug/)");
                continue;
            }
            const tpl_map *pm = val.u.map;
            c->permalinks = arena_alloc(a, (pm->len + 1) * sizeof *c->permalinks);
            for (size_t k2 = 0; k2 < pm->len; k2++) {
                tpl_value pk = pm->entries[k2].key, pv = pm->entries[k2].value;
                if (pk.kind != TPL_STRING) {
                    ok = type_error(d, shown, p, key, "a mapping of section → pattern (posts: /:year/:slug/)");
                    continue;
                }
                int pl, pc;
                nested_pos(copy, p, pk.u.s, &pl, &pc);
                if (pv.kind != TPL_STRING || pv.u.s[0] != '/') {
                    diag_error(d, shown, pl, pc,
                               "'permalinks.%s' must be a pattern starting with '/' (like /:year/:month/:slug/)",
                               pk.u.s);
                    ok = false;
                    continue;
                }
                const char *bad = NULL;
                for (const char *q = strchr(pv.u.s, ':'); q && !bad; q = strchr(q + 1, ':')) {
                    size_t n = 0;
                    while (isalnum((unsigned char)q[1 + n]) || q[1 + n] == '_')
                        n++;
                    static const char *const names[] = { "year", "month", "day", "slug", "section", NULL };
                    bool known = false;
                    for (size_t k3 = 0; names[k3]; k3++)
                        known |= strlen(names[k3]) == n && !strncmp(q + 1, names[k3], n);
                    if (!known)
                        bad = arena_strndup(a, q, n + 1);
                }
                if (bad) {
                    diag_error(d, shown, pl, pc,
                               "'permalinks.%s': unknown placeholder '%s' (known: :year :month :day :slug :section)",
                               pk.u.s, bad);
                    ok = false;
                    continue;
                }
                c->permalinks[c->npermalinks].section = pk.u.s;
                c->permalinks[c->npermalinks].pattern = pv.u.s;
                c->npermalinks++;
            }
        }
    }
finish:
    if (base_url_override)
        base = base_url_override;
    split_base_url(a, base, c);
    buf_release(&text);
    free(path);
    return ok;
}
