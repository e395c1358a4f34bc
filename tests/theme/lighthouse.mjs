// Lighthouse (npm lighthouse, pinned in tests/package.json) on sheaf's build
// of the example site, as a phone sees it (Lighthouse's default: mobile
// emulation, simulated slow 4G and a 4× slower CPU), served gzipped as hosts
// serve it: the home page, a post with math, code and citations, and
// /papers/; and a figure-heavy note (tests/theme/figures: a photo with its
// responsive variants, an image of static/, an SVG, a dot diagram, the
// figure shortcode, labelled figures; the images are the images fixture's)
// built under /fig/. Each page is measured three times and the median performance
// score and layout shift taken; the targets (issue 33):
//   performance ≥ 95, accessibility 100, cumulative layout shift 0,
//   total transfer ≤ 80 KB (80,000 bytes, the math font included).
// Prints each page's figures as one line. A loaded machine slows the
// simulated CPU too: run it on an idle one (it is labelled slow).
// usage: node lighthouse.mjs path/to/sheaf [REPORT_DIR]
// Exits 77 (ctest's "skipped") without lighthouse, chrome-launcher or
// Chromium.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { checks, chromiumPath, serveDir } from './browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const req = createRequire(path.join(root, 'tests/package.json'));
let lighthouse, launch;
try {
  lighthouse = (await import(pathToFileURL(req.resolve('lighthouse')))).default;
  // (lighthouse's own chrome-launcher, whatever npm's layout)
  ({ launch } = await import(pathToFileURL(createRequire(req.resolve('lighthouse')).resolve('chrome-launcher'))));
} catch (e) {
  console.log(`lighthouse.mjs: skipped: no lighthouse in tests/node_modules (${e.message})`);
  process.exit(77);
}
if (!fs.existsSync(chromiumPath)) {
  console.log(`lighthouse.mjs: skipped: no ${chromiumPath}`);
  process.exit(77);
}

const TARGET = { performance: 95, accessibility: 100, cls: 0, bytes: 80000 };
const RUNS = 3;
const pages = [
  ['home', '/'],
  ['math, code and citations', '/posts/gradient-compression/'],
  ['papers', '/papers/'],
  ['figures', '/fig/posts/figures/'],
];

const sheaf = path.resolve(process.argv[2] || '');
const reports = process.argv[3];
const { check, done } = checks();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-lh-'));
const out = path.join(tmp, 'out');
const b = spawnSync(sheaf, ['build', '-s', root, '-o', out, '-q']);
if (b.status !== 0) { console.log(String(b.stderr)); process.exit(1); }
const figSite = path.join(tmp, 'figures');
fs.cpSync(path.join(here, 'figures'), figSite, { recursive: true });
const images = path.join(root, 'tests/sites/images/site');
for (const f of ['content/posts/bundle/photo.jpg', 'content/posts/cover.png'])
  fs.copyFileSync(path.join(images, f), path.join(figSite, 'content/posts/2024-05-01-figures', path.basename(f)));
fs.mkdirSync(path.join(figSite, 'static/img'), { recursive: true });
fs.copyFileSync(path.join(images, 'static/img/wide.png'), path.join(figSite, 'static/img/wide.png'));
const fb = spawnSync(sheaf, ['build', '-s', figSite, '-o', path.join(out, 'fig'), '-q', '--base-url', 'http://127.0.0.1/fig/']);
if (fb.status !== 0 || String(fb.stderr)) { console.log(String(fb.stderr)); process.exit(1); }
const server = await serveDir(out, { gzip: true });
const base = `http://127.0.0.1:${server.address().port}`;

fs.mkdirSync(path.join(tmp, 'profile'));
const chrome = await launch({
  chromePath: chromiumPath,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
  userDataDir: path.join(tmp, 'profile'),
});
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
try {
  for (const [name, url] of pages) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await lighthouse(base + url, {
        port: chrome.port, output: 'json', logLevel: 'error',
        onlyCategories: ['performance', 'accessibility'],
      });
      const lhr = r.lhr;
      runs.push({
        performance: Math.round(lhr.categories.performance.score * 100),
        accessibility: Math.round(lhr.categories.accessibility.score * 100),
        cls: lhr.audits['cumulative-layout-shift'].numericValue,
        bytes: lhr.audits['total-byte-weight'].numericValue,
        lcp: lhr.audits['largest-contentful-paint'].numericValue,
        // what moved, for a run with a shift (Lighthouse 12's audit)
        shifts: (lhr.audits['layout-shifts']?.details?.items ?? []).map((x) =>
          `${x.score?.toFixed?.(4)} ${x.node?.selector ?? x.node?.snippet ?? '?'}` +
          (x.subItems?.items ?? []).map((c) => ` (${c.cause ?? c.extra?.value ?? ''})`).join('')),
        failed: Object.values(lhr.audits).filter((a) => a.score !== null && a.score < 1 &&
          lhr.categories.accessibility.auditRefs.some((ref) => ref.id === a.id)).map((a) => a.id),
      });
      if (reports && i === 0) {
        fs.mkdirSync(reports, { recursive: true });
        fs.writeFileSync(path.join(reports, `${name.replace(/\W+/g, '-')}.json`), r.report);
      }
    }
    const perf = median(runs.map((x) => x.performance));
    const m = runs.find((x) => x.performance === perf);
    console.log(`${url}: performance ${perf} (runs ${runs.map((x) => x.performance).join(', ')}), ` +
      `accessibility ${m.accessibility}, CLS ${m.cls}, LCP ${Math.round(m.lcp)} ms, ` +
      `${m.bytes} bytes`);
    check(`${name}: performance ${perf} ≥ ${TARGET.performance}`, perf >= TARGET.performance);
    check(`${name}: accessibility ${m.accessibility} = ${TARGET.accessibility}`,
      m.accessibility >= TARGET.accessibility, m.failed.join(' '));
    // CLS is judged like performance, on the median run: on a loaded
    // machine one run in several has seen a shift nothing reproduced, not
    // even pages served slowly on purpose (theme/shift, which makes every
    // late arrival happen and must see no shift at all). Any run's shifts
    // are printed, with what moved.
    for (const [i, x] of runs.entries())
      if (x.cls > 0) console.log(`${name}: run ${i + 1} CLS ${x.cls}: ${x.shifts.join('; ') || '(no detail)'}`);
    const cls = median(runs.map((x) => x.cls));
    check(`${name}: CLS ${cls} = 0 (median of ${RUNS} runs)`, cls <= TARGET.cls);
    check(`${name}: ${m.bytes} bytes ≤ ${TARGET.bytes}`, m.bytes <= TARGET.bytes);
  }
} finally {
  await chrome.kill();
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
done('lighthouse');
