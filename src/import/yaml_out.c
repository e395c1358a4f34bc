/* yaml_out: front-matter values written back as YAML that sheaf's reader
 * (fm/, YAML 1.1 as Jekyll reads it) gives back unchanged: strings always
 * double-quoted (so "yes", "1.0" or "2024-01-01" stay strings), dates as
 * RFC 3339 timestamps (a date alone as YYYY-MM-DD), collections in flow
 * style on one line. */
#include <stdio.h>
#include <string.h>

#include "import/internal.h"

void import_yaml_string(buf *b, const char *s, size_t n)
{
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf_putc(b, '\\');
            buf_putc(b, c);
        } else if (c == '\n') {
            buf_puts(b, "\\n");
        } else if (c == '\t') {
            buf_puts(b, "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            buf_printf(b, "\\x%02x", c);
        } else if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
                   (unsigned char)s[i + 1] <= 0x9F) {
            /* U+0080–U+009F, which YAML may not hold raw: escaped */
            buf_printf(b, "\\x%02x", (unsigned char)s[++i]);
        } else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                   ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9)) {
            /* U+2028, U+2029: line breaks to YAML */
            buf_printf(b, "\\u%04x", (unsigned char)s[i + 2] == 0xA8 ? 0x2028 : 0x2029);
            i += 2;
        } else {
            buf_putc(b, c);
        }
    }
    buf_putc(b, '"');
}

void import_yaml_value(buf *b, tpl_value v)
{
    switch (v.kind) {
    case TPL_UNDEFINED:
    case TPL_NONE: buf_puts(b, "null"); break;
    case TPL_BOOL: buf_puts(b, v.u.b ? "true" : "false"); break;
    case TPL_INT:
    case TPL_FLOAT: tpl_value_to_str(v, b); break;
    case TPL_STRING: import_yaml_string(b, v.u.s, v.len); break;
    case TPL_DATE: {
        sheaf_date d;
        tpl_value_as_date(v, &d);
        if (d.has_time || d.has_zone)
            date_format_rfc3339(b, &d);
        else
            date_format(b, &d, "%Y-%m-%d");
        break;
    }
    case TPL_LIST:
        buf_putc(b, '[');
        for (size_t i = 0; i < v.u.list->len; i++) {
            if (i)
                buf_puts(b, ", ");
            import_yaml_value(b, v.u.list->items[i]);
        }
        buf_putc(b, ']');
        break;
    case TPL_MAP:
        buf_putc(b, '{');
        for (size_t i = 0; i < v.u.map->len; i++) {
            if (i)
                buf_puts(b, ", ");
            tpl_value k = v.u.map->entries[i].key;
            if (k.kind == TPL_STRING)
                import_yaml_string(b, k.u.s, k.len);
            else
                import_yaml_value(b, k);
            buf_puts(b, ": ");
            import_yaml_value(b, v.u.map->entries[i].value);
        }
        buf_putc(b, '}');
        break;
    default: buf_puts(b, "null"); break;
    }
}

void import_yaml_kv(buf *b, int indent, const char *key, tpl_value v)
{
    buf_printf(b, "%*s%s: ", indent, "", key);
    import_yaml_value(b, v);
    buf_putc(b, '\n');
}

