/* i18n: the theme's strings (what t("key") gives templates) for the site's
 * `language:`, and the English ones to fall back on. Each language's table
 * is the default theme's i18n/<lang>.yaml (built in), then the site
 * theme's themes/<theme>/i18n/<lang>.yaml, then the site's i18n/<lang>.yaml,
 * a later file's keys winning. "zh-CN" reads zh-CN.yaml where there is
 * one, else zh.yaml. A file must be a mapping of names to strings; anything
 * else is an error at its place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"
#include "site/i18n.h"
#include "util/fs.h"

/* Adds the keys of one YAML file's text to m (later wins). */
static bool merge(site *s, tpl_map *m, const char *path, const char *text, size_t len,
                  diag_list *d)
{
    tpl_value v;
    fm_key_pos *pos;
    size_t npos;
    char *copy = arena_strndup(s->a, text, len);
    if (!fm_parse_yaml_pos(str_make(copy, len), 1, path, s->a, &v, &pos, &npos, d))
        return false;
    if (v.kind != TPL_MAP) {
        diag_error(d, path, 1, 1, "a strings table must be a mapping of names to strings "
                                  "(read_more: Read more)");
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < v.u.map->len; i++) {
        const tpl_map_entry *e = &v.u.map->entries[i];
        const char *key = e->key.kind == TPL_STRING ? e->key.u.s : "?";
        if (e->value.kind != TPL_STRING || e->key.kind != TPL_STRING) {
            const fm_key_pos *kp = fm_key_find(pos, npos, v.u.map, key);
            diag_error(d, path, kp ? kp->vline : 1, kp ? kp->vcol : 1,
                       "'%s' must be a string (quote it: %s: \"…\")", key, key);
            ok = false;
            continue;
        }
        tpl_map_set(s->a, m, e->key, e->value);
    }
    return ok;
}

/* Merges every layer of `lang`'s table into m; returns how many files it
 * found. */
static int load_layers(site *s, tpl_map *m, const char *lang, diag_list *d)
{
    int found = 0;
    char name[128];
    snprintf(name, sizeof name, "i18n/%s.yaml", lang);
    const embed_file *e = embed_find(name);
    if (e) {
        merge(s, m, arena_printf(s->a, "(built-in)/%s", name), (const char *)e->data, e->len, d);
        found++;
    }
    const char *rel[2] = { arena_printf(s->a, "themes/%s/%s", s->cfg.theme, name), name };
    for (int k = 0; k < 2; k++) {
        char *path = fs_join(s->dir, rel[k]);
        buf text = BUF_INIT;
        char *root = fs_resolve(s->dir);
        bool read = fs_read_file_within(root, path, FS_READ_MAX, &text);
        int e = errno;
        free(root);
        errno = e;
        if (read) {
            merge(s, m, strcmp(s->dir, ".") ? arena_strdup(s->a, path) : rel[k], text.data, text.len, d);
            found++;
        } else if (errno != ENOENT && errno != ENOTDIR) {
            diag_error(d, rel[k], 0, 0, "cannot read: %s", fs_strerror(errno));
        }
        buf_release(&text);
        free(path);
    }
    return found;
}

const char *site_string(const site *s, const char *key)
{
    const tpl_map *tables[2] = { s->strings, s->strings_en };
    for (int k = 0; k < 2; k++) {
        tpl_value v = tables[k] ? tpl_map_get_cstr(tables[k], key) : tpl_undefined();
        if (v.kind == TPL_STRING)
            return v.u.s;
    }
    return NULL;
}

void site_load_strings(site *s, bool *warned, diag_list *d)
{
    const char *lang = s->cfg.language && *s->cfg.language ? s->cfg.language : "en";
    s->strings_en = tpl_map_new(s->a, 64);
    load_layers(s, s->strings_en, "en", d);
    s->strings_lang = lang;
    if (!strcmp(lang, "en")) {
        s->strings = s->strings_en;
        return;
    }
    tpl_map *m = tpl_map_new(s->a, 64);
    int found = strchr(lang, '/') ? 0 : load_layers(s, m, lang, d);
    if (!found) { /* zh-CN → zh */
        size_t n = strcspn(lang, "-_");
        if (lang[n]) {
            const char *primary = arena_strndup(s->a, lang, n);
            found = load_layers(s, m, primary, d);
            if (found)
                s->strings_lang = primary;
        }
    }
    if (!found) {
        int line, col;
        site_config_key_place(&s->cfg, "language", &line, &col);
        if (!warned || !*warned)
            diag_warning(d, "site.yaml", line, col,
                         "no theme strings for language '%s': they are shown in English (add "
                         "i18n/%s.yaml to translate them)", lang, lang);
        if (warned)
            *warned = true;
        s->strings = s->strings_en;
        s->strings_lang = "en";
        return;
    }
    s->strings = m;
}

/* `key` in table m, else in English. */
static const char *string_in(const site *s, const tpl_map *m, const char *key)
{
    const tpl_map *tables[2] = { m, s->strings_en };
    for (int k = 0; k < 2; k++) {
        tpl_value v = tables[k] ? tpl_map_get_cstr(tables[k], key) : tpl_undefined();
        if (v.kind == TPL_STRING)
            return v.u.s;
    }
    return NULL;
}

static const md_words *words_from(site *s, const tpl_map *m)
{
    static const char *const one[MD_LABEL_KINDS] = { "xref_fig", "xref_tbl", "xref_eq", "xref_sec" };
    static const char *const many[MD_LABEL_KINDS] = { "xref_figs", "xref_tbls", "xref_eqs", "xref_secs" };
    static const char *const alerts[5] = { "note", "tip", "important", "warning", "caution" };
    md_words *w = arena_alloc(s->a, sizeof *w);
    memset(w, 0, sizeof *w);
    for (int k = 0; k < MD_LABEL_KINDS; k++) {
        w->one[k] = string_in(s, m, one[k]);
        w->many[k] = string_in(s, m, many[k]);
    }
    w->list_sep = string_in(s, m, "xref_list_sep");
    w->list_and = string_in(s, m, "xref_list_and");
    w->caption_sep = string_in(s, m, "caption_sep");
    w->in = string_in(s, m, "xref_in");
    for (int k = 0; k < 5; k++)
        w->alert[k] = string_in(s, m, alerts[k]);
    return w;
}

const md_words *site_md_words(site *s)
{
    return words_from(s, s->strings);
}

const md_words *site_md_words_lang(site *s, const char *lang)
{
    const md_words *site_words = s->cfg.markdown.words;
    if (!lang || !*lang || strchr(lang, '/') || strlen(lang) > 32 || !site_words || !s->strings_lang
        || !strcmp(lang, s->strings_lang) || (s->cfg.language && !strcmp(lang, s->cfg.language)))
        return site_words;
    for (size_t i = 0; i < s->nlang_words; i++)
        if (!strcmp(s->lang_words[i].lang, lang))
            return s->lang_words[i].words;
    /* the strings of that language (zh-CN: zh-CN.yaml, else zh.yaml);
     * their problems are the site language's business, not reported here */
    diag_list *quiet = diag_list_new();
    tpl_map *m = tpl_map_new(s->a, 64);
    int found = load_layers(s, m, lang, quiet);
    size_t n = strcspn(lang, "-_");
    if (!found && lang[n])
        found = load_layers(s, m, arena_strndup(s->a, lang, n), quiet);
    diag_list_free(quiet);
    const md_words *w = found ? words_from(s, m) : site_words;
    if (s->nlang_words < sizeof s->lang_words / sizeof *s->lang_words) {
        s->lang_words[s->nlang_words].lang = arena_strdup(s->a, lang);
        s->lang_words[s->nlang_words++].words = w;
    }
    return w;
}

const char *site_page_language(const page *p)
{
    if (p->fm.kind != TPL_MAP)
        return NULL;
    tpl_value v = tpl_map_get_cstr(p->fm.u.map, "language");
    return v.kind == TPL_STRING ? v.u.s : NULL;
}
