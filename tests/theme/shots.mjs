// Screenshots of sheaf's build of the example site, kept as test artifacts
// (issue 33): an English post with math, code and citations, the post with
// Chinese notes, the home page and /papers/, at 375 and 1280 px, light and
// dark, the whole page each. A person looks at them; what the test checks is
// only what a picture makes plain to a program: every page is drawn, no page
// is wider than the window, and dark pages have a dark background.
// usage: node shots.mjs path/to/sheaf SHOT_DIR
// Exits 77 (ctest's "skipped") when playwright-core or Chromium is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { checks, chromiumOrSkip, chromiumPath, serveDir } from './browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const chromium = chromiumOrSkip('shots.mjs');

const sheaf = path.resolve(process.argv[2] || '');
const shots = path.resolve(process.argv[3] || 'theme-shots');
const { check, done } = checks();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-shots-'));
const out = path.join(tmp, 'out');
const b = spawnSync(sheaf, ['build', '-s', root, '-o', out, '-q']);
if (b.status !== 0) { console.log(String(b.stderr)); process.exit(1); }
const server = await serveDir(out);
const base = `http://127.0.0.1:${server.address().port}`;
fs.mkdirSync(shots, { recursive: true });

const pages = [
  ['en-math', '/posts/gradient-compression/'],
  ['zh-notes', '/posts/distributed-training-research/'],
  ['home', '/'],
  ['papers', '/papers/'],
];
const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
for (const width of [375, 1280])
  for (const scheme of ['light', 'dark']) {
    const ctx = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
    const page = await ctx.newPage();
    for (const [name, url] of pages) {
      const what = `${name} ${width} px ${scheme}`;
      const res = await page.goto(base + url);
      check(`${what}: the page is there`, res && res.status() === 200);
      await page.evaluate(() => document.fonts.ready);
      const file = path.join(shots, `${name}-${width}-${scheme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      check(`${what}: ${path.basename(file)} written`, fs.statSync(file).size > 1000);
      check(`${what}: no wider than the window`,
        await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor ||
        getComputedStyle(document.documentElement).backgroundColor);
      const [r, g, bl] = (bg.match(/\d+/g) || [255, 255, 255]).map(Number);
      const dark = (r + g + bl) / 3 < 96;
      check(`${what}: the background is ${scheme}`, dark === (scheme === 'dark'), bg);
    }
    await ctx.close();
  }
await browser.close();
server.close();
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`screenshots in ${shots}`);
done('shots');
