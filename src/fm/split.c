/* split: find the YAML front matter at the top of a source file.
 *
 * The first line (after an optional UTF-8 byte order mark) must be exactly
 * `---`, trailing spaces or tabs allowed; the front matter runs until the next
 * line that is `---` or `...` (same allowance). Lines end in \n or \r\n. */
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

bool fm_split_source(str src, const char *path, fm_split *out, diag_list *d)
{
    const char *p = src.ptr ? src.ptr : "";
    const char *end = p + src.len;
    if (src.len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;

    out->has_front_matter = false;
    out->yaml = str_make(p, 0);
    out->body = str_make(p, (size_t)(end - p));
    out->yaml_line = 1;
    out->body_line = 1;

    const char *next;
    size_t n = line_at(p, end, &next);
    if (!is_fence(p, n, "---"))
        return true;

    const char *yaml = next;
    int line = 2;
    for (const char *q = next; q < end; q = next, line++) {
        n = line_at(q, end, &next);
        if (is_fence(q, n, "---") || is_fence(q, n, "...")) {
            out->has_front_matter = true;
            out->yaml = str_make(yaml, (size_t)(q - yaml));
            out->yaml_line = 2;
            out->body = str_make(next, (size_t)(end - next));
            out->body_line = line + 1;
            return true;
        }
    }
    diag_error(d, path, 1, 1, "front matter opened here is never closed (expected a line '---')");
    return false;
}
