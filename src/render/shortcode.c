/* render/shortcode.c: shortcodes rendered by templates while the Markdown
 * is written (md/shortcode.c finds them; site/links.c hands them here with
 * their page).
 *
 * `{{< name … >}}` renders `shortcodes/<name>.html`, looked up as every
 * template is (the site's templates/, the theme's, the built-in theme),
 * with four variables: `args` (named arguments by name, positional ones by
 * number: `args.src`, `args[0]`), `inner` (the text between a pair's tags,
 * as markup), `page` (the page's front-matter fields: the rest of the page
 * does not exist yet) and `site` (the configuration's values and
 * `site.data`). Whether a shortcode is paired is its template's choice: a
 * template that names `inner` must be closed, one that does not must not
 * be. A quoted argument is a string; a bare one is a number or a boolean
 * when it reads as one (`2`, `1.5`, `true`), else a string.
 *
 * A template may say which arguments it takes, on a line of its opening
 * comment: `args: src!, alt, caption, id|0!` — names (a number is that
 * positional argument), `a|b` for either, `!` for required. Then any other
 * argument, or a required one missing, is an error at the tag. Everything
 * here is read-only while pages render on several threads, but for the
 * per-name table, under a mutex. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/internal.h"
#include "util/hash.h"
#include "util/text.h"
#include "util/xalloc.h"

typedef struct sc_info {
    char *name;
    const tpl_template *t; /* NULL: *error says why */
    char *error;
    bool uses_inner;
    uint64_t fingerprint;
    char *decl; /* the `args:` line, NULL: any arguments */
} sc_info;

struct render_shortcodes {
    site_shortcodes hooks;
    const site *s;
    tpl_loader *l;
    tpl_options opt;
    arena *a;
    tpl_value site_v;
    uint64_t site_hash;
    pthread_mutex_t mu;
    sc_info *v;
    size_t n, cap;
};

static bool ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does the template text name `inner` (as a word, outside comments)? */
static bool names_inner(const char *t, size_t n)
{
    for (size_t i = 0; i + 5 <= n; i++) {
        if (t[i] == '{' && i + 1 < n && t[i + 1] == '#') {
            const char *e = memmem(t + i + 2, n - i - 2, "#}", 2);
            if (!e)
                return false;
            i = (size_t)(e - t) + 1;
            continue;
        }
        if (!memcmp(t + i, "inner", 5) && (i == 0 || !ident(t[i - 1]))
            && (i + 5 == n || !ident(t[i + 5])))
            return true;
    }
    return false;
}

/* The `args:` line of the template's opening comment, or NULL. */
static char *args_decl(const char *t, size_t n)
{
    size_t i = 0;
    while (i < n && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t'))
        i++;
    if (i + 2 > n || t[i] != '{' || t[i + 1] != '#')
        return NULL;
    const char *end = memmem(t + i, n - i, "#}", 2);
    if (!end)
        return NULL;
    for (const char *p = t + i + 2; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        while (p < le && (*p == ' ' || *p == '\t'))
            p++;
        if (le - p > 5 && !strncmp(p, "args:", 5)) {
            p += 5;
            while (le > p && (le[-1] == ' ' || le[-1] == '-' || le[-1] == '\r'))
                le--;
            return xstrndup(p, (size_t)(le - p));
        }
        p = le + 1;
    }
    return NULL;
}

bool render_shortcode_takes(const char *tpl, size_t n, const char *arg)
{
    char *decl = args_decl(tpl, n);
    if (!decl)
        return true; /* any arguments */
    bool found = false;
    size_t an = strlen(arg);
    for (const char *p = decl; *p && !found;) {
        p += strspn(p, " ,|!");
        size_t k = strcspn(p, " ,|!");
        found = k == an && !strncmp(p, arg, an);
        p += k;
    }
    free(decl);
    return found;
}

/* Checks the arguments against the template's `args:` line: NULL when
 * fine, else what is wrong (in a). */
static const char *check_args(const char *decl, const md_shortcode *sc, arena *a)
{
    /* the items: "src!", "id|0!", … */
    char *d = arena_strdup(a, decl);
    const char *items[64];
    size_t n = 0;
    for (char *tok = d; tok && n < 64;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = 0;
        while (*tok == ' ')
            tok++;
        size_t k = strlen(tok);
        while (k && tok[k - 1] == ' ')
            tok[--k] = 0;
        if (k)
            items[n++] = tok;
        tok = comma ? comma + 1 : NULL;
    }
    buf list = BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_puts(&list, ", ");
        buf_puts(&list, items[i]);
    }
    const char *err = NULL;
    size_t pos = 0;
    bool *given = arena_alloc(a, n + 1);
    memset(given, 0, n + 1);
    for (size_t g = 0; g < sc->nargs && !err; g++) {
        char num[24];
        const char *name = sc->args[g].key;
        if (!name) {
            snprintf(num, sizeof num, "%zu", pos++);
            name = num;
        }
        size_t nl = strlen(name);
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            for (const char *p = items[i]; *p && !found;) {
                size_t k = strcspn(p, "|!");
                if (k == nl && !strncmp(p, name, nl))
                    found = given[i] = true;
                p += k;
                if (*p)
                    p++;
            }
        text_near nearest = TEXT_NEAR(name);
        for (size_t i = 0; i < n && !found && sc->args[g].key; i++)
            for (const char *p = items[i]; *p;) {
                size_t k = strcspn(p, "|!");
                text_near_try(&nearest, arena_strndup(a, p, k));
                p += k;
                if (*p)
                    p++;
            }
        const char *near = text_near_best(&nearest);
        if (!found && near)
            err = arena_printf(a, "shortcode '%s' has no argument '%s'; did you mean '%s'?", sc->name,
                               name, near);
        else if (!found)
            err = sc->args[g].key
                      ? arena_printf(a, "shortcode '%s' has no argument '%s' (it takes: %s)", sc->name,
                                     name, list.data)
                      : arena_printf(a, "shortcode '%s' takes no positional argument %s (it takes: %s)",
                                     sc->name, name, list.data);
    }
    for (size_t i = 0; i < n && !err; i++) {
        size_t k = strlen(items[i]);
        if (items[i][k - 1] == '!' && !given[i])
            err = arena_printf(a, "shortcode '%s' needs the argument %.*s", sc->name, (int)(k - 1),
                               items[i]);
    }
    buf_release(&list);
    return err;
}

/* The table entry of `name`, made on first use; with the mutex held. */
static sc_info *info_locked(render_shortcodes *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->v[i].name, name))
            return &r->v[i];
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->v = xrealloc(r->v, r->cap * sizeof *r->v);
    }
    sc_info *f = &r->v[r->n++];
    memset(f, 0, sizeof *f);
    f->name = xstrdup(name);
    buf tname = BUF_INIT;
    buf_printf(&tname, "shortcodes/%s.html", name);
    size_t len;
    char *text = tpl_loader_source(r->l, tname.data, &len);
    if (!text) {
        buf e = BUF_INIT;
        buf_printf(&e, "unknown shortcode '%s': no templates/shortcodes/%s.html in the site, its "
                       "theme or the built-in theme",
                   name, name);
        f->error = buf_detach(&e, NULL);
        buf_release(&tname);
        return f;
    }
    f->uses_inner = names_inner(text, len);
    f->decl = args_decl(text, len);
    free(text);
    diag_list *d = diag_list_new();
    f->t = tpl_load(r->l, tname.data, d);
    if (!f->t) {
        buf e = BUF_INIT;
        buf_printf(&e, "shortcode '%s': ", name);
        if (diag_count(d))
            diag_format(diag_get(d, 0), &e);
        else
            buf_puts(&e, "its template could not be loaded");
        f->error = buf_detach(&e, NULL);
    }
    diag_list_free(d);
    uint64_t h = tpl_loader_fingerprint(r->l, tname.data);
    f->fingerprint = hash_add(h, &r->site_hash, sizeof r->site_hash);
    buf_release(&tname);
    return f;
}

static sc_info info(render_shortcodes *r, const char *name)
{
    pthread_mutex_lock(&r->mu);
    sc_info f = *info_locked(r, name);
    pthread_mutex_unlock(&r->mu);
    return f; /* its strings live as long as r */
}

static uint64_t fingerprint(void *ctx, const char *name)
{
    return info(ctx, name).fingerprint;
}

/* A bare argument's value: a number or a boolean when it reads as one. */
static tpl_value arg_value(arena *a, const md_shortcode_arg *g)
{
    const char *v = g->value;
    size_t n = strlen(v);
    if (!g->quoted) {
        if (!strcmp(v, "true"))
            return tpl_bool(true);
        if (!strcmp(v, "false"))
            return tpl_bool(false);
        size_t i = v[0] == '-' || v[0] == '+';
        size_t digits = 0, dots = 0;
        for (size_t k = i; k < n; k++) {
            if (v[k] >= '0' && v[k] <= '9')
                digits++;
            else if (v[k] == '.')
                dots++;
            else
                digits = 0, dots = 2, k = n;
        }
        if (digits && digits + dots == n - i && dots <= 1 && n - i < 19)
            return dots ? tpl_float(strtod(v, NULL)) : tpl_int(strtoll(v, NULL, 10));
    }
    return tpl_str_copy(a, v, n);
}

static const char *render(void *ctx, const page *p, const md_shortcode *sc, arena *a, const char **error)
{
    render_shortcodes *r = ctx;
    sc_info f = info(r, sc->name);
    if (!f.t) {
        *error = arena_strdup(a, f.error);
        return NULL;
    }
    const char *open = sc->markdown ? "{{%" : "{{<", *close = sc->markdown ? "%}}" : ">}}";
    if (f.uses_inner && !sc->paired) {
        *error = arena_printf(a,
                              "shortcode '%s' is not closed: its template uses `inner`, so %s /%s %s "
                              "must follow",
                              sc->name, open, sc->name, close);
        return NULL;
    }
    if (!f.uses_inner && sc->paired) {
        *error = arena_printf(a,
                              "shortcode '%s' takes no inner text (its template does not use "
                              "`inner`), but %s /%s %s closes it",
                              sc->name, open, sc->name, close);
        return NULL;
    }
    const char *bad = f.decl ? check_args(f.decl, sc, a) : NULL;
    if (bad) {
        *error = bad;
        return NULL;
    }
    arena *scratch = arena_new();
    tpl_map *args = tpl_map_new(scratch, sc->nargs + 1);
    int64_t pos = 0;
    for (size_t i = 0; i < sc->nargs; i++) {
        const md_shortcode_arg *g = &sc->args[i];
        tpl_value key = g->key ? tpl_str(g->key) : tpl_int(pos++);
        bool html = sc->caption_html && g->key && !strcmp(g->key, "caption"); /* markup already */
        tpl_map_set(scratch, args, key,
                    html ? tpl_safe_strn(sc->caption_html, strlen(sc->caption_html)) : arg_value(scratch, g));
    }
    tpl_map_seal(scratch, args);
    tpl_map *vars = tpl_map_new(scratch, 4);
    tpl_map_set_str(scratch, vars, "args", tpl_map_value(args));
    if (sc->paired)
        tpl_map_set_str(scratch, vars, "inner", tpl_safe_strn(sc->inner, sc->inner_len));
    tpl_map_set_str(scratch, vars, "page", site_page_head_value(r->s, p, scratch));
    tpl_map_set_str(scratch, vars, "site", r->site_v);
    /* a labelled figure's "Figure 2" and ": " (md/xref.c), else "" */
    tpl_map_set_str(scratch, vars, "label", tpl_str(sc->label ? sc->label : ""));
    tpl_map_set_str(scratch, vars, "label_sep", tpl_str(sc->label_sep ? sc->label_sep : ""));
    tpl_map_seal(scratch, vars);
    buf out = BUF_INIT;
    diag_list *d = diag_list_new();
    const char *html = NULL;
    if (tpl_render(f.t, r->l, vars, &r->opt, NULL, scratch, &out, d)) {
        html = arena_strndup(a, out.data, out.len);
    } else {
        buf e = BUF_INIT;
        buf_printf(&e, "shortcode '%s': ", sc->name);
        if (diag_count(d))
            diag_format(diag_get(d, 0), &e);
        *error = arena_strndup(a, e.data, e.len);
        buf_release(&e);
    }
    diag_list_free(d);
    buf_release(&out);
    arena_free(scratch);
    return html;
}

render_shortcodes *render_shortcodes_new(const site *s, tpl_loader *l, tpl_value data)
{
    render_shortcodes *r = xcalloc(1, sizeof *r);
    r->s = s;
    r->l = l;
    r->opt.base_url = s->cfg.base_url;
    r->opt.strings = s->strings;
    r->opt.strings_fallback = s->strings_en;
    r->opt.language = s->strings_lang;
    r->a = arena_new();
    tpl_map *m = site_config_value(s, r->a);
    tpl_map_set_str(r->a, m, "data", data.kind == TPL_MAP ? data : tpl_map_value(tpl_map_new(r->a, 0)));
    tpl_map_seal(r->a, m);
    r->site_v = tpl_map_value(m);
    buf b = BUF_INIT;
    tpl_value_repr(r->site_v, &b);
    r->site_hash = hash_bytes(b.data, b.len);
    buf_release(&b);
    pthread_mutex_init(&r->mu, NULL);
    r->hooks.render = render;
    r->hooks.fingerprint = fingerprint;
    r->hooks.ctx = r;
    return r;
}

const site_shortcodes *render_shortcodes_hooks(const render_shortcodes *r) { return &r->hooks; }

void render_shortcodes_move(render_shortcodes *r, const site *s) { r->s = s; }

void render_shortcodes_free(render_shortcodes *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].name);
        free(r->v[i].error);
        free(r->v[i].decl);
    }
    free(r->v);
    arena_free(r->a);
    pthread_mutex_destroy(&r->mu);
    free(r);
}
