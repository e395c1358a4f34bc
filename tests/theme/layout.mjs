// The wide column in a real browser (headless Chromium via playwright-core):
// a note with a 100-character line of code, a six-column table, a short code
// block and a table of contents, and one without a table of contents.
//  - at 1280 px the long line and the table fit without scrolling; a short
//    code block stays as wide as the text; with a table of contents at the
//    right, nothing wide reaches it (the wide column grows to the left);
//  - at 375 px every block is as wide as the text and the page is never
//    wider than the window.
// usage: node layout.mjs path/to/sheaf [SHOT_DIR]
// Exits 77 (ctest's "skipped") when playwright-core or Chromium is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checks, chromiumOrSkip, chromiumPath, serveDir } from './browser.mjs';

const chromium = chromiumOrSkip('layout.mjs');

const sheaf = path.resolve(process.argv[2] || '');
const shots = process.argv[3];
const { check, done } = checks();

const line100 = 'def all_reduce(tensors, group=None, op="sum", async_op=False, timeout=None, bucket_cap_mb=25, cmp=0)';
if (line100.length !== 100) throw new Error('the long line is not 100 characters');
const body = (toc) => `---
title: Wide
date: 2024-04-01
---

Some text that sets the measure of the column, long enough to wrap over a couple of lines on a wide screen.
${toc ? '\n## Code\n' : ''}
\`\`\`python
${line100}
\`\`\`

\`\`\`c
int x = 1;
\`\`\`
${toc ? '\n## Table\n' : ''}
| model | params | GPUs | throughput | MFU | notes |
|---|---:|---:|---:|---:|---|
| GPT-3 | 175B | 1024 | 140 TFLOPs | 44.7% | Megatron-LM, 8-way tensor parallel |
| PaLM | 540B | 6144 | 46.2% | 57.8% | Pathways, two pods |
${toc ? '\n## Formula\n\nMore.\n' : ''}`;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-layout-'));
const site = path.join(tmp, 'site'), out = path.join(tmp, 'out');
fs.mkdirSync(path.join(site, 'content', 'posts'), { recursive: true });
fs.writeFileSync(path.join(site, 'site.yaml'), 'title: Layout\nbase_url: http://127.0.0.1/\n');
fs.writeFileSync(path.join(site, 'content/posts/2024-04-01-toc.md'), body(true));
fs.writeFileSync(path.join(site, 'content/posts/2024-04-02-plain.md'), body(false));
const b = spawnSync(sheaf, ['build', '-s', site, '-o', out, '-q']);
if (b.status !== 0) { console.log(String(b.stderr)); process.exit(1); }

const server = await serveDir(out);
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
for (const slug of ['toc', 'plain'])
  for (const width of [1280, 375])
    for (const scheme of ['light', 'dark']) {
      const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
      await page.goto(`${base}/posts/${slug}/`);
      const m = await page.evaluate(() => {
        const box = (e) => { const r = e.getBoundingClientRect(); return { l: r.left, r: r.right, w: r.width }; };
        const blocks = [...document.querySelectorAll('.content > pre, .content > .table-scroll')].map((e) => ({
          ...box(e), scrolls: e.scrollWidth > e.clientWidth, tag: e.tagName }));
        const text = box(document.querySelector('.content > p'));
        const toc = document.querySelector('.toc-side');
        const tocBox = toc && getComputedStyle(toc).display !== 'none' ? box(toc) : null;
        return { blocks, text, toc: tocBox, overflow: document.documentElement.scrollWidth - window.innerWidth };
      });
      const what = `${slug} ${width} px ${scheme}`;
      const [long, short, table] = m.blocks;
      check(`${what}: three blocks`, m.blocks.length === 3, JSON.stringify(m.blocks));
      check(`${what}: the page is no wider than the window`, m.overflow <= 0, `${m.overflow} px`);
      if (m.blocks.length === 3) {
        check(`${what}: a short code block is as wide as the text`, Math.abs(short.w - m.text.w) < 1, `${short.w} vs ${m.text.w}`);
        if (width === 1280) {
          check(`${what}: a 100-character line fits`, !long.scrolls, JSON.stringify(long));
          check(`${what}: a six-column table fits`, !table.scrolls, JSON.stringify(table));
          check(`${what}: blocks stay in the window`, m.blocks.every((x) => x.l >= 0 && x.r <= width), JSON.stringify(m.blocks));
          if (m.toc)
            check(`${what}: nothing wide reaches the table of contents`, m.blocks.every((x) => x.r <= m.toc.l), JSON.stringify(m.toc));
          else
            check(`${what}: the wide column is centred on the text`,
              Math.abs((long.l + long.r) / 2 - (m.text.l + m.text.r) / 2) < 1, JSON.stringify([long, m.text]));
        } else {
          check(`${what}: blocks are as wide as the text`, m.blocks.every((x) => Math.abs(x.w - m.text.w) < 1), JSON.stringify(m.blocks));
        }
      }
      if (shots) {
        fs.mkdirSync(shots, { recursive: true });
        await page.screenshot({ path: path.join(shots, `layout-${slug}-${width}-${scheme}.png`), fullPage: true });
      }
      await page.close();
    }
await browser.close();
server.close();
fs.rmSync(tmp, { recursive: true, force: true });
done('layout');
