/* dump.js: turns highlight.js's compiled language definitions into C data
 * for sheaf's native highlighter (src/hl/). Run by hljs_tool after
 * highlight.js itself, in the same Duktape context: hlDump(names) returns the
 * text of a C file (see src/hl/lang.h for the structures it fills).
 *
 * For each language it asks highlight.js to compile the definition (by
 * highlighting an empty string), then walks the compiled modes and writes,
 * per mode, what highlight() reads: the class name, the one combined
 * "terminators" regex (the begins of the contained modes, the end, the
 * illegal — built as highlight.js 9.18's buildModeRegex builds it) with the
 * capture group that tells each alternative apart, the end regex, the
 * lexeme regex and the keywords, and the flags. Regexes are translated from
 * JavaScript syntax to PCRE2 syntax by toPcre below; hlPcreOk (a C function
 * of the tool) checks that PCRE2 compiles each of them, and a language with
 * a regex it cannot compile is left out (the tool says which). */

function reStr(re) {
    return (re && re.source) || re;
}

/* Capturing groups in a JS regex source, counted the way highlight.js does
 * (by compiling it and looking at the match array). */
function groupCount(src) {
    return (new RegExp(src + '|')).exec('').length - 1;
}

/* regexps.join('|'), each alternative in a group of its own, backreferences
 * renumbered: what highlight.js 9.18's joinRe does, written again here. */
function joinAlternatives(list, marks) {
    var tokenRe = /\[(?:[^\\\]]|\\.)*\]|\(\??|\\([1-9][0-9]*)|\\./;
    var groups = 0;
    var out = '';
    for (var i = 0; i < list.length; i++) {
        groups += 1;
        var offset = groups;
        var rest = reStr(list[i]);
        if (i > 0)
            out += '|';
        out += '(';
        if (marks && marks[i])
            out += '\uE000' + i + '\uE001';
        for (;;) {
            var m = tokenRe.exec(rest);
            if (!m) {
                out += rest;
                break;
            }
            out += rest.substring(0, m.index);
            rest = rest.substring(m.index + m[0].length);
            if (m[0].charAt(0) === '\\' && m[1]) {
                out += '\\' + String(Number(m[1]) + offset);
            } else {
                out += m[0];
                if (m[0] === '(')
                    groups++;
            }
        }
        out += ')';
    }
    return out;
}

/* JavaScript's \s: the white space and line terminators of ES5. */
var JS_SPACE = '\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}' +
               '\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
var JS_LINE_END = '\\n\\r\\x{2028}\\x{2029}';

function isHex(s) {
    return /^[0-9a-fA-F]+$/.test(s);
}

/* A JavaScript (ES5, multiline) regex source as a PCRE2 pattern meant for
 * PCRE2_UTF | PCRE2_MATCH_UNSET_BACKREF without PCRE2_MULTILINE: ^, $ and .
 * are spelled out with JavaScript's line terminators, \s with its white
 * space, and the escapes JavaScript reads as plain letters (\e, \h, \v…)
 * become what JavaScript means by them. */
function toPcre(src) {
    var out = '';
    var inClass = false;
    var i = 0;
    var n = src.length;
    while (i < n) {
        var c = src.charAt(i);
        if (c === '\\') {
            var d = src.charAt(i + 1);
            i += 2;
            if (d === '') {
                out += '\\\\';
            } else if (/[1-9]/.test(d)) {
                var digits = d;
                while (i < n && /[0-9]/.test(src.charAt(i)))
                    digits += src.charAt(i++);
                if (inClass) {
                    out += '\\x{' + parseInt(digits.charAt(0), 10).toString(16) + '}' +
                           digits.substring(1);
                } else {
                    out += '\\g{' + digits + '}';
                }
            } else if (d === '0') {
                out += '\\x{0}';
            } else if (d === 'b') {
                out += inClass ? '\\x{08}' : '\\b';
            } else if (d === 'B') {
                out += inClass ? 'B' : '\\B';
            } else if (d === 'd' || d === 'D' || d === 'w' || d === 'W' || d === 'n' ||
                       d === 'r' || d === 't' || d === 'f') {
                out += '\\' + d;
            } else if (d === 's') {
                out += inClass ? JS_SPACE : '[' + JS_SPACE + ']';
            } else if (d === 'S') {
                out += inClass ? '\\S' : '[^' + JS_SPACE + ']';
            } else if (d === 'v') {
                out += '\\x{0b}';
            } else if (d === 'c' && /[A-Za-z]/.test(src.charAt(i))) {
                out += '\\x{' + (src.charCodeAt(i) % 32).toString(16) + '}';
                i++;
            } else if (d === 'x' && isHex(src.substr(i, 2)) && src.substr(i, 2).length === 2) {
                out += '\\x{' + src.substr(i, 2) + '}';
                i += 2;
            } else if (d === 'u' && isHex(src.substr(i, 4)) && src.substr(i, 4).length === 4) {
                out += '\\x{' + src.substr(i, 4) + '}';
                i += 4;
            } else if (/[A-Za-z0-9_]/.test(d)) {
                out += d; /* an identity escape: the letter itself */
            } else if (d.charCodeAt(0) < 128) {
                out += '\\' + d;
            } else {
                out += d;
            }
            continue;
        }
        i++;
        if (inClass) {
            if (c === ']')
                inClass = false;
            out += c === '[' ? '\\[' : c;
        } else if (c === '[') {
            if (src.substr(i, 2) === '^]') {
                out += '[\\s\\S]';
                i += 2;
            } else if (src.charAt(i) === ']') {
                out += '(?!)';
                i += 1;
            } else {
                inClass = true;
                out += '[';
                if (src.charAt(i) === '^') {
                    out += '^';
                    i++;
                }
            }
        } else if (c === '.') {
            out += '[^' + JS_LINE_END + ']';
        } else if (c === '^') {
            out += '(?:^|(?<=[' + JS_LINE_END + ']))';
        } else if (c === '$') {
            out += '(?=[' + JS_LINE_END + ']|\\z)';
        } else {
            out += c;
        }
    }
    return out;
}

/* A JS string as a C string literal (UTF-8; octal escapes so no escape can
 * swallow the character after it). */
function cstr(s) {
    if (s === null || s === undefined)
        return 'NULL';
    var out = '"';
    for (var i = 0; i < s.length; i++) {
        var code = s.charCodeAt(i);
        var bytes;
        if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length) {
            var lo = s.charCodeAt(i + 1);
            code = 0x10000 + ((code - 0xd800) << 10) + (lo - 0xdc00);
            i++;
        }
        if (code < 0x80) bytes = [code];
        else if (code < 0x800) bytes = [0xc0 | (code >> 6), 0x80 | (code & 63)];
        else if (code < 0x10000)
            bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)];
        else
            bytes = [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63),
                     0x80 | (code & 63)];
        for (var k = 0; k < bytes.length; k++) {
            var b = bytes[k];
            if (b === 34) out += '\\"';
            else if (b === 92) out += '\\\\';
            else if (b === 63) out += '\\?'; /* no trigraphs */
            else if (b >= 32 && b < 127) out += String.fromCharCode(b);
            else {
                var o = b.toString(8);
                while (o.length < 3) o = '0' + o;
                out += '\\' + o;
            }
        }
    }
    return out + '"';
}

function utf8Less(a, b) {
    /* keywords are compared with strcmp in C: byte order, which is code
     * unit order for text without surrogates */
    return a < b ? -1 : a > b ? 1 : 0;
}

/* ---- start guards: linear searches (issue 34) ------------------------------
 *
 * A terminators regex such as C++'s function head, ([a-zA-Z_]\w*…)+…\(,
 * tried from each position inside a long identifier, reads to the
 * identifier's end from each and fails there: one search over n bytes of
 * identifier costs n²/2. Yet a match that starts at position k inside the
 * run, where the alternative is "C X* …" with C ⊆ X and a C stands B
 * positions back with only X since (B ≤ GUARD_REACH), would also match
 * from k - B (C takes that character, X* the rest). So where the
 * alternative is known to fail at k - B, it fails at k. Such an
 * alternative gets a guard in front,
 * (?:(?!C)|(?=U)…|(?=C)(?!(?<=C)(?C"G 1")|(?<=CX)(?C"G 2")|…)): the
 * callout "G B" (hl.c's guard_callout) answers whether alternative G (its
 * capture group) is known to fail B positions back — tried by this search,
 * or by one of this regex's last searches over the same code — and the
 * guard then fails at once: a run is read from its first positions only,
 * and a token is not rescanned by each search that starts inside or right
 * after it (YAML's key, JavaScript's arrow head on "((((…"). A last
 * callout, "G 0 C X*+", reaches further back for a word of YAML prose
 * (hl.c's run_callout). U are the
 * alternative's other starting branches that are literal text (C++'s
 * decltype(auto)), which the argument does not cover: where one of them
 * matches, the guard lets the alternative be tried. A group of branches
 * with disjoint Cs gets one such part per C (the first character says
 * which branch a match took). Only sequences the argument is proved for
 * get a guard: C ⊆ X and disjointness are checked on every UTF-16 code
 * unit with the language's case flag, by JavaScript itself; anything the
 * parser below does not know leaves the alternative as it was. The output
 * is unchanged: a guard only removes start positions that cannot hold a
 * match. */

/* How far back a guard looks for C (hl.c's HL_MEMO_BACK, the same
 * number). */
var GUARD_REACH = 4;

/* A JS regex source split at its top-level '|'. */
function splitBranches(src) {
    var out = [], depth = 0, last = 0;
    for (var i = 0; i < src.length; i++) {
        var c = src.charAt(i);
        if (c === '\\') {
            i++;
        } else if (c === '[') {
            i++;
            while (i < src.length && src.charAt(i) !== ']') {
                if (src.charAt(i) === '\\')
                    i++;
                i++;
            }
        } else if (c === '(') {
            depth++;
        } else if (c === ')') {
            depth--;
        } else if (c === '|' && !depth) {
            out.push(src.substring(last, i));
            last = i + 1;
        }
    }
    out.push(src.substring(last));
    return out;
}

/* A branch (no top-level '|') as its elements: {kind: 'atom' (one
 * character: a literal, an escape, a class, '.'), 'group' (with its
 * branches), or 'other'; src; q: its quantifier}. null when not understood. */
function parseSeq(src) {
    var els = [], i = 0, n = src.length;
    while (i < n) {
        var c = src.charAt(i), start = i, el;
        if (c === '\\') {
            var d = src.charAt(i + 1);
            i += d === 'u' ? 6 : d === 'x' ? 4 : d === 'c' ? 3 : 2;
            if (/[1-9]/.test(d) || d === 'b' || d === 'B')
                el = {kind: 'other'};
            else
                el = {kind: 'atom', src: src.substring(start, i)};
        } else if (c === '[') {
            i++;
            while (i < n && src.charAt(i) !== ']') {
                if (src.charAt(i) === '\\')
                    i++;
                i++;
            }
            if (i >= n)
                return null;
            i++;
            el = {kind: 'atom', src: src.substring(start, i)};
        } else if (c === '(') {
            var depth = 0, j = i;
            for (; j < n; j++) {
                var e = src.charAt(j);
                if (e === '\\') {
                    j++;
                } else if (e === '[') {
                    j++;
                    while (j < n && src.charAt(j) !== ']') {
                        if (src.charAt(j) === '\\')
                            j++;
                        j++;
                    }
                } else if (e === '(') {
                    depth++;
                } else if (e === ')' && !--depth) {
                    break;
                }
            }
            if (j >= n)
                return null;
            var inner = src.substring(i + 1, j);
            if (inner.charAt(0) === '?' && inner.charAt(1) !== ':')
                el = {kind: 'other'}; /* a lookahead */
            else
                el = {kind: 'group', branches: splitBranches(inner.charAt(0) === '?' ? inner.substring(2) : inner)};
            i = j + 1;
        } else if ('{}]'.indexOf(c) >= 0) {
            /* not a quantifier here (that would have been read with the
             * element before): a literal, as JavaScript reads it
             * (nginx's \s+{) */
            i++;
            el = {kind: 'atom', src: '\\' + c};
        } else if ('*+?|)'.indexOf(c) >= 0) {
            return null;
        } else {
            i++;
            el = c === '^' || c === '$' ? {kind: 'other'}
               : {kind: 'atom', src: c === '.' ? '.' : /[\/\\]/.test(c) ? '\\' + c : c};
        }
        var m = /^(?:[*+?]|\{[0-9]+(?:,[0-9]*)?\})\??/.exec(src.substring(i));
        el.q = m ? m[0] : '';
        i += el.q.length;
        els.push(el);
    }
    return els;
}

var subsetMemo = {};
/* Whether every UTF-16 code unit atom a matches, atom b matches too. */
function subset(a, b, ci) {
    var key = (ci ? 'i' : '') + a + '\u0000' + b;
    if (subsetMemo[key] === undefined) {
        var ra = new RegExp('^(?:' + a + ')$', ci ? 'i' : ''), rb = new RegExp('^(?:' + b + ')$', ci ? 'i' : '');
        var ok = true;
        for (var u = 0; u < 0x10000 && ok; u++) {
            var ch = String.fromCharCode(u);
            if (ra.test(ch) && !rb.test(ch))
                ok = false;
        }
        subsetMemo[key] = ok;
    }
    return subsetMemo[key];
}

function isLiteral(src) {
    return /^(?:[^\\()[\]{}|*+?.^$]|\\[^0-9bBdDwWsSuxc])+$/.test(src);
}

var disjointMemo = {};
/* Whether no UTF-16 code unit matches both atoms a and b. */
function disjoint(a, b, ci) {
    var key = (ci ? 'i' : '') + a + '\u0000' + b;
    if (disjointMemo[key] === undefined) {
        var ra = new RegExp('^(?:' + a + ')$', ci ? 'i' : ''), rb = new RegExp('^(?:' + b + ')$', ci ? 'i' : '');
        var ok = true;
        for (var u = 0; u < 0x10000 && ok; u++) {
            var ch = String.fromCharCode(u);
            if (ra.test(ch) && rb.test(ch))
                ok = false;
        }
        disjointMemo[key] = ok;
    }
    return disjointMemo[key];
}

/* Starts {c, x} merged into list (one entry per C; an X that differs
 * between two entries of one C becomes null: C alone is then looked for);
 * null when two different Cs may match one character. */
function mergeStarts(list, more, ci) {
    var out = list.slice();
    for (var i = 0; i < more.length; i++) {
        var found = false;
        for (var k = 0; k < out.length; k++) {
            if (out[k].c === more[i].c) {
                if (out[k].x !== more[i].x)
                    out[k] = {c: out[k].c, x: null};
                found = true;
            } else if (!disjoint(out[k].c, more[i].c, ci)) {
                return null;
            }
        }
        if (!found)
            out.push(more[i]);
    }
    return out;
}

/* What guards a sequence (a branch from its start on): {cs: its starts
 * [{c: the atom C, x: the atom X or null}], pairwise disjoint, so that the
 * character at a match's start says which one it began with; u: literal
 * branches left unguarded}, or null. Elements quantified {0} match
 * nothing (groovy's [^\?]{0}) and are skipped; an optional first atom
 * disjoint from every C (perl's -?\w+) is too: where a C stands, it
 * matched nothing. */
function startGuard(els, ci) {
    if (!els)
        return null;
    while (els.length && /^\{0(?:,0)?\}\??$/.test(els[0].q))
        els = els.slice(1);
    if (!els.length)
        return null;
    var t0 = els[0];
    var q0 = t0.q.length > 1 && t0.q.charAt(t0.q.length - 1) === '?' ? t0.q.substring(0, t0.q.length - 1) : t0.q;
    if (t0.kind === 'group') {
        var optional = q0 === '?' || q0 === '*' || /^\{0/.test(q0);
        var cs = [], u = [];
        for (var k = 0; k < t0.branches.length; k++) {
            var b = t0.branches[k];
            var g = startGuard(parseSeq(b), ci);
            if (g && !(optional && g.u.length)) {
                cs = mergeStarts(cs, g.cs, ci);
                if (!cs)
                    return null;
                u = u.concat(g.u);
            } else if (!optional && isLiteral(b)) {
                u.push(b);
            } else {
                return null;
            }
        }
        if (!cs.length)
            return null;
        if (optional) { /* the sequence may also start after it */
            var r = startGuard(els.slice(1), ci);
            if (!r || r.u.length)
                return null;
            cs = mergeStarts(cs, r.cs, ci);
            if (!cs)
                return null;
        }
        return {cs: cs, u: u};
    }
    if (t0.kind !== 'atom')
        return null;
    if (q0 === '?' && els.length > 1) {
        var rest = startGuard(els.slice(1), ci);
        if (!rest || rest.u.length)
            return null;
        for (var j = 0; j < rest.cs.length; j++)
            if (!disjoint(t0.src, rest.cs[j].c, ci))
                return null;
        return rest;
    }
    if (q0 === '+' || q0 === '*')
        return {cs: [{c: t0.src, x: t0.src}], u: []};
    if (q0 === '' && els.length > 1 && els[1].kind === 'atom' && /^[*+]/.test(els[1].q) &&
        subset(t0.src, els[1].src, ci))
        return {cs: [{c: t0.src, x: els[1].src}], u: []};
    return null;
}

/* The guard of one alternative, in PCRE2 syntax, or ''. '\uE002' stands
 * for the alternative's capture group, filled in by the caller. For each
 * start C (X its run): the guard fails where C stands and, B positions
 * back, "C X…" (B - 1 of X) begins at a position where the alternative is
 * known to fail (hl.c's guard_callout decides, from the search) — a match
 * from here would be one from there. */
function guardOf(src, ci) {
    var branches = splitBranches(src);
    if (branches.length !== 1)
        return '';
    var g = startGuard(parseSeq(src), ci);
    if (!g)
        return '';
    var all = [], each = [];
    for (var i = 0; i < g.cs.length; i++) {
        var c = toPcre(g.cs[i].c), x = g.cs[i].x ? toPcre(g.cs[i].x) : null;
        all.push(c);
        var behind = [];
        for (var d = 0; d < (x ? GUARD_REACH : 1); d++) {
            var run = c;
            for (var k2 = 0; k2 < d; k2++)
                run += x;
            behind.push('(?<=' + run + ')(?C"\uE002 ' + (d + 1) + '")');
        }
        if (x) {
            /* the long form: the run's C further back (hl.c's run_callout) */
            var text = '\uE002 0 (?:' + c + ')(?:' + x + ')*+', delim = null;
            var delims = ['"', "'", '`', '^', '%', '#', '$'];
            for (var k3 = 0; k3 < delims.length && !delim; k3++)
                if (text.indexOf(delims[k3]) < 0)
                    delim = delims[k3];
            if (delim)
                behind.push('(?C' + delim + text + delim + ')');
        }
        each.push('(?=' + c + ')(?!' + behind.join('|') + ')');
    }
    var out = '(?:(?!' + all.join('|') + ')';
    for (var k = 0; k < g.u.length; k++)
        out += '|(?=' + toPcre(g.u[k]) + ')';
    return out + '|' + each.join('|') + ')';
}

function hlDump(names) {
    hljs.configure({hideUpgradeWarningAcceptNoSupportOrSecurityUpdates: true});
    var all = hljs.listLanguages();
    var wanted = [];      /* canonical names, in the order given */
    var exposed = {};     /* the ones named by the caller */
    var problems = [];
    var i;
    for (i = 0; i < names.length; i++) {
        if (!hljs.getLanguage(names[i]))
            throw new Error('highlight.js has no language ' + names[i]);
        var canon = null;
        for (var a0 = 0; a0 < all.length; a0++)
            if (hljs.getLanguage(all[a0]) === hljs.getLanguage(names[i])) canon = all[a0];
        if (wanted.indexOf(canon) < 0) wanted.push(canon);
        exposed[canon] = true;
    }
    /* languages reached through subLanguage join the set, in order */
    var index = {};
    var langs = [];
    function addLang(name) {
        if (index.hasOwnProperty(name)) return index[name];
        var lang = hljs.getLanguage(name);
        try {
            hljs.highlight(name, '', true); /* compiles it */
        } catch (e) {
            problems.push(name + ': ' + e.message);
            index[name] = -1;
            return -1;
        }
        index[name] = langs.length;
        langs.push({name: name, lang: lang});
        return index[name];
    }
    for (i = 0; i < wanted.length; i++)
        addLang(wanted[i]);

    var classes = [];
    var classIndex = {};
    function cls(name) {
        if (!classIndex.hasOwnProperty(name)) {
            classIndex[name] = classes.length;
            classes.push(name);
        }
        return classIndex[name];
    }

    var out = [];
    out.push('/* Generated by tools/hl/hljs_tool from highlight.js ' + (hljs.versionString || '9') +
             ': do not edit. */');
    out.push('#include "hl/lang.h"');
    out.push('');
    var langOut = [];
    var bad = {};
    var deps = [];

    for (var li = 0; li < langs.length; li++) {
        var L = langs[li];
        var ci = !!L.lang.case_insensitive;
        var modes = [];
        deps[li] = [];
        var tag = '__hl' + li;
        var idOf = function (mode) {
            if (mode[tag] === undefined) {
                Object.defineProperty(mode, tag, {value: modes.length, enumerable: false});
                modes.push(mode);
            }
            return mode[tag];
        };
        idOf(L.lang);
        var failed = null;
        var pat = function (src, what, already) {
            var p = already ? src : toPcre(src);
            if (!hlPcreOk(p)) {
                if (!failed) failed = what + ' /' + src + '/ (as PCRE2: ' + p + ')';
            }
            return p;
        };
        var body = [];
        for (var mi = 0; mi < modes.length; mi++) {
            var m = modes[mi];
            var pre = 'l' + li + 'm' + mi;
            /* the terminators, as buildModeRegex makes them */
            var list = [], rules = [], at = 1;
            for (var k = 0; k < m.contains.length; k++) {
                var t = m.contains[k];
                var re = t.beginKeywords ? '\\.?(?:' + t.begin + ')\\.?' : t.begin;
                rules.push(at, idOf(t));
                list.push(re);
                at += groupCount(reStr(re)) + 1;
            }
            if (m.terminator_end) {
                rules.push(at, -1);
                list.push(m.terminator_end);
                at += groupCount(reStr(m.terminator_end)) + 1;
            }
            if (m.illegal) {
                rules.push(at, -2);
                list.push(m.illegal);
                at += groupCount(reStr(m.illegal)) + 1;
            }
            var guards = [];
            for (var k = 0; k < list.length; k++)
                guards.push(guardOf(reStr(list[k]), ci).replace(/\uE002/g, String(rules[2 * k])));
            var term = null;
            if (list.length) {
                term = toPcre(joinAlternatives(list, guards)).replace(/\uE000([0-9]+)\uE001/g, function (all, k) {
                    return guards[Number(k)];
                });
                pat(term, 'terminators', true);
            }
            if (rules.length)
                body.push('static const int ' + pre + 'r[] = {' + rules.join(',') + '};');
            var kw = 'NULL', nkw = 0;
            if (m.keywords) {
                var words = Object.keys(m.keywords).sort(utf8Less);
                var items = [];
                for (var w = 0; w < words.length; w++) {
                    var kv = m.keywords[words[w]];
                    items.push('{' + cstr(words[w]) + ',' + cls(kv[0]) + ',' + Number(kv[1]) + '}');
                }
                nkw = items.length;
                if (nkw) {
                    body.push('static const hl_keyword ' + pre + 'k[] = {' + items.join(',') + '};');
                    kw = pre + 'k';
                }
            }
            var sub = 'HL_SUB_NONE', subName = 'NULL', subLang = -1, subs = 'NULL', nsubs = 0;
            if (m.subLanguage !== undefined && m.subLanguage !== null) {
                if (typeof m.subLanguage === 'string') {
                    sub = 'HL_SUB_EXPLICIT';
                    subName = cstr(m.subLanguage);
                    /* highlight.js looks the name up without aliases here */
                    var canonSub = all.indexOf(m.subLanguage) >= 0 ? m.subLanguage : null;
                    subLang = canonSub ? addLang(canonSub) : -1;
                    if (canonSub) deps[li].push(subLang);
                } else {
                    sub = 'HL_SUB_AUTO';
                    var cand = m.subLanguage.length ? m.subLanguage : all;
                    var sitems = [];
                    for (var s = 0; s < cand.length; s++) {
                        var sl = hljs.getLanguage(cand[s]);
                        if (!sl || sl.disableAutodetect) continue;
                        var sname = null;
                        for (var a = 0; a < all.length; a++)
                            if (hljs.getLanguage(all[a]) === sl) sname = all[a];
                        var sidx = addLang(sname);
                        deps[li].push(sidx);
                        sitems.push('{' + cstr(cand[s]) + ',' + sidx + '}');
                    }
                    if (sitems.length) {
                        body.push('static const hl_sub ' + pre + 's[] = {' + sitems.join(',') + '};');
                        subs = pre + 's';
                        nsubs = sitems.length;
                    }
                }
            }
            var flags = [];
            if (m.endsWithParent) flags.push('HL_ENDS_WITH_PARENT');
            if (m.endsParent) flags.push('HL_ENDS_PARENT');
            if (m.returnBegin) flags.push('HL_RETURN_BEGIN');
            if (m.excludeBegin) flags.push('HL_EXCLUDE_BEGIN');
            if (m.returnEnd) flags.push('HL_RETURN_END');
            if (m.excludeEnd) flags.push('HL_EXCLUDE_END');
            if (m.skip) flags.push('HL_SKIP');
            if (m.endSameAsBegin) flags.push('HL_END_SAME_AS_BEGIN');
            if (m.keywords) flags.push('HL_HAS_KEYWORDS');
            if (m.subLanguage) flags.push('HL_SUB_TRUTHY');
            m.__hlEntry = {
                cls: m.className ? cls(m.className) : -1,
                term: term,
                rules: rules.length ? pre + 'r' : 'NULL',
                nrules: rules.length / 2,
                end: m.endRe ? pat(m.endRe.source, 'end') : null,
                lexemes: pat(m.lexemesRe.source, 'lexemes'),
                kw: kw, nkw: nkw,
                starts: m.starts ? idOf(m.starts) : -1,
                sub: sub, subName: subName, subLang: subLang, subs: subs, nsubs: nsubs,
                relevance: Number(m.relevance),
                flags: flags.length ? flags.join('|') : '0'
            };
        }
        if (failed) {
            problems.push(L.name + ': ' + failed);
            bad[li] = true;
        }
        out.push.apply(out, body);
        var entries = [];
        for (mi = 0; mi < modes.length; mi++) {
            var e = modes[mi].__hlEntry;
            delete modes[mi].__hlEntry;
            entries.push('{' + [e.cls, cstr(e.term), e.rules, e.nrules, cstr(e.end), cstr(e.lexemes),
                                e.kw, e.nkw, e.starts, e.sub, e.subName, e.subLang, e.subs, e.nsubs,
                                e.relevance, e.flags].join(',') + '}');
        }
        out.push('static const hl_mode l' + li + '_modes[] = {\n  ' + entries.join(',\n  ') + '};');
        var aliases = (L.lang.aliases || []).slice(0);
        out.push('static const char *const l' + li + '_aliases[] = {' +
                 aliases.map(cstr).concat(['NULL']).join(',') + '};');
        langOut.push('{' + [cstr(L.name), 'l' + li + '_aliases', 'l' + li + '_modes', modes.length,
                            ci ? 'true' : 'false', exposed[L.name] ? 'true' : 'false', '@USABLE@'].join(',') + '}');
    }
    /* a language that uses a left-out one is left out too */
    var changed = true;
    while (changed) {
        changed = false;
        for (li = 0; li < langs.length; li++) {
            if (bad[li]) continue;
            for (var q = 0; q < deps[li].length; q++) {
                if (deps[li][q] < 0 || bad[deps[li][q]]) {
                    bad[li] = true;
                    changed = true;
                    problems.push(langs[li].name + ': uses a language left out');
                    break;
                }
            }
        }
    }
    for (li = 0; li < langOut.length; li++)
        langOut[li] = langOut[li].replace('@USABLE@', bad[li] ? 'false' : 'true');
    out.push('const char *const hl_class_names[] = {' + classes.map(cstr).join(',') + '};');
    out.push('const hl_language hl_languages[] = {\n  ' + langOut.join(',\n  ') + '};');
    out.push('const size_t hl_language_count = ' + langs.length + ';');
    out.push('const char *const hl_left_out[] = {' +
             Object.keys(bad).map(function (k) { return cstr(langs[k].name); })
                   .concat(['NULL']).join(',') + '};');
    return {c: out.join('\n') + '\n', problems: problems};
}
