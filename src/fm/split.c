/* split: find the front matter at the top of a source file (see fm.h).
 *
 * YAML and TOML are fenced by lines (`---`, `+++`); lines end in \n or
 * \r\n. A JSON object has no fence: its end is the `}` that matches the
 * first `{`, found by following strings and brackets (json.c checks the
 * rest). */
#include "fm/fm.h"

/* Length of the line starting at p (without its line break) and, in *next,
 * where the following line starts. */
static size_t line_at(const char *p, const char *end, const char **next)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) {
        *next = end;
        return (size_t)(end - p);
    }
    *next = nl + 1;
    size_t n = (size_t)(nl - p);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    return n;
}

/* Is the line p[0..n) the fence `fence` (three bytes) plus blanks? */
static bool is_fence(const char *p, size_t n, const char *fence)
{
    if (n < 3 || memcmp(p, fence, 3) != 0)
        return false;
    for (size_t i = 3; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t')
            return false;
    return true;
}

/* Does a JSON object start at p? `{` then a blank, line break, `"` or `}`:
 * not `{{` or `{%`, which are template tags in a body. */
static bool json_starts(const char *p, const char *end)
{
    if (p >= end || *p != '{')
        return false;
    if (p + 1 == end)
        return true;
    char c = p[1];
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '}';
}

/* The `}` matching the `{` at p, or NULL. */
static const char *json_end(const char *p, const char *end)
{
    size_t depth = 0;
    for (const char *q = p; q < end; q++) {
        switch (*q) {
        case '"':
            for (q++; q < end && *q != '"'; q++)
                if (*q == '\\')
                    q++;
            if (q >= end)
                return NULL;
            break;
        case '{':
        case '[': depth++; break;
        case '}':
        case ']':
            if (depth == 0 || --depth == 0)
                return *q == '}' && depth == 0 ? q : NULL;
            break;
        default: break;
        }
    }
    return NULL;
}

static bool split_json(const char *p, const char *end, const char *path, fm_split *out, diag_list *d)
{
    const char *close = json_end(p, end);
    if (!close) {
        diag_error(d, path, 1, 1, "front matter opened here is never closed (expected the '}' "
                                  "that closes this '{')");
        return false;
    }
    const char *next;
    const char *after = close + 1;
    size_t n = line_at(after, end, &next);
    for (size_t i = 0; i < n; i++) {
        if (after[i] != ' ' && after[i] != '\t') {
            int line = 1, col = 1;
            for (const char *q = p; q < after + i; q++) {
                if (*q == '\n') {
                    line++;
                    col = 1;
                } else if (((unsigned char)*q & 0xC0) != 0x80 && *q != '\r') {
                    col++;
                }
            }
            diag_error(d, path, line, col, "text after the front matter's closing '}' (start the "
                                           "page's text on the next line)");
            return false;
        }
    }
    int line = 1;
    for (const char *q = p; q < next; q++)
        line += *q == '\n';
    if (next == end && (next == p || next[-1] != '\n'))
        line++; /* no line break after the `}`: the (empty) body is after it */
    out->has_front_matter = true;
    out->format = FM_JSON;
    out->head = str_make(p, (size_t)(after - p));
    out->head_line = 1;
    out->body = str_make(next, (size_t)(end - next));
    out->body_line = line;
    return true;
}

bool fm_split_source(str src, const char *path, fm_split *out, diag_list *d)
{
    const char *p = src.ptr ? src.ptr : "";
    const char *end = p + src.len;
    if (src.len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;

    out->has_front_matter = false;
    out->format = FM_YAML;
    out->head = str_make(p, 0);
    out->body = str_make(p, (size_t)(end - p));
    out->head_line = 1;
    out->body_line = 1;

    if (json_starts(p, end))
        return split_json(p, end, path, out, d);
    const char *next;
    size_t n = line_at(p, end, &next);
    const char *fence;
    if (is_fence(p, n, "---"))
        fence = "---";
    else if (is_fence(p, n, "+++"))
        fence = "+++";
    else
        return true;

    const char *head = next;
    int line = 2;
    for (const char *q = next; q < end; q = next, line++) {
        n = line_at(q, end, &next);
        if (is_fence(q, n, fence) || (fence[0] == '-' && is_fence(q, n, "..."))) {
            out->has_front_matter = true;
            out->format = fence[0] == '-' ? FM_YAML : FM_TOML;
            out->head = str_make(head, (size_t)(q - head));
            out->head_line = 2;
            out->body = str_make(next, (size_t)(end - next));
            out->body_line = line + 1;
            return true;
        }
    }
    diag_error(d, path, 1, 1, "front matter opened here is never closed (expected a line '%s')", fence);
    return false;
}

bool fm_parse_head(const fm_split *sp, const char *path, arena *a, tpl_value *out, fm_key_pos **pos,
                   size_t *npos, diag_list *d)
{
    if (!sp->has_front_matter) {
        *out = tpl_map_value(tpl_map_new(a, 0));
        if (pos)
            *pos = NULL;
        if (npos)
            *npos = 0;
        return true;
    }
    switch (sp->format) {
    case FM_TOML: return fm_parse_toml_pos(sp->head, sp->head_line, path, a, out, pos, npos, d);
    case FM_JSON: return fm_parse_json_pos(sp->head, sp->head_line, path, a, out, pos, npos, d);
    case FM_YAML: break;
    }
    return fm_parse_yaml_pos(sp->head, sp->head_line, path, a, out, pos, npos, d);
}
