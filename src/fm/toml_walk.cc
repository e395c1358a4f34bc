// toml_walk: TOML 1.0 front matter through toml++ — the only C++ in sheaf,
// kept to this file behind the C interface of toml_walk.h (see there).
//
// toml++ is used header only, with its parse errors returned rather than
// thrown (TOML_EXCEPTIONS 0); anything else it could throw (out of memory)
// is caught here, so no exception reaches C. A table's entries are handed
// out in the order they are written (toml++ keeps them sorted by key).
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#define TOML_ENABLE_FORMATTERS 0
#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fm/toml_walk.h"

namespace {

typedef void (*walk_fn)(void *ctx, const fm_toml_event *ev);

struct walker {
    walk_fn fn;
    void *ctx;
};

int line_of(const toml::source_position &p) { return p.line ? static_cast<int>(p.line) : 1; }
int col_of(const toml::source_position &p) { return p.column ? static_cast<int>(p.column) : 1; }

// "07:32:00" with the fraction, if any, without its trailing zeros.
void format_time(std::string &out, const toml::time &t)
{
    char b[40];
    std::snprintf(b, sizeof b, "%02u:%02u:%02u", unsigned(t.hour), unsigned(t.minute),
                  unsigned(t.second));
    out += b;
    if (t.nanosecond) {
        std::snprintf(b, sizeof b, ".%09lu", static_cast<unsigned long>(t.nanosecond));
        std::string frac(b);
        while (frac.back() == '0')
            frac.pop_back();
        out += frac;
    }
}

void format_date(std::string &out, const toml::date &d)
{
    char b[40];
    std::snprintf(b, sizeof b, "%04u-%02u-%02u", unsigned(d.year), unsigned(d.month),
                  unsigned(d.day));
    out += b;
}

void walk_node(const walker &w, const toml::node &node, const toml::key *key);

void emit(const walker &w, fm_toml_event &ev, const toml::node &node, const toml::key *key)
{
    const toml::source_region &src = node.source();
    ev.line = line_of(src.begin);
    ev.col = col_of(src.begin);
    if (key) {
        ev.key = key->str().data();
        ev.key_len = key->str().size();
        ev.key_line = line_of(key->source().begin);
        ev.key_col = col_of(key->source().begin);
    }
    w.fn(w.ctx, &ev);
}

void walk_table(const walker &w, const toml::table &t, const toml::key *key)
{
    std::vector<std::pair<const toml::key *, const toml::node *>> entries;
    entries.reserve(t.size());
    for (auto &&kv : t)
        entries.emplace_back(&kv.first, &kv.second);
    std::stable_sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
        const toml::source_position &x = a.first->source().begin, &y = b.first->source().begin;
        return x.line != y.line ? x.line < y.line : x.column < y.column;
    });
    fm_toml_event ev = {};
    ev.kind = FM_TOML_TABLE;
    ev.n = entries.size();
    emit(w, ev, t, key);
    for (auto &e : entries)
        walk_node(w, *e.second, e.first);
    fm_toml_event end = {};
    end.kind = FM_TOML_END;
    w.fn(w.ctx, &end);
}

void walk_node(const walker &w, const toml::node &node, const toml::key *key)
{
    fm_toml_event ev = {};
    std::string text;
    switch (node.type()) {
    case toml::node_type::table:
        walk_table(w, *node.as_table(), key);
        return;
    case toml::node_type::array: {
        const toml::array &a = *node.as_array();
        ev.kind = FM_TOML_ARRAY;
        ev.n = a.size();
        emit(w, ev, node, key);
        for (const toml::node &item : a)
            walk_node(w, item, nullptr);
        fm_toml_event end = {};
        end.kind = FM_TOML_END;
        w.fn(w.ctx, &end);
        return;
    }
    case toml::node_type::string: {
        const std::string &s = node.as_string()->get();
        ev.kind = FM_TOML_STRING;
        ev.s = s.data();
        ev.len = s.size();
        emit(w, ev, node, key);
        return;
    }
    case toml::node_type::integer:
        ev.kind = FM_TOML_INT;
        ev.i = node.as_integer()->get();
        break;
    case toml::node_type::floating_point:
        ev.kind = FM_TOML_FLOAT;
        ev.f = node.as_floating_point()->get();
        break;
    case toml::node_type::boolean:
        ev.kind = FM_TOML_BOOL;
        ev.b = node.as_boolean()->get();
        break;
    case toml::node_type::date:
        ev.kind = FM_TOML_DATE;
        format_date(text, node.as_date()->get());
        break;
    case toml::node_type::time:
        ev.kind = FM_TOML_TIME;
        format_time(text, node.as_time()->get());
        break;
    case toml::node_type::date_time: {
        const toml::date_time &dt = node.as_date_time()->get();
        ev.kind = FM_TOML_DATE;
        format_date(text, dt.date);
        text += 'T';
        format_time(text, dt.time);
        if (dt.offset) {
            int m = dt.offset->minutes;
            char b[16];
            if (m == 0)
                std::snprintf(b, sizeof b, "Z");
            else
                std::snprintf(b, sizeof b, "%c%02d:%02d", m < 0 ? '-' : '+', std::abs(m) / 60,
                              std::abs(m) % 60);
            text += b;
        }
        break;
    }
    case toml::node_type::none:
        return;
    }
    ev.s = text.data();
    ev.len = text.size();
    emit(w, ev, node, key);
}

void set_error(fm_toml_error *err, const char *msg, int line, int col)
{
    std::snprintf(err->message, sizeof err->message, "%s", msg);
    err->line = line;
    err->col = col;
}

} // namespace

extern "C" bool fm_toml_walk(const char *text, size_t len, walk_fn fn, void *ctx,
                             fm_toml_error *err)
{
    try {
        toml::parse_result r = toml::parse(std::string_view(text ? text : "", len));
        if (!r) {
            const toml::parse_error &e = r.error();
            // "Error while parsing X: what" → "what (while parsing X)"
            std::string msg(e.description());
            const std::string lead = "Error while parsing ";
            size_t colon = msg.find(": ");
            if (msg.compare(0, lead.size(), lead) == 0 && colon != std::string::npos)
                msg = msg.substr(colon + 2) + " (while parsing " +
                      msg.substr(lead.size(), colon - lead.size()) + ")";
            set_error(err, msg.c_str(), line_of(e.source().begin), col_of(e.source().begin));
            return false;
        }
        walker w = { fn, ctx };
        walk_table(w, r.table(), nullptr);
        return true;
    } catch (const std::exception &e) {
        set_error(err, e.what(), 1, 1);
    } catch (...) {
        set_error(err, "cannot read TOML", 1, 1);
    }
    return false;
}
