// `sheaf serve` in a real browser: headless Chromium (Debian's, driven by
// playwright-core from tests/node_modules) opens a post, and the test edits
// the source files the way an editor saves them. The page must change by
// itself: new text after an edit, a new stylesheet without a reload, an
// overlay with the diagnostics after a broken edit (also on a page loaded
// while broken), and the overlay gone after the fix.
//
// usage: node browser.mjs path/to/sheaf
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const sheaf = path.resolve(process.argv[2] || '');
let passed = 0;
const failures = [];

function check(what, cond, detail = '') {
  if (cond) passed++;
  else failures.push(what + (detail ? ': ' + detail : ''));
}

function write(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), '.' + path.basename(file) + '.tmp');
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

const POST = `---
title: Hello browser
date: 2024-01-02
---
Original words in the post.

See [the older post](2024-01-01-older.md).
`;

const BASE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{ page.title | default(site.title) }}</title>
<link rel="stylesheet" href="{{ 'site.css' | relative_url }}">
</head>
<body>
<main>
{% block content %}{% endblock %}
</main>
</body>
</html>
`;

function makeSite(root) {
  write(path.join(root, 'site.yaml'), 'title: Browser fixture\n');
  write(path.join(root, 'content/posts/2024-01-02-hello.md'), POST);
  write(path.join(root, 'content/posts/2024-01-01-older.md'),
    '---\ntitle: Older\ndate: 2024-01-01\n---\nThe older post.\n');
  write(path.join(root, 'templates/base.html'), BASE);
  write(path.join(root, 'static/site.css'), 'body { color: rgb(1, 2, 3); }\n');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function startServer(site, env) {
  return new Promise(async (resolve, reject) => {
    const port = await freePort();
    const proc = spawn(sheaf, ['serve', '-s', site, '--port', String(port)], { env });
    let out = '', err = '';
    const timer = setTimeout(() => reject(new Error('no banner in 60 s:\n' + out + err)), 60000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/^Serving .* at (\S+) \(Ctrl-C to stop\)$/m);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], output: () => out, errors: () => err });
      }
    });
    proc.stderr.on('data', (d) => { err += d; });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sheaf serve exited with ${code}:\n${out}${err}`));
    });
  });
}

function stopServer(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    const t = setTimeout(() => { proc.kill('SIGKILL'); }, 15000);
    proc.removeAllListeners('exit');
    proc.on('exit', (code, sig) => { clearTimeout(t); resolve(sig ? sig : code); });
    proc.kill('SIGINT');
  });
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheaf-serve-browser-'));
  const tmpdir = path.join(tmp, 'tmp');
  fs.mkdirSync(tmpdir);
  const env = { ...process.env, TMPDIR: tmpdir, NO_COLOR: '1' };
  const site = path.join(tmp, 'site');
  makeSite(site);
  let server = null, browser = null;
  try {
    const gate = spawnSync(sheaf, ['build', '-s', site, '-o', path.join(tmp, 'gate')],
      { env, encoding: 'utf8', timeout: 120000 });
    check('sheaf build of the fixture', gate.status === 0, gate.stderr);
    if (gate.status !== 0) return 1;

    server = await startServer(site, env);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium', headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    const page = await browser.newPage();
    const consoleErrors = [];
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    const post = path.join(site, 'content/posts/2024-01-02-hello.md');
    const postUrl = server.url + 'posts/hello/';

    await page.goto(postUrl);
    check('the post is served', (await page.textContent('main')).includes('Original words'));
    // Let the event stream connect before the first edit.
    await page.waitForTimeout(500);

    // An edit shows by itself.
    write(post, POST.replace('Original words', 'Edited words'));
    try {
      await page.waitForFunction(() => document.body.innerText.includes('Edited words'),
        null, { timeout: 15000 });
      passed++;
    } catch (e) {
      failures.push('the edit did not show without a manual reload');
    }

    // A stylesheet edit: the new colour, and no reload (a marker survives).
    await page.waitForTimeout(300);
    await page.evaluate(() => { window.__testMarker = 42; });
    write(path.join(site, 'static/site.css'), 'body { color: rgb(4, 5, 6); }\n');
    try {
      await page.waitForFunction(() => getComputedStyle(document.body).color === 'rgb(4, 5, 6)',
        null, { timeout: 15000 });
      passed++;
    } catch (e) {
      failures.push('the stylesheet edit did not show');
    }
    check('the stylesheet was swapped without a reload',
      (await page.evaluate(() => window.__testMarker)) === 42);

    // A broken edit: the overlay lists the diagnostics; the page stays.
    write(post, POST.replace('Original words', 'Edited words')
      .replace('(2024-01-01-older.md)', '(2024-01-01-older.md#no-such-heading)'));
    let overlay = '';
    try {
      await page.waitForSelector('#__sheaf_overlay', { state: 'visible', timeout: 15000 });
      overlay = await page.textContent('#__sheaf_overlay');
    } catch (e) {
      failures.push('no overlay after a broken edit');
    }
    check('the overlay shows path:line:col: error:',
      /content\/posts\/2024-01-02-hello\.md:\d+:\d+: error: /.test(overlay), overlay);
    check('the old page stays under the overlay',
      (await page.textContent('main')).includes('Edited words'));

    // A page loaded while the build is broken shows the overlay at once:
    // from the state served in the page itself (no event comes, the page
    // is current), so waiting longer on a busy machine proves the same.
    const page2 = await browser.newPage();
    await page2.goto(postUrl);
    const overlay2 = await page2.locator('#__sheaf_overlay').textContent({ timeout: 10000 })
      .catch(() => '');
    check('a page loaded while broken shows the overlay at once',
      overlay2.includes('content/posts/2024-01-02-hello.md:'), overlay2);

    // The fix: overlay gone, new text, on both pages.
    write(post, POST.replace('Original words', 'Fixed words'));
    for (const [name, p] of [['first page', page], ['second page', page2]]) {
      try {
        await p.waitForFunction(() => !document.getElementById('__sheaf_overlay') &&
          document.body.innerText.includes('Fixed words'), null, { timeout: 15000 });
        passed++;
      } catch (e) {
        failures.push(`${name}: the fix did not clear the overlay and show the new text`);
      }
    }
    check('no script errors in the page', consoleErrors.length === 0, consoleErrors.join('; '));
    await browser.close();
    browser = null;

    const code = await stopServer(server.proc);
    server = null;
    check('Ctrl-C: exit 0', code === 0, String(code));
    check('Ctrl-C: temp folder removed',
      fs.readdirSync(tmpdir).filter((n) => n.startsWith('sheaf-serve-')).length === 0);
  } catch (e) {
    failures.push(String(e && e.stack || e));
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server) await stopServer(server.proc);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return failures.length ? 1 : 0;
}

const code = await main();
for (const f of failures) console.log('FAIL ' + f);
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(code);
