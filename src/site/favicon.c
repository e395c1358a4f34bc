/* favicon: which icon the site's pages name (site.favicon): a file the
 * site has, or favicon.svg drawn by the theme's favicon.svg template from a
 * short text — `favicon:` in site.yaml, else the emoji the title starts
 * with, else the title's first letter. */
#include <string.h>

#include "site/generated.h"
#include "util/text.h"

static bool has_file(const site *s, const char *path)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (!strcmp(s->files[i].path, path))
            return true;
    return false;
}

static bool names_file(const char *v)
{
    static const char *const ext[] = { ".svg", ".png", ".ico", ".gif", ".jpg", ".jpeg", ".webp" };
    size_t n = strlen(v);
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && !strcmp(v + n - e, ext[i]))
            return true;
    }
    return false;
}

/* How many characters (grapheme clusters) s has, at most 8. */
static size_t clusters(const char *s)
{
    size_t n = 0, i = 0, len = strlen(s);
    while (i < len && n < 8) {
        size_t e = text_leading_emoji(s + i, len - i);
        if (!e) {
            e = 1;
            while (i + e < len && ((unsigned char)s[i + e] & 0xC0) == 0x80)
                e++;
            /* a combining mark or variation selector stays with its letter */
            while (i + e + 1 < len && (unsigned char)s[i + e] == 0xCC)
                e += 2;
        }
        i += e;
        n++;
    }
    return n;
}

void site_favicon(site *s, diag_list *d)
{
    const char *v = s->cfg.favicon ? s->cfg.favicon : "";
    s->favicon_path = "favicon.svg";
    s->favicon_text = NULL;
    int line, col;
    if (*v && names_file(v)) {
        while (*v == '/')
            v++;
        if (!has_file(s, v)) {
            site_config_key_place(&s->cfg, "favicon", &line, &col);
            diag_error(d, "site.yaml", line, col,
                       "favicon: no file '%s' in static/ (or content/) to use as the icon", v);
        }
        s->favicon_path = arena_strdup(s->a, v);
        return;
    }
    if (!*v) {
        static const char *const own[] = { "favicon.svg", "favicon.ico", "favicon.png" };
        for (size_t i = 0; i < sizeof own / sizeof *own; i++)
            if (has_file(s, own[i])) {
                s->favicon_path = own[i];
                return;
            }
        const char *t = s->cfg.title ? s->cfg.title : "";
        size_t e = text_leading_emoji(t, strlen(t));
        if (!e && *t) { /* the first letter, upper-cased when it has a case */
            buf b = BUF_INIT;
            size_t k = 1;
            while (t[k] && ((unsigned char)t[k] & 0xC0) == 0x80)
                k++;
            buf_put(&b, t, k);
            if (k == 1 && b.data[0] >= 'a' && b.data[0] <= 'z')
                b.data[0] = (char)(b.data[0] - 'a' + 'A');
            s->favicon_text = arena_strndup(s->a, b.data, b.len);
            buf_release(&b);
            return;
        }
        s->favicon_text = arena_strndup(s->a, t, e);
        if (!*s->favicon_text)
            s->favicon_text = "S";
        return;
    }
    if (clusters(v) > 3) {
        site_config_key_place(&s->cfg, "favicon", &line, &col);
        diag_error(d, "site.yaml", line, col,
                   "favicon: '%s' is too long to draw: an emoji or one to three letters, or a file "
                   "in static/ (favicon.png)", v);
    }
    s->favicon_text = v;
}
