// sheaf's search page: reads search/index.json and the segments it names
// (written by `sheaf build`, format in docs/search.md) and shows the pages
// matching the words typed. Words of spaced scripts match by prefix; CJK
// text by character bigrams, so "梯度压缩" finds a post holding it. No
// framework, no server.
(function () {
  "use strict";
  var form = document.querySelector(".search-form");
  if (!form) return;
  var input = form.querySelector("input[type=search]");
  var status = document.querySelector(".search-status");
  var list = document.querySelector(".search-results");
  var base = form.getAttribute("action");
  var strings = form.dataset;
  // docs: every page, segment after segment; segs: each segment's keys,
  // postings, first page in docs and version; rank: each page's place in
  // the site's order (posts newest first), which breaks ties; segOf: each
  // page's segment
  var docs = null, segs = null, rank = null, segOf = null, per = 1;

  // The index's rule for characters (util/text.c, text_next_char): letters
  // and digits make words, CJK characters stand alone, the rest separates.
  var cjk = /[\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303c\u3040-\u30ff\u3131-\u318f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]|[\ud840-\ud87f][\udc00-\udfff]/;
  var word = /[\p{L}\p{N}\p{M}]/u;

  // A query's terms: {key, prefix}. Words are matched by prefix; a CJK run
  // gives its bigrams (a single character matches every bigram it starts).
  function terms(q) {
    var out = [], w = "", run = [];
    function endWord() { if (w) out.push({ key: w, prefix: true }); w = ""; }
    function endRun() {
      if (run.length === 1) out.push({ key: run[0], prefix: true });
      for (var i = 0; i + 1 < run.length; i++) out.push({ key: run[i] + run[i + 1], prefix: false });
      run = [];
    }
    for (var ch of q.toLowerCase()) {
      if (cjk.test(ch)) { endWord(); run.push(ch); }
      else if (word.test(ch)) { endRun(); if (w.length < 32) w += ch; }
      else { endWord(); endRun(); }
    }
    endWord(); endRun();
    return out;
  }

  // The index's head and its segments' files, in order.
  function decode(head, parts) {
    per = head.texts_per_file || 1;
    docs = [];
    segs = [];
    parts.forEach(function (data, g) {
      var keys = [], prev = "";
      for (var k of data.keys ? data.keys.split(" ") : []) {
        prev = prev.slice(0, k.charCodeAt(0) - 48) + k.slice(1);
        keys.push(prev);
      }
      segs.push({ keys: keys, post: data.postings ? data.postings.split(" ") : [], first: docs.length,
        version: head.segments[g][1] });
      for (var d of data.docs) docs.push(d);
    });
    // the order: for each page, its segment in base 36, all as wide
    var n = docs.length, width = 1, next = new Int32Array(segs.length);
    for (var m = 36; m < segs.length; m *= 36) width++;
    rank = new Int32Array(n);
    segOf = new Int32Array(n);
    for (var g = 0; g < segs.length; g++)
      for (var i = segs[g].first; i < (g + 1 < segs.length ? segs[g + 1].first : n); i++) segOf[i] = g;
    for (var r = 0; r < n; r++) {
      var s = parseInt(head.order.substr(r * width, width), 36), d2 = s < segs.length ? segs[s].first + next[s]++ : -1;
      if (d2 >= 0 && d2 < n) rank[d2] = r;
    }
  }

  // The first of keys ≥ s (binary search: keys are in JavaScript's order).
  function lower(keys, s) {
    var lo = 0, hi = keys.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (keys[mid] < s) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // The best score of each page for one term, over every key matching it
  // in every segment, into `best` (one byte a page). Postings are read in
  // place: base-36 gaps between the segment's pages, separated by commas,
  // '*' (title) or '^' (heading, tag) before.
  function lookup(t, best) {
    best.fill(0);
    for (var seg of segs) {
      var keys = seg.keys;
      for (var i = lower(keys, t.key); i < keys.length; i++) {
        var k = keys[i];
        if (t.prefix ? !k.startsWith(t.key) : k !== t.key) break;
        var exact = k === t.key ? 2 : 1, p = seg.post[i], doc = seg.first, gap = 0, w = 1;
        for (var j = 0, n = p.length; j <= n; j++) {
          var c = j < n ? p.charCodeAt(j) : 44;
          if (c === 44) { // ','
            doc += gap;
            var s = exact * w;
            if (best[doc] < s) best[doc] = s;
            gap = 0; w = 1;
          } else if (c === 42) w = 16;
          else if (c === 94) w = 4;
          else gap = gap * 36 + (c <= 57 ? c - 48 : c - 87);
        }
      }
    }
  }

  // The pages holding every term, best first.
  function search(q) {
    var ts = terms(q);
    if (!ts.length) return [];
    var n = docs.length;
    var total = new Int32Array(n), best = new Uint8Array(n);
    for (var ti = 0; ti < ts.length; ti++) {
      lookup(ts[ti], best);
      var any = false;
      for (var d = 0; d < n; d++) {
        if (best[d] && (ti === 0 || total[d])) { total[d] += best[d]; any = true; }
        else total[d] = 0;
      }
      if (!any) return [];
    }
    var found = [];
    for (var d2 = 0; d2 < n; d2++) if (total[d2]) found.push(d2);
    // ties go to the page first in the site's order (the newer post)
    return found.sort(function (a, b) { return total[b] - total[a] || rank[a] - rank[b]; });
  }

  // A matcher of the query's words, for marking them and finding the
  // first: a word of a spaced script where a word starts (the index
  // matches words by prefix), CJK text anywhere.
  function matcher(q) {
    var ws = q.toLowerCase().split(/[\s\p{P}\p{S}]+/u).filter(function (w) { return w; });
    if (!ws.length) return null;
    ws.sort(function (a, b) { return b.length - a.length; }); // "gradient" before "grad"
    return new RegExp(ws.map(function (w) { return w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }).join("|"), "giu");
  }

  // Each match of re in text, as [start, end), in order, not overlapping.
  function matches(text, re) {
    var out = [], m;
    if (!re) return out;
    re.lastIndex = 0;
    while ((m = re.exec(text))) {
      var prev = Array.from(text.slice(Math.max(0, m.index - 2), m.index)).pop() || "";
      var first = String.fromCodePoint(m[0].codePointAt(0));
      if (!prev || cjk.test(first) || cjk.test(prev) || !word.test(prev)) out.push([m.index, re.lastIndex]);
      else re.lastIndex = m.index + 1;
    }
    return out;
  }

  // Appends text to el with the parts matching the query in <mark>
  // (text nodes only: nothing of the text is read as HTML).
  function highlight(el, text, re) {
    var pos = 0;
    for (var m of matches(text, re)) {
      el.append(text.slice(pos, m[0]));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(m[0], m[1]);
      el.append(mark);
      pos = m[1];
    }
    el.append(text.slice(pos));
  }

  // The part of a page's text around the first match (about 160
  // characters, cut at spaces when there are any, never inside a
  // character), or null when nothing in it matches.
  function snippet(text, re) {
    var m = matches(text, re)[0];
    if (!m) return null;
    var from = Math.max(0, m[0] - 60), to = Math.min(text.length, m[1] + 100);
    if (from > 0) { var sp = text.indexOf(" ", from); if (sp >= 0 && sp < m[0]) from = sp + 1; }
    if (to < text.length) { var sp2 = text.lastIndexOf(" ", to); if (sp2 > m[1]) to = sp2; }
    if (/[\udc00-\udfff]/.test(text[from] || "")) from++;
    if (/[\ud800-\udbff]/.test(text[to - 1] || "")) to--;
    var cut = text.slice(from, to);
    return (from > 0 ? "…" : "") + cut + (to < text.length && !/[.!?。！？…]$/.test(cut) ? "…" : "");
  }

  // The text of page d (search/text/G-K.json, written by `sheaf build`
  // with the index: formulas as their TeX, citations as shown, no footnote
  // marks; each file the texts of texts_per_file pages of segment G, its
  // version that of the segment), fetched once when a result needs one;
  // null when it cannot be had.
  var files = new Map();
  function text(d) {
    var g = segOf[d], i = d - segs[g].first, k = g + "-" + Math.floor(i / per);
    if (!files.has(k)) files.set(k, fetch(base + "text/" + k + ".json?v=" + segs[g].version).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).catch(function () { return null; }));
    return files.get(k).then(function (file) { return file && file[i % per]; });
  }

  // A date in the page's language ("Mar 18, 2024", "2024年3月18日").
  function dateText(iso) {
    try {
      return new Date(iso + "T00:00:00Z").toLocaleDateString(document.documentElement.lang || undefined,
        { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
    } catch (e) {
      return iso;
    }
  }

  // Shows the pages found for q: the first SNIPPETS with the text around
  // the first match, once their texts are here (the list is drawn whole,
  // so nothing moves after it shows), the others with their start.
  var SNIPPETS = 10, shownFor = 0;
  function show(q) {
    var ask = ++shownFor;
    if (!q.trim()) { list.textContent = ""; status.textContent = ""; return; }
    var t0 = performance.now();
    var found = search(q);
    form.dataset.ms = (performance.now() - t0).toFixed(2);
    var shown = found.slice(0, 50), re = matcher(q);
    Promise.all(shown.slice(0, SNIPPETS).map(text)).then(function (got) {
      if (ask !== shownFor) return; // a later query is on its way
      list.textContent = "";
      var n = found.length;
      status.textContent = n === 0 ? strings.none.replace("{q}", q)
        : (n === 1 ? strings.one : strings.many).replace("{n}", n).replace("{q}", q);
      shown.forEach(function (i, k) {
        list.append(result(docs[i], re, typeof got[k] === "string" ? snippet(got[k], re) : null));
      });
    });
  }

  // One result: the title, date and tags, the section whose heading
  // matched, and the snippet (else the start of the page's text).
  function result(d, re, cut) {
    var li = document.createElement("li"), a = document.createElement("a");
    var url = d[0];
    var h = d[5].find(function (h) { return matches(h[1], re).length; });
    a.href = url;
    highlight(a, d[1], re);
    var title = document.createElement("h2");
    title.append(a);
    li.append(title);
    if (d[2] || d[3].length) {
      var meta = document.createElement("p");
      meta.className = "meta";
      if (d[2]) {
        var time = document.createElement("time");
        time.dateTime = d[2];
        time.textContent = dateText(d[2]);
        meta.append(time);
      }
      if (d[3].length) meta.append((d[2] ? " · " : "") + d[3].join(", "));
      li.append(meta);
    }
    if (h) {
      var sec = document.createElement("p"), ha = document.createElement("a");
      sec.className = "search-section";
      ha.href = url + "#" + h[0];
      highlight(ha, "§ " + h[1], re);
      sec.append(ha);
      li.append(sec);
    }
    var ex = document.createElement("p");
    ex.className = "search-snippet";
    highlight(ex, cut || d[4] + (d[4].length >= 130 && !/[.!?。！？…]$/.test(d[4]) ? "…" : ""), re);
    li.append(ex);
    return li;
  }

  var pending = "";
  function run() {
    var q = input.value;
    if (!docs) { pending = q; return; }
    show(q);
    var url = new URL(location.href);
    if (q) url.searchParams.set("q", q); else url.searchParams.delete("q");
    history.replaceState(null, "", url);
  }

  form.addEventListener("submit", function (e) { e.preventDefault(); run(); });
  input.addEventListener("input", run);
  input.addEventListener("keydown", function (e) {
    if (e.key === "ArrowDown") {
      var first = list.querySelector("a");
      if (first) { e.preventDefault(); first.focus(); }
    }
  });
  list.addEventListener("keydown", function (e) {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    var links = Array.from(list.querySelectorAll("h2 a"));
    var i = links.indexOf(document.activeElement.closest("li").querySelector("h2 a"));
    e.preventDefault();
    if (e.key === "ArrowUp" && i <= 0) input.focus();
    else if (links[i + (e.key === "ArrowDown" ? 1 : -1)]) links[i + (e.key === "ArrowDown" ? 1 : -1)].focus();
  });

  var q = new URL(location.href).searchParams.get("q") || "";
  input.value = q;
  status.textContent = strings.loading;
  function json(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    });
  }
  // the head, then every segment at once (each named by its version, so a
  // cached copy of an older one is never taken)
  json(base + "index.json").then(function (head) {
    return Promise.all(head.segments.map(function (s, g) {
      return json(base + "seg/" + g + ".json?v=" + s[1]);
    })).then(function (parts) { return [head, parts]; });
  }).then(function (got) {
    decode(got[0], got[1]);
    status.textContent = "";
    window.sheafSearch = search; // for tests and benchmarks
    run();
    if (pending && pending !== input.value) run();
  }).catch(function () { status.textContent = strings.failed; });
  if (!q) input.focus();
})();
