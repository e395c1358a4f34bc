// What the browser tests written alike share (layout.mjs, aids.mjs):
// Chromium through playwright-core (exit 77, ctest's "skipped", without
// them), a list of checks, and a static server for a built site.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const chromiumPath = '/usr/bin/chromium';

// playwright-core's chromium, or exit 77 naming what is missing.
export function chromiumOrSkip(name) {
  let chromium;
  try {
    ({ chromium } = createRequire(path.join(root, 'tests/package.json'))('playwright-core'));
  } catch {
    console.log(`${name}: skipped: no playwright-core in tests/node_modules`);
    process.exit(77);
  }
  if (!fs.existsSync(chromiumPath)) {
    console.log(`${name}: skipped: no ${chromiumPath}`);
    process.exit(77);
  }
  return chromium;
}

// check(what, cond, detail) records a failure or prints "ok"; done(name)
// prints the failures and exits 1 when there were any.
export function checks() {
  const failures = [];
  return {
    check(what, cond, detail = '') {
      if (!cond) failures.push(what + (detail ? ': ' + detail : ''));
      else console.log('ok ' + what);
    },
    done(name) {
      for (const f of failures) console.log('FAIL ' + f);
      console.log(`${name}: ${failures.length} failures`);
      process.exit(failures.length ? 1 : 0);
    },
  };
}

// Serves the folder out on a free port of 127.0.0.1; resolves to the server.
// gzip: compress what the client accepts compressed, as hosts do (what a
// visitor downloads: Lighthouse's page weight). pause (ms): a slow arrival —
// each page's HTML stops for that long before its <main>, so the browser
// draws the head and the header first, and every other file comes half of
// it late.
export async function serveDir(out, { gzip = false, pause = 0 } = {}) {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const types = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript',
    '.json': 'application/json', '.woff2': 'font/woff2', '.svg': 'image/svg+xml' };
  const server = http.createServer(async (req, res) => {
    let p = path.join(out, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!p.startsWith(out)) { res.writeHead(403); res.end(); return; }
    if (fs.existsSync(p) && fs.statSync(p).isDirectory()) p = path.join(p, 'index.html');
    if (!fs.existsSync(p)) { res.writeHead(404); res.end(); return; }
    const head = { 'Content-Type': types[path.extname(p)] || 'application/octet-stream' };
    let body = fs.readFileSync(p);
    if (gzip && /\bgzip\b/.test(req.headers['accept-encoding'] || '') && !/\.(woff2|png|webp|jpe?g)$/.test(p)) {
      body = zlib.gzipSync(body, { level: 9 });
      head['Content-Encoding'] = 'gzip';
    }
    res.writeHead(200, head);
    const cut = pause && !head['Content-Encoding'] && p.endsWith('.html') ? body.indexOf('<main') : -1;
    if (cut > 0) {
      res.write(body.subarray(0, cut));
      await sleep(pause);
      body = body.subarray(cut);
    } else if (pause) {
      await sleep(pause / 2);
    }
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server;
}
