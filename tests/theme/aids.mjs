// Reading aids in a real browser (headless Chromium via playwright-core), on
// sheaf's build of the example site:
//  - a code block's copy button puts the code (no button label) on the
//    clipboard and says so;
//  - focusing a citation or a footnote mark shows the reference's or the
//    note's text in a popover, described to screen readers; Escape closes it;
//  - each page loads only the aids it uses: copy.js where there is code,
//    preview.js where there are citations or footnotes, none elsewhere
//    (a small second site has a page with code and nothing to preview);
//  - search shows the text around a match deep in a page, the match marked;
//  - /papers/ filters its works by the citing notes' tags (everything
//    shows without JavaScript).
// usage: node aids.mjs path/to/sheaf [SHOT_DIR]
// Exits 77 (ctest's "skipped") when playwright-core or Chromium is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

import { checks, chromiumOrSkip, chromiumPath, serveDir } from './browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const chromium = chromiumOrSkip('aids.mjs');

const sheaf = path.resolve(process.argv[2] || '');
const shots = process.argv[3];
const { check, done } = checks();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-aids-'));
const out = path.join(tmp, 'out');
const b = spawnSync(sheaf, ['build', '-s', root, '-o', out, '-q']);
if (b.status !== 0) { console.log(String(b.stderr)); process.exit(1); }

const server = await serveDir(out);
// (localhost is a secure context: the Clipboard API is there)
const base = `http://localhost:${server.address().port}`;

// The accessible description of the link the preview describes, as
// Chromium computes it for screen readers.
async function description(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector',
      { nodeId: root.nodeId, selector: '[aria-describedby="preview"]' });
    if (!nodeId) return '';
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    return (nodes[0] && nodes[0].description && nodes[0].description.value) || '';
  } finally {
    await cdp.detach();
  }
}

const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
const note = '/posts/in-network-aggregation/';
for (const width of [1280, 375])
  for (const scheme of ['light', 'dark']) {
    const what = `${width} px ${scheme}`;
    const ctx = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await ctx.newPage();
    await page.goto(base + note);

    // the copy button
    const code = await page.evaluate(() => {
      const c = document.querySelector('pre.hl code').cloneNode(true);
      c.querySelectorAll('.ln').forEach((n) => n.remove());
      return c.textContent;
    });
    const button = page.locator('pre.hl').first().locator('button.copy');
    check(`${what}: a code block has a copy button`, await button.count() === 1);
    await button.focus();
    await page.keyboard.press('Enter');
    await page.waitForTimeout(100);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    check(`${what}: the button copies the code`, copied === code && code.includes('def send_chunk'),
      JSON.stringify(copied.slice(0, 80)));
    check(`${what}: the button says it copied`, (await button.textContent()) === 'Copied');

    // a citation's preview, by keyboard
    const cite = page.locator('.citation a[href="#ref-sapio2021switchml"]').first();
    await cite.focus();
    const pop = page.locator('#preview');
    check(`${what}: focusing a citation shows its reference`, await pop.isVisible() &&
      (await pop.textContent()).includes('Scaling Distributed Machine Learning with In-Network Aggregation'),
      await pop.textContent().catch(() => ''));
    check(`${what}: the citation is described by the preview`, await cite.getAttribute('aria-describedby') === 'preview' &&
      (await description(page)).includes('Scaling Distributed Machine Learning'), await description(page));
    check(`${what}: only the link shown is described by it`, await page.evaluate(() =>
      document.querySelectorAll('[aria-describedby="preview"]').length === 1));
    // (focus scrolls the link into view, smoothly: wait till it stops)
    const settled = () => page.waitForFunction(() => new Promise((r) => {
      const y = scrollY;
      requestAnimationFrame(() => requestAnimationFrame(() => r(scrollY === y)));
    }));
    await settled();
    // (the link in the middle of the window, where either side has room)
    const middle = (l) => l.evaluate((a) => a.scrollIntoView({ block: 'center', behavior: 'instant' }));
    await middle(cite);
    await settled();
    const inView = () => page.evaluate(() => {
      const r = document.getElementById('preview').getBoundingClientRect();
      return r.left >= 0 && r.right <= document.documentElement.clientWidth + 0.5 && r.width > 0 &&
        r.top >= 0 && r.bottom <= innerHeight + 0.5;
    });
    check(`${what}: the preview stays in the window`, await inView(), await page.evaluate(() => {
      const r = document.getElementById('preview').getBoundingClientRect();
      const a = document.activeElement.getBoundingClientRect();
      return `preview ${[r.left, r.top, r.right, r.bottom].map(Math.round)}, link ${[a.left, a.top, a.right, a.bottom].map(Math.round)}`;
    }));
    // (placed by the style sheet: just under its link, or just above it
    // near the window's bottom, never over it, and across from it)
    const placed = await page.evaluate(() => {
      const p = document.getElementById('preview').getBoundingClientRect();
      const a = document.activeElement.getBoundingClientRect();
      const below = p.top >= a.bottom - 0.5 && p.top - a.bottom <= 12;
      const above = p.bottom <= a.top + 0.5 && a.top - p.bottom <= 12;
      return (below || above) && p.left <= a.right && p.right >= a.left;
    });
    check(`${what}: the preview is next to its link, not over it`, placed);
    check(`${what}: the preview has no id of the page`, await page.evaluate(() =>
      document.querySelectorAll('#preview [id]').length === 0));
    if (shots) {
      fs.mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, `aids-cite-${width}-${scheme}.png`) });
    }
    await page.keyboard.press('Escape');
    check(`${what}: Escape closes the preview`, !(await pop.isVisible()));

    // a footnote's preview, by hover
    const fn = page.locator('.footnote-ref a').first();
    await middle(fn);
    await settled();
    await fn.hover();
    // (what is shown and read: the way back, ↩, is in the copy but not shown)
    const ftext = await pop.innerText();
    check(`${what}: hovering a footnote mark shows the note`, await pop.isVisible() &&
      ftext.includes('unmodified Tofino') && !ftext.includes('↩'), ftext);
    const fdesc = await description(page);
    check(`${what}: the mark is described by the note alone`,
      fdesc.includes('unmodified Tofino') && !fdesc.includes('Back to content') && !fdesc.includes('↩'), fdesc);
    check(`${what}: the note stays in the window`, await inView());
    if (shots) await page.screenshot({ path: path.join(shots, `aids-note-${width}-${scheme}.png`) });
    await page.mouse.move(0, 0);
    check(`${what}: leaving the mark closes the note`, !(await pop.isVisible()));
    check(`${what}: the page is no wider than the window`,
      await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
    await ctx.close();
  }

// each page loads only the aids it uses
const small = path.join(tmp, 'small');
fs.mkdirSync(path.join(small, 'content/posts'), { recursive: true });
fs.writeFileSync(path.join(small, 'site.yaml'), 'title: "Small"\nbase_url: https://example.org\n');
fs.writeFileSync(path.join(small, 'content/posts/2024-01-01-code.md'),
  '---\ntitle: "Code only"\n---\nSome code:\n\n```c\nint main(void) { return 0; }\n```\n');
const smallOut = path.join(tmp, 'small-out');
const sb = spawnSync(sheaf, ['build', '-s', small, '-o', smallOut, '-q']);
if (sb.status !== 0) { console.log(String(sb.stderr)); process.exit(1); }
const smallServer = await serveDir(smallOut);
const smallBase = `http://localhost:${smallServer.address().port}`;
const page = await browser.newPage();
for (const [where, url, wants] of [[base, note, ['copy.js', 'preview.js']],
  [base, '/posts/distributed-training-research/', ['preview.js']],
  [smallBase, '/posts/code/', ['copy.js']],
  [base, '/', []], [base, '/about/', []], [base, '/tags/', []]]) {
  const scripts = [];
  page.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(r.url()); });
  const res = await page.goto(where + url);
  page.removeAllListeners('request');
  if (!res || res.status() !== 200) { check(`${url} is there`, false); continue; }
  const names = scripts.map((s) => s.slice(s.lastIndexOf('/') + 1)).sort();
  check(`${url} loads ${wants.join(' and ') || 'no script file'}`,
    JSON.stringify(names) === JSON.stringify(wants), scripts.join(' '));
  if (where === smallBase) {
    check(`${url}: the code block has a copy button`, await page.locator('pre.hl button.copy').count() === 1);
    check(`${url}: no preview popover`, await page.locator('#preview').count() === 0);
  }
}
smallServer.close();
// each aid is a few hundred bytes (issue 33): the preview's work is in
// the page (its popover) and the style sheet (its place), the script only
// copies the text and shows it
for (const [f, max, raw] of [['copy.js', 400, 450], ['preview.js', 350, 400]]) {
  const bytes = fs.readFileSync(path.join(out, f));
  const n = zlib.gzipSync(bytes, { level: 9 }).length;
  check(`${f} is ${n} bytes gzipped, at most ${max}`, n <= max);
  check(`${f} is ${bytes.length} bytes, at most ${raw}`, bytes.length <= raw);
}
// search: a word deep in a page (not in the index's excerpt) is shown in
// the result with the text around it, marked
{
  const segs = JSON.parse(fs.readFileSync(path.join(out, 'search/index.json'), 'utf8')).segments;
  const doc = segs.flatMap((_, g) => JSON.parse(fs.readFileSync(path.join(out, `search/seg/${g}.json`), 'utf8')).docs)
    .find((d) => d[0] === note);
  check('search: "CollNet" is not in the stored excerpt', doc && !doc[4].includes('CollNet'), doc && doc[4]);
  await page.goto(base + '/search/?q=CollNet');
  const ex = page.locator(`.search-results li:has(a[href="${note}"]) > p:last-child`);
  await page.waitForFunction(() => document.querySelector('.search-results li > p:last-child mark'), null,
    { timeout: 10000 }).catch(() => {});
  const text = await ex.textContent().catch(() => '');
  check('search: the snippet shows the text around a match deep in the page',
    /NCCL uses it through its CollNet plugin/.test(text) && text.startsWith('…'), text);
  check('search: the match is marked', await ex.locator('mark').first().textContent().catch(() => '') === 'CollNet');
}
// /papers/: the filter by the citing notes' tags shows the works cited
// in notes of that tag and hides the years left empty; without
// JavaScript there is no filter and every work shows
{
  await page.goto(base + '/papers/');
  const filter = page.locator('#paper-tag');
  check('papers: the filter shows', await filter.isVisible());
  const all = await page.locator('.papers li').count();
  await filter.selectOption('networking');
  const shown = await page.locator('.papers li:visible').count();
  const tagged = await page.locator('.papers li[data-tags~="networking"]').count();
  check('papers: a tag shows the works its notes cite, only those', shown === tagged && shown > 0 && shown < all,
    `${shown} shown, ${tagged} tagged, ${all} in all`);
  const emptyYears = await page.evaluate(() => [...document.querySelectorAll('.papers-year')]
    .filter((y) => !y.querySelector('li:not([hidden])')).every((y) => y.hidden));
  check('papers: a year with none of them is hidden', emptyYears);
  await filter.selectOption('');
  check('papers: "any tag" shows every work again', await page.locator('.papers li:visible').count() === all);
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const plain = await ctx.newPage();
  await plain.goto(base + '/papers/');
  check('papers without JavaScript: no filter, every work',
    !(await plain.locator('#paper-tag').isVisible()) && await plain.locator('.papers li:visible').count() === all);
  await ctx.close();
}
await browser.close();
server.close();
fs.rmSync(tmp, { recursive: true, force: true });
done('aids');
