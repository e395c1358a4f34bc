// The default theme in a real browser, for accessibility: sheaf builds the
// example site plus the theme's mock posts (tables, footnotes, task lists,
// code, Chinese text) under a sub-path, and beside it (under nb/) a site of
// the real public notebooks of tests/nb/notebooks (plots, pandas tables,
// LaTeX, tracebacks, widgets' fallbacks; raw HTML outputs let through); headless Chromium (Debian's, driven
// by playwright-core) opens every kind of page light and dark, 375 and 1280
// px wide, and axe-core must find no violation. At 375 px the page itself
// must not scroll sideways: a wide Markdown table scrolls inside its own
// box, which the keyboard can focus and scroll.
//
// usage: node axe.mjs path/to/sheaf [SHOT_DIR]
// With SHOT_DIR, a screenshot of every page (light and dark, 375 and 1280
// px, the first screen) is saved there to look at: NAME-SCHEME-WIDTH.png.
// Exits 77 (ctest's "skipped") with a message when playwright-core,
// axe-core or Chromium is missing: `scripts/deps.sh test` installs them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(path.join(root, 'tests/package.json'));
const chromiumPath = '/usr/bin/chromium';

function skip(why) {
  console.log(`axe.mjs: skipped: ${why} (scripts/deps.sh test installs it)`);
  process.exit(77);
}

let chromium, axePath;
try {
  ({ chromium } = require('playwright-core'));
} catch {
  skip('no playwright-core in tests/node_modules');
}
try {
  axePath = require.resolve('axe-core/axe.min.js');
} catch {
  skip('no axe-core in tests/node_modules');
}
if (!fs.existsSync(chromiumPath)) skip(`no ${chromiumPath}`);

const sheaf = path.resolve(process.argv[2] || '');
const failures = [];
let checks = 0;
function check(what, cond, detail = '') {
  checks++;
  if (!cond) failures.push(what + (detail ? ': ' + detail : ''));
}

const types = {
  '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.xml': 'application/xml',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.txt': 'text/plain',
  '.js': 'text/javascript', '.json': 'application/json',
};

// Serves dir at /notes/ (the base path the site is built for).
function serve(dir) {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (!p.startsWith('/notes/')) { res.writeHead(404); res.end(); return; }
      p = path.join(dir, p.slice('/notes/'.length));
      if (!p.startsWith(dir)) { res.writeHead(403); res.end(); return; }
      if (fs.existsSync(p) && fs.statSync(p).isDirectory()) p = path.join(p, 'index.html');
      if (!fs.existsSync(p)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'Content-Type': types[path.extname(p)] || 'application/octet-stream' });
      res.end(fs.readFileSync(p));
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const pages = [
  'posts/gradient-compression-notes/',   // a wide table, footnotes, a task list, code
  'posts/in-network-aggregation/',       // the example site's table and footnote
  'posts/gradient-compression/',         // display math (and a Chinese note)
  'posts/distributed-training-research/',
  'posts/lab-notebook/',                 // a Jupyter notebook: outputs, a wide table, a traceback
  'posts/%E5%88%86%E5%B8%83%E5%BC%8F%E8%AE%AD%E7%BB%83%E7%AC%94%E8%AE%B0/',
  '', 'archive/', 'tags/', 'tags/distributed-training/', 'about/',
  'papers/', 'papers/lin2018dgc/',       // the paper graph (citations)
  'search/?q=gradient', 'search/?q=%E6%A2%AF%E5%BA%A6%E5%8E%8B%E7%BC%A9', '404.html',
];
// the real notebooks, as posts dated 2023-05-NN of the site under nb/
// (checked at both widths, in both schemes)
const notebooks = fs.readdirSync(path.join(root, 'tests/nb/notebooks')).filter((f) => f.endsWith('.ipynb')).sort();
for (const f of notebooks) pages.push(`nb/posts/${f.slice(0, -'.ipynb'.length).toLowerCase().replace(/_/g, '-')}/`);
const shots = process.argv[3] ? path.resolve(process.argv[3]) : null;
function shotName(p) {
  const name = decodeURIComponent(p).replace(/[?=]/g, '-').replace(/\/$/, '').replace(/[\/]/g, '_');
  return name || 'home';
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-axe-'));
  let server = null, browser = null;
  try {
    const site = path.join(tmp, 'site');
    fs.mkdirSync(path.join(site, 'content/posts'), { recursive: true });
    fs.copyFileSync(path.join(root, 'site.yaml'), path.join(site, 'site.yaml'));
    fs.copyFileSync(path.join(root, 'refs.bib'), path.join(site, 'refs.bib'));
    fs.cpSync(path.join(root, 'content'), path.join(site, 'content'), { recursive: true });
    for (const f of fs.readdirSync(path.join(here, 'mock')).filter((f) => /\.(md|ipynb)$/.test(f)))
      fs.copyFileSync(path.join(here, 'mock', f), path.join(site, 'content/posts', f));
    const nbSite = path.join(tmp, 'site-nb');
    fs.mkdirSync(path.join(nbSite, 'content/posts'), { recursive: true });
    fs.writeFileSync(path.join(nbSite, 'site.yaml'),
      'title: Notebooks\nbase_url: https://example.org/\nmarkdown:\n  unsafe: true\n');
    notebooks.forEach((f, i) => fs.copyFileSync(path.join(root, 'tests/nb/notebooks', f),
      path.join(nbSite, 'content/posts', `2023-05-${String(i + 1).padStart(2, '0')}-${f}`)));
    const out = path.join(tmp, 'out');
    server = await serve(out);
    const base = `http://127.0.0.1:${server.address().port}/notes/`;
    const b = spawnSync(sheaf, ['build', '-q', '-s', site, '-o', out, '--base-url', base],
      { encoding: 'utf8', timeout: 120000 });
    check('sheaf build', b.status === 0 && b.stderr === '', b.stderr);
    if (b.status !== 0) return;
    // (the notebooks' warnings, about outputs sheaf does not show, are expected)
    const nb = spawnSync(sheaf, ['build', '-q', '-s', nbSite, '-o', path.join(out, 'nb'), '--base-url', base + 'nb/'],
      { encoding: 'utf8', timeout: 120000 });
    check('sheaf build (notebooks)', nb.status === 0, nb.stderr);
    if (nb.status !== 0) return;

    // the post page stays small and its link preview data is sound
    for (const p of ['posts/distributed-training-research/', 'posts/gradient-compression/',
      'posts/gradient-compression-notes/']) {
      const html = fs.readFileSync(path.join(out, p, 'index.html'), 'utf8');
      const kb = Buffer.byteLength(html) / 1024;
      check(`${p}: under 40 KB`, kb < 40, `${kb.toFixed(1)} KB`);
      // (but the reading aids, on pages with code or notes: copy.js, preview.js)
      check(`${p}: no script file but the reading aids`,
            !/<script[^>]+src="(?![^"]*\/(copy|preview)\.js")/.test(html));
      const ld = html.match(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/);
      let data = null;
      try { data = ld && JSON.parse(ld[1]); } catch { data = null; }
      check(`${p}: JSON-LD parses`, data !== null);
      if (data) {
        for (const k of ['@context', '@type', 'headline', 'datePublished', 'dateModified', 'author', 'url'])
          check(`${p}: JSON-LD has ${k}`, data[k] !== undefined && data[k] !== '');
        check(`${p}: JSON-LD is a BlogPosting by a Person`,
          data['@type'] === 'BlogPosting' && data.author['@type'] === 'Person' && !!data.author.name);
      }
      for (const prop of ['og:title', 'og:type', 'og:url', 'og:description', 'article:published_time'])
        check(`${p}: ${prop}`, html.includes(`<meta property="${prop}" content="`));
    }
    const feed = fs.readFileSync(path.join(out, 'atom.xml'), 'utf8');
    check('atom.xml: links in entries are absolute', !/href=&quot;\/notes\//.test(feed) &&
      feed.includes(`href=&quot;${base}posts/`));
    const notFound = fs.readFileSync(path.join(out, '404.html'), 'utf8');
    check('404: noindex, no canonical', notFound.includes('<meta name="robots" content="noindex">') &&
      !notFound.includes('rel="canonical"'));

    browser = await chromium.launch({
      executablePath: chromiumPath, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    for (const scheme of ['light', 'dark']) {
      for (const width of [375, 1280]) {
        const ctx = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
        const page = await ctx.newPage();
        for (const p of pages) {
          const where = `${p || '/'} (${scheme}, ${width} px)`;
          const resp = await page.goto(base + p);
          check(`${where}: served`, resp && resp.ok());
          if (p.startsWith('search/'))
            await page.waitForSelector('.search-results li', { timeout: 20000 }).catch(() => {});
          if (shots) {
            fs.mkdirSync(shots, { recursive: true });
            // a picture to look at, not a check: Chromium's compositor now
            // and then cannot capture a frame on a busy machine ("Unable to
            // capture screenshot"), so it is asked once more before giving up
            const file = path.join(shots, `${shotName(p)}-${scheme}-${width}.png`);
            await page.screenshot({ path: file }).catch(async () => {
              await page.waitForTimeout(500);
              await page.screenshot({ path: file });
            });
          }
          await page.addScriptTag({ path: axePath });
          const found = await page.evaluate(async () => {
            const r = await window.axe.run(document, { resultTypes: ['violations'] });
            return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ` +
              v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
          });
          check(`${where}: axe-core violations`, found.length === 0, found.join('; '));
          if (width === 375) {
            const wide = await page.evaluate(() =>
              document.documentElement.scrollWidth - document.documentElement.clientWidth);
            check(`${where}: the page does not scroll sideways`, wide <= 0, `${wide} px too wide`);
          }
        }
        if (width === 375) {
          // the wide table scrolls in its box, and the keyboard reaches it
          await page.goto(base + pages[0]);
          const box = page.locator('.table-scroll').first();
          const sizes = await box.evaluate((e) => [e.scrollWidth, e.clientWidth, e.tabIndex]);
          check(`table box (${scheme}): wider than the screen, scrolls inside`, sizes[0] > sizes[1],
            `scrollWidth ${sizes[0]}, clientWidth ${sizes[1]}`);
          check(`table box (${scheme}): in the tab order`, sizes[2] === 0);
          let focused = false;
          for (let i = 0; i < 40 && !focused; i++) {
            await page.keyboard.press('Tab');
            focused = await box.evaluate((e) => document.activeElement === e);
          }
          check(`table box (${scheme}): Tab reaches it`, focused);
          await page.keyboard.press('ArrowRight');
          await page.keyboard.press('End');
          await page.waitForTimeout(200);
          const left = await box.evaluate((e) => e.scrollLeft);
          check(`table box (${scheme}): the keyboard scrolls it`, left > 0, `scrollLeft ${left}`);
        }
        await ctx.close();
      }
    }

    // the same site in Chinese (language: zh): the theme's words and dates
    // in Chinese, still no violation; built under /notes/zh/
    const zhSite = path.join(tmp, 'site-zh');
    // (not its build cache: a cache belongs to one site folder)
    fs.cpSync(site, zhSite, { recursive: true, filter: (src) => path.basename(src) !== '.sheaf-cache' });
    fs.writeFileSync(path.join(zhSite, 'site.yaml'),
      fs.readFileSync(path.join(site, 'site.yaml'), 'utf8').replace(/^language: .*$/m, 'language: zh'));
    const zb = spawnSync(sheaf, ['build', '-q', '-s', zhSite, '-o', path.join(out, 'zh'), '--base-url', base + 'zh/'],
      { encoding: 'utf8', timeout: 120000 });
    check('sheaf build (zh)', zb.status === 0 && zb.stderr === '', zb.stderr);
    for (const [scheme, width] of [['light', 375], ['dark', 1280]]) {
      const ctx = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
      const page = await ctx.newPage();
      for (const p of ['', 'posts/distributed-training-research/', 'archive/', 'search/?q=%E6%A2%AF%E5%BA%A6']) {
        const where = `zh/${p} (${scheme}, ${width} px)`;
        const resp = await page.goto(base + 'zh/' + p);
        check(`${where}: served`, resp && resp.ok());
        if (p.startsWith('search/'))
          await page.waitForSelector('.search-results li', { timeout: 20000 }).catch(() => {});
        const text = await page.textContent('body');
        check(`${where}: Chinese theme words`, text.includes('归档') && text.includes('标签'));
        if (p.startsWith('posts/'))
          check(`${where}: a Chinese date`, text.includes('2024年3月18日') && text.includes('分钟读完'));
        await page.addScriptTag({ path: axePath });
        const found = await page.evaluate(async () => {
          const r = await window.axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help}`);
        });
        check(`${where}: axe-core violations`, found.length === 0, found.join('; '));
        if (shots)
          await page.screenshot({ path: path.join(shots, `zh-${shotName(p)}-${scheme}-${width}.png`) });
      }
      await ctx.close();
    }
  } finally {
    if (browser) await browser.close();
    if (server) server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
for (const f of failures) console.log('FAIL ' + f);
console.log(`${checks - failures.length} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
