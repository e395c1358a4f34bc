// mathvis.mjs — the formulas sheaf writes, drawn by Chromium and Firefox
// ESR, against KaTeX's own HTML+CSS rendering of the same TeX (Debian's
// libjs-katex, its CSS and fonts), which looks as TeX does.
//
//   node tests/theme/mathvis.mjs path/to/sheaf SHOT_DIR
//
// About forty formulas (scripts, fractions, \mathbb, \mathcal,
// \boldsymbol, aligned, cases, matrices, \left…\right, accents,
// \operatorname, big operators with limits, numbered equations) go in one
// page built by sheaf and in one page of KaTeX's HTML. A small local
// server serves both and adds to each a script that measures the page in
// the browser and posts what it found back to the server; so Chromium
// (driven by playwright-core) and Firefox ESR (`firefox-esr --headless`,
// which playwright-core cannot drive) are measured the same way. Checked:
//  - letters: each \mathbb, \mathcal, \mathfrak, \mathbf, \boldsymbol,
//    \mathsf, \mathtt letter is its Mathematical Alphanumeric code point in
//    sheaf's DOM, and no mathvariant but "normal" is left;
//  - columns of aligned, cases, arrays and matrices: in each column, the
//    edge it aligns on (KaTeX's col-align) varies across rows as much as in
//    KaTeX's rendering, and the space between columns is KaTeX's, within
//    2 px (KaTeX's lengths scaled to sheaf's font size);
//  - operators in scripts (w_{t+j}, limits), and operator names and bar
//    delimiters anywhere (\log x, \lVert θ \rVert): the space on each side
//    within 1 px of KaTeX's;
//  - equation numbers: inside the window and their box, at 375 and 1280 px;
//  - inline math: never makes the page wider than the window; the
//    punctuation after a formula stays on the formula's line.
// Screenshots (sheaf at 375 and 1280 px, light and dark, in both browsers;
// KaTeX's page) go to SHOT_DIR. Exit 77 (skipped) without playwright-core,
// Chromium or Firefox ESR.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(path.join(root, 'tests/package.json'));
const chromiumPath = '/usr/bin/chromium';
const firefoxPath = '/usr/bin/firefox-esr';
const katexDir = '/usr/share/javascript/katex';

function skip(why) {
  console.log(`mathvis.mjs: skipped: ${why} (scripts/deps.sh test installs it)`);
  process.exit(77);
}
let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch {
  skip('no playwright-core in tests/node_modules');
}
for (const p of [chromiumPath, firefoxPath, path.join(katexDir, 'katex.min.js')])
  if (!fs.existsSync(p)) skip(`no ${p}`);
const katex = require(path.join(katexDir, 'katex.min.js'));

const sheaf = path.resolve(process.argv[2] || '');
const shots = path.resolve(process.argv[3] || path.join(os.tmpdir(), 'sheaf-math-shots'));
fs.mkdirSync(shots, { recursive: true });

const failures = [];
let checks = 0;
function check(what, cond, detail = '') {
  checks++;
  if (!cond) failures.push(what + (detail ? ': ' + detail : ''));
}

// The formulas. letters: code points sheaf must write; table: compare the
// columns; script: tokens (in order, inside a script) whose spacing to
// compare; spacing: the same for tokens anywhere; label: numbered (sheaf's
// \label; KaTeX's \tag).
const F = [
  { tex: 'w_{t+j}', script: ['t', '+', 'j'] },
  { tex: 'w_{t+k}', script: ['t', '+', 'k'] },
  { tex: 'x^{n-1}', script: ['n', '−', '1'] },
  { tex: '\\sum_{i=1}^{n} x_i', script: ['i', '=', '1'] },
  { tex: '\\lim_{n \\to \\infty} a_n', script: ['n', '→', '∞'] },
  { tex: 'x_{i,j}^{(k)}', script: ['i', ',', 'j'] },
  { tex: 'a + \\log x', spacing: ['log', 'x'] },
  { tex: '\\operatorname{KL} q', spacing: ['KL', 'q'] },
  { tex: '\\lambda \\lVert \\theta \\rVert + \\lvert y \\rvert', spacing: ['λ', '∥', 'θ', '∥', '+', '∣', 'y', '∣'] },
  { tex: 'e^{-x^2/2}' },
  { tex: '\\frac{a+b}{c-d}' },
  { tex: '\\frac{1}{1+\\frac{1}{x}}' },
  { tex: '\\binom{n}{k} = \\frac{n!}{k!\\,(n-k)!}' },
  { tex: '\\mathbb{R}^n', letters: 'ℝ' },
  { tex: '\\mathbb{E}[X]', letters: '𝔼' },
  { tex: '\\mathbb{N} \\subset \\mathbb{Z} \\subset \\mathbb{Q} \\subset \\mathbb{C}', letters: 'ℕℤℚℂ' },
  { tex: '\\mathbb{1}_{A}', letters: '𝟙' },
  { tex: '\\mathcal{B}(\\mathcal{H})', letters: 'ℬℋ' },
  { tex: '\\mathcal{L}_\\theta + \\mathcal{A}', letters: 'ℒ𝒜' },
  { tex: '\\mathfrak{F} \\mathfrak{g}', letters: '𝔉𝔤' },
  { tex: '\\mathbf{x}^\\top \\mathbf{A} \\mathbf{x}', letters: '𝐱𝐀' },
  { tex: '\\boldsymbol{\\alpha} + \\boldsymbol{\\mu}', letters: '𝜶𝝁' },
  { tex: '\\boldsymbol{\\theta x}', letters: '𝜽𝒙' },
  { tex: '\\mathsf{T} \\mathtt{x}', letters: '𝖳𝚡' },
  { tex: '\\mathrm{d}x' },
  { tex: '\\begin{aligned} f(x) &= (x+1)^2 \\\\ &= x^2 + 2x + 1 \\end{aligned}', table: true },
  { tex: '\\begin{aligned} a &= b \\\\ ccc &= d + e + f \\end{aligned}', table: true },
  { tex: '|x| = \\begin{cases} x & \\text{if } x \\ge 0 \\\\ -x & \\text{otherwise} \\end{cases}', table: true },
  { tex: 'f(n) = \\begin{cases} n/2 & n \\text{ even} \\\\ 3n+1 & n \\text{ odd} \\end{cases}', table: true },
  { tex: '\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', table: true },
  { tex: '\\begin{bmatrix} a_{11} & a_{12} & a_{13} \\\\ a_{21} & a_{22} & a_{23} \\end{bmatrix}', table: true },
  { tex: '\\begin{array}{lcr} x & yy & zzz \\\\ xxx & y & z \\end{array}', table: true },
  { tex: '\\begin{matrix} a & bbb \\\\ cc & d \\end{matrix}', table: true },
  { tex: '\\left( \\frac{a}{b} \\right)^2' },
  { tex: '\\left\\{ x \\mid x > 0 \\right\\}' },
  { tex: '\\left\\lVert \\mathbf{v} \\right\\rVert_2', letters: '𝐯∥' },
  { tex: '\\hat{x} + \\tilde{y} + \\bar{z} + \\vec{v} + \\dot{a}' },
  { tex: '\\widehat{xyz} \\; \\overline{AB}' },
  { tex: '\\operatorname{arg\\,max}_{\\theta} L(\\theta)' },
  { tex: '\\operatorname{Var}(X) = \\mathbb{E}[X^2] - \\mathbb{E}[X]^2', letters: '𝔼' },
  { tex: '\\int_0^1 f(x)\\,dx' },
  { tex: '\\prod_{k=1}^{K} p_k' },
  { tex: '\\sqrt{x^2+y^2} + \\sqrt[3]{x}' },
  { tex: '\\nabla_\\theta J(\\theta) \\le \\epsilon' },
  { tex: 'E = mc^2', label: 1 },
  { tex: '\\sum_{i=1}^{N} \\left( y_i - \\mathbf{w}^\\top \\mathbf{x}_i - b \\right)^2 + \\lambda \\lVert \\mathbf{w} \\rVert_2^2 + \\mu \\lVert \\mathbf{w} \\rVert_1', label: 2 },
];

// Inline formulas followed by punctuation, at every position along a line.
const INLINE = [];
for (let k = 0; k < 24; k++)
  INLINE.push(`${'word '.repeat(k)}and $x_{i}$, then $\\mathbb{R}^n$. More text follows here.`);
const WIDE_INLINE = '$' + Array.from({ length: 30 }, (_, i) => `a_{${i}}`).join(' + ') + '$';

function buildSheafSite(dir) {
  fs.mkdirSync(path.join(dir, 'content'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'site.yaml'), 'title: Math\nbase_url: http://127.0.0.1/\n');
  let md = '---\ntitle: Formulas\n---\n';
  F.forEach((f, i) => {
    md += `\n$$\n${f.tex}${f.label ? ` \\label{eq:${f.label}}` : ''}\n$$\n`;
  });
  md += '\n' + INLINE.map((p) => p + '\n').join('\n') + '\nA wide one: ' + WIDE_INLINE + '.\n';
  fs.writeFileSync(path.join(dir, 'content', 'formulas.md'), md);
  const r = spawnSync(sheaf, ['build', '-q', '-s', dir, '-o', path.join(dir, 'public')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('sheaf build failed: ' + r.stderr);
}

function katexPage() {
  let body = '';
  F.forEach((f, i) => {
    const tex = f.label ? `${f.tex} \\tag{${f.label}}` : f.tex;
    body += `<div class="f" data-i="${i}">${katex.renderToString(tex, { displayMode: true, output: 'html', throwOnError: true })}</div>\n`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>KaTeX</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/katex/katex.min.css">
<style>body { font: 16px/1.6 serif; max-width: 42rem; margin: 0 auto; padding: 1rem; }</style>
</head><body>${body}</body></html>`;
}

// Runs in the page: measures it, posts the result to /__result?name=….
const MEASURE = String.raw`
(async () => {
  const name = document.currentScript.dataset.name;
  await document.fonts.ready;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const R = (e) => { const b = e.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom }; };
  // a token's text by its advance (Firefox gives an element the box of its ink)
  const T = (e) => { const r = document.createRange(); r.selectNodeContents(e); const b = r.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom }; };
  const union = (els) => { const rs = els.map(R); return rs.length ? { l: Math.min(...rs.map((x) => x.l)), r: Math.max(...rs.map((x) => x.r)), t: Math.min(...rs.map((x) => x.t)), b: Math.max(...rs.map((x) => x.b)) } : null; };
  const txt = (e) => e.textContent.replace(/[\u200b\u2060]/g, '').trim();
  const leaves = (box) => [...box.querySelectorAll('*')].filter((e) => !e.firstElementChild && txt(e) && !e.closest('annotation'));
  const out = { katex: !!document.querySelector('.katex'), formulas: [], inline: [], width: innerWidth, scrollWidth: document.documentElement.scrollWidth };
  const boxes = out.katex ? [...document.querySelectorAll('.f')] : [...document.querySelectorAll('.math-scroll')];
  for (const box of boxes) {
    const f = {};
    const m = out.katex ? box.querySelector('.katex-html') : box.querySelector('math');
    f.fs = parseFloat(getComputedStyle(out.katex ? box.querySelector('.katex') : m).fontSize);
    f.leaves = leaves(m).map((e) => ({ s: txt(e), ...T(e), script: out.katex ? !!e.closest('.msupsub, .op-limits') : !!e.closest('msub > :not(:first-child), msup > :not(:first-child), msubsup > :not(:first-child), munderover > :not(:first-child), munder > :not(:first-child), mover > :not(:first-child)') }));
    if (!out.katex) {
      const clone = m.cloneNode(true);
      clone.querySelectorAll('annotation').forEach((a) => a.remove());
      f.text = clone.textContent;
      f.variants = [...m.querySelectorAll('[mathvariant]')].map((e) => e.getAttribute('mathvariant')).filter((v) => v !== 'normal');
      const eq = box.querySelector('.eqno');
      if (eq) { const b = R(box), e = R(eq); f.eqno = { ...e, box: b, visible: e.l >= Math.max(0, b.l) - 0.5 && e.r <= Math.min(innerWidth, b.r) + 0.5 && e.r > e.l }; }
    }
    // table cells: rows × columns of content boxes, and each column's alignment
    const t = out.katex ? m.querySelector('.mtable') : m.querySelector('mtable');
    if (t) {
      const rows = [], align = [];
      if (out.katex) {
        const cols = [...t.children].filter((c) => /col-align-/.test(c.className));
        cols.forEach((c, j) => {
          align.push(c.className.match(/col-align-(.)/)[1]);
          const cells = [...c.querySelector('.vlist').children].filter((s) => s.lastElementChild && !s.lastElementChild.classList.contains('pstrut'));
          cells.forEach((s, i) => { (rows[i] ||= [])[j] = R(s.lastElementChild); });
        });
      } else {
        for (const tr of t.querySelectorAll(':scope > mtr')) {
          const cells = [...tr.children].filter((c) => c.localName === 'mtd' && !/width/.test(c.getAttribute('style') || '') && !c.classList.contains('mml-eqn-num'));
          rows.push(cells.map((c) => union([...c.children]) || R(c)));
        }
      }
      f.rows = rows;
      f.align = align;
    }
    out.formulas.push(f);
  }
  // inline: whether the punctuation after each formula sits on the formula's line
  for (const m of document.querySelectorAll('p math')) {
    const n = m.nextSibling;
    let same = null;
    if (n && n.nodeType === 3 && /^[,.]/.test(n.data)) {
      const r = document.createRange(); r.setStart(n, 0); r.setEnd(n, 1);
      const c = r.getBoundingClientRect(), b = m.getBoundingClientRect();
      same = c.top < b.bottom && c.bottom > b.top && c.left >= b.right - 1;
      if (!same) same = JSON.stringify({ comma: [c.left, c.top, c.bottom], math: [b.left, b.right, b.top, b.bottom] });
    }
    out.inline.push({ same });
  }
  await fetch('/__result?name=' + encodeURIComponent(name), { method: 'POST', body: JSON.stringify(out) });
})();
`;

const types = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.woff2': 'font/woff2', '.woff': 'font/woff',
  '.ttf': 'font/ttf', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.json': 'application/json',
};
const waiting = new Map(), holds = new Map(), posted = new Set();
function result(name, ms = 90000) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { waiting.delete(name); reject(new Error(`no measurements from ${name} in ${ms / 1000} s`)); }, ms);
    waiting.set(name, (v) => { clearTimeout(t); resolve(v); });
  });
}
function serve(site, katexHtml) {
  return http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/__result') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.end('ok');
        const name = url.searchParams.get('name');
        posted.add(name);
        if (holds.has(name)) { holds.get(name)(); holds.delete(name); }
        const w = waiting.get(url.searchParams.get('name'));
        if (w) { waiting.delete(url.searchParams.get('name')); w(JSON.parse(body)); }
      });
      return;
    }
    if (url.pathname === '/__hold') {
      // an image the page waits for: answered once the page has posted its
      // measurements, so the load event (and Firefox's screenshot) waits too
      const name = url.searchParams.get('name');
      const answer = () => { res.writeHead(200, { 'content-type': 'image/svg+xml' }); res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'); };
      if (posted.has(name)) answer(); else holds.set(name, answer);
      return;
    }
    if (url.pathname === '/__measure.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(MEASURE);
    }
    let file, html = null;
    if (url.pathname === '/katex.html') html = katexHtml;
    else if (url.pathname.startsWith('/katex/')) file = path.join(katexDir, path.normalize(url.pathname.slice(7)));
    else {
      file = path.join(site, path.normalize(decodeURIComponent(url.pathname)));
      if (file.endsWith('/')) file += 'index.html';
    }
    if (html === null) {
      if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404); return res.end(); }
      if (!file.endsWith('.html')) {
        res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
        return res.end(fs.readFileSync(file));
      }
      html = fs.readFileSync(file, 'utf8');
    }
    const name = url.searchParams.get('measure');
    // Firefox's headless screenshot does not follow a dark system theme:
    // its dark runs ask for the theme's own dark switch instead
    if (url.searchParams.get('scheme') === 'dark') html = html.replace('<html ', '<html data-theme="dark" ');
    if (name) html = html.replace('</body>', `<script src="/__measure.js" data-name="${name}"></script><img alt="" src="/__hold?name=${name}" style="position:absolute;top:0"></body>`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
}

// Firefox ESR: one headless run per page and width, in a fresh profile,
// takes the screenshot; the page posts its measurements while it loads.
async function firefox(url, name, width, height, scheme, shot) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-ff-'));
  fs.writeFileSync(path.join(profile, 'user.js'),
    `user_pref("ui.systemUsesDarkTheme", ${scheme === 'dark' ? 1 : 0});\n` +
    `user_pref("layout.css.prefers-color-scheme.content-override", 2);\n` +
    'user_pref("browser.shell.checkDefaultBrowser", false);\n');
  try {
    const got = result(name, 60000);
    const ff = spawn(firefoxPath, ['--headless', '-no-remote', '-profile', profile, '--screenshot', shot,
      `--window-size=${width},${height}`, `${url}?measure=${name}&scheme=${scheme}`],
    { env: { ...process.env, MOZ_HEADLESS: '1', HOME: profile }, stdio: 'ignore' });
    const exited = new Promise((r) => ff.on('exit', (code) => r(code)));
    let v;
    try {
      v = await got;
    } finally {
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 60000))]);
      if (code === 'timeout') ff.kill('SIGKILL');
      check(`firefox: screenshot ${path.basename(shot)}`, code === 0 && fs.existsSync(shot), `exit ${code}`);
    }
    return v;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

function edges(rows, j, a) {
  return rows.map((r) => r[j]).filter(Boolean).map((c) => (a === 'r' ? c.r : a === 'l' ? c.l : (c.l + c.r) / 2));
}
const spread = (xs) => Math.max(...xs) - Math.min(...xs);

// Compares one browser's measurements of sheaf's page with KaTeX's page.
function compare(where, s, k, width) {
  check(`${where}: ${F.length} display formulas`, s.formulas.length === F.length, `got ${s.formulas.length}`);
  F.forEach((f, i) => {
    const a = s.formulas[i], b = k.formulas[i];
    if (!a || !b) return;
    const what = `${where}: $${f.tex}$`;
    const scale = a.fs / b.fs;
    if (f.letters)
      for (const ch of f.letters) check(`${what}: letter U+${ch.codePointAt(0).toString(16).toUpperCase()} (${ch}) in the DOM`, a.text.includes(ch), JSON.stringify(a.text));
    check(`${what}: no mathvariant left`, a.variants.length === 0, a.variants.join(' '));
    if (f.table) {
      check(`${what}: a table in both`, a.rows && b.rows, '');
      if (!a.rows || !b.rows) return;
      check(`${what}: rows × columns`, a.rows.length === b.rows.length && a.rows[0].length === b.rows[0].length,
        `sheaf ${a.rows.length}×${a.rows[0]?.length}, KaTeX ${b.rows.length}×${b.rows[0]?.length}`);
      const cols = Math.min(a.rows[0].length, b.align.length);
      for (let j = 0; j < cols; j++) {
        const al = b.align[j];
        const ds = spread(edges(a.rows, j, al)), dk = spread(edges(b.rows, j, al)) * scale;
        check(`${what}: column ${j + 1} aligned (${al}) as in KaTeX within 2 px`, Math.abs(ds - dk) <= 2, `sheaf ${ds.toFixed(2)} px, KaTeX ${dk.toFixed(2)} px`);
        if (j + 1 < cols) {
          const gs = Math.min(...a.rows.map((r) => r[j + 1].l)) - Math.max(...a.rows.map((r) => r[j].r));
          const gk = (Math.min(...b.rows.map((r) => r[j + 1].l)) - Math.max(...b.rows.map((r) => r[j].r))) * scale;
          check(`${what}: space between columns ${j + 1} and ${j + 2} as in KaTeX within 2 px`, Math.abs(gs - gk) <= 2, `sheaf ${gs.toFixed(2)} px, KaTeX ${gk.toFixed(2)} px`);
        }
      }
    }
    const seq = f.script || f.spacing;
    if (seq) {
      // a name's last letters may be a leaf of their own in KaTeX's HTML
      // ("lo" then "g"); U+2061 is an invisible leaf of sheaf's MathML
      const same = (l, t) => l.s === t || (t.length > 1 && l.s.length > 0 && t.endsWith(l.s));
      const find = (all) => {
        const ls = all.filter((l) => l.s !== '\u2061');
        for (let x = 0; x + seq.length <= ls.length; x++)
          if (seq.every((t, y) => same(ls[x + y], t) && (!f.script || ls[x + y].script))) return ls.slice(x, x + seq.length);
        return null;
      };
      const ta = find(a.leaves), tb = find(b.leaves);
      check(`${what}: the tokens ${seq.join(' ')} in both`, ta && tb,
        JSON.stringify(a.leaves.map((l) => l.s)) + ' / ' + JSON.stringify(b.leaves.map((l) => l.s)));
      if (ta && tb)
        for (let y = 0; y + 1 < ta.length; y++) {
          // Firefox lays out a token by its ink, and the italic j of the
          // math font reaches left of its advance: it stands about 1.3 px
          // further right than in Chromium or KaTeX, whatever the spacing
          // (w_{t+k} checks the same spacing there)
          if (where.startsWith('firefox') && seq[y + 1] === 'j') continue;
          const gs = ta[y + 1].l - ta[y].r, gk = (tb[y + 1].l - tb[y].r) * scale;
          check(`${what}: space between '${seq[y]}' and '${seq[y + 1]}' within 1 px of KaTeX's`, Math.abs(gs - gk) <= 1,
            `sheaf ${gs.toFixed(2)} px, KaTeX ${gk.toFixed(2)} px`);
        }
    }
    if (f.label) {
      check(`${what}: its number is shown`, a.eqno, '');
      if (a.eqno) check(`${what}: its number is inside the window and its box at ${width} px`, a.eqno.visible, JSON.stringify(a.eqno));
    }
  });
  check(`${where}: inline formulas: ${INLINE.length * 2 + 1} of them`, s.inline.length === INLINE.length * 2 + 1, `got ${s.inline.length}`);
  s.inline.forEach((m, i) => {
    // (the last one is wider than a phone: it has the line to itself)
    if (i + 1 < s.inline.length)
      check(`${where}: the punctuation after inline formula ${i + 1} is on its line`, m.same === true, m.same);
  });
  check(`${where}: the page is no wider than the window`, s.scrollWidth <= s.width, `${s.scrollWidth} > ${s.width}`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-mathvis-'));
let server, browser;
try {
  buildSheafSite(tmp);
  const pub = path.join(tmp, 'public');
  server = serve(pub, katexPage());
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const sheafUrl = `${base}/formulas/`, katexUrl = `${base}/katex.html`;

  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const measured = {};
  for (const width of [375, 1280]) {
    for (const scheme of ['light', 'dark']) {
      const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await ctx.newPage();
      for (const [what, url] of [['sheaf', sheafUrl], ['katex', katexUrl]]) {
        if (what === 'katex' && scheme === 'dark') continue;
        const name = `chromium-${what}-${width}-${scheme}`;
        const got = result(name);
        await page.goto(`${url}?measure=${name}`);
        measured[name] = await got;
        await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
      }
      await ctx.close();
    }
  }
  for (const width of [375, 1280])
    for (const scheme of ['light', 'dark'])
      compare(`chromium ${width} px ${scheme}`, measured[`chromium-sheaf-${width}-${scheme}`], measured[`chromium-katex-${width}-light`], width);

  for (const width of [375, 1280]) {
    const k = await firefox(katexUrl, `firefox-katex-${width}`, width, 900, 'light', path.join(shots, `firefox-katex-${width}.png`));
    for (const scheme of ['light', 'dark']) {
      const s = await firefox(sheafUrl, `firefox-sheaf-${width}-${scheme}`, width, 900, scheme, path.join(shots, `firefox-sheaf-${width}-${scheme}.png`));
      compare(`firefox ${width} px ${scheme}`, s, k, width);
    }
  }
} catch (e) {
  failures.push(String(e && e.stack || e));
} finally {
  if (browser) await browser.close();
  if (server) server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
for (const f of failures) console.log('FAIL ' + f);
console.log(`mathvis: ${checks - failures.length} of ${checks} checks passed; screenshots in ${shots}`);
console.log(`${failures.length ? 0 : 1} passed, ${failures.length ? 1 : 0} failed`);
process.exit(failures.length ? 1 : 0);
