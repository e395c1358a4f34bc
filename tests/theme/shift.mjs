// No layout shift from anything that arrives late (issue 33's CLS 0, made
// deterministic): the example site served so that each page's HTML stops
// for a moment after its header — the browser draws what it has — and its
// scripts, style sheet and fonts come late. Whatever a script shows or a
// font changes after that first frame would move what was drawn; every
// layout-shift entry of the page must be 0 (Lighthouse's CLS sums them).
// Pages: home, the note with math, code and citations, /papers/, search;
// at 375 and 1280 px, light and dark.
// usage: node shift.mjs path/to/sheaf
// Exits 77 (ctest's "skipped") when playwright-core or Chromium is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { checks, chromiumOrSkip, chromiumPath, serveDir } from './browser.mjs';

const chromium = chromiumOrSkip('shift.mjs');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sheaf = path.resolve(process.argv[2] || '');
const { check, done } = checks();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-shift-'));
const out = path.join(tmp, 'out');
const b = spawnSync(sheaf, ['build', '-s', root, '-o', out, '-q']);
if (b.status !== 0) { console.log(String(b.stderr)); process.exit(1); }

const PAUSE = 400; // ms: long enough for a frame to be drawn
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const server = await serveDir(out, { pause: PAUSE });
const base = `http://127.0.0.1:${server.address().port}`;

const pages = ['/', '/posts/gradient-compression/', '/papers/', '/search/'];
const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
try {
  for (const scheme of ['light', 'dark'])
    for (const width of [375, 1280]) {
      const ctx = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
      for (const url of pages) {
        const page = await ctx.newPage();
        await page.addInitScript(() => {
          window.shifts = [];
          new PerformanceObserver((l) => {
            for (const e of l.getEntries())
              window.shifts.push(`${e.value.toFixed(5)} ` + e.sources.map((s) => s.node ?
                `${s.node.nodeName.toLowerCase()}.${s.node.className || ''}` : '?').join(' '));
          }).observe({ type: 'layout-shift', buffered: true });
        });
        await page.goto(base + url, { waitUntil: 'load' });
        await sleep(PAUSE * 2);
        const shifts = await page.evaluate(() => window.shifts);
        check(`${url} at ${width} px, ${scheme}: no layout shift`, shifts.length === 0, shifts.join('; '));
        await page.close();
      }
      await ctx.close();
    }
} finally {
  await browser.close();
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
done('shift');
