#!/usr/bin/python3
"""`sheaf import` end to end: import a fixture site, compare with a golden
tree, build the result, and check that every URL of the old site answers.

A fixture is tests/import/<name>/ holding:

  src/          the Jekyll or Hugo site (never written to: checked)
  kind          "jekyll" or "hugo"
  expected/     the sheaf site the import must write, byte for byte
                (import-report.md included; it is also what stdout shows)
  urls.txt      every URL the old generator's build served, one a line
                ('#' starts a comment; %20 for a space, as in a link); each must answer in the sheaf build
                (a page, a file, or a redirect to a page of the build)
  kept.txt      URLs of urls.txt the sheaf build must serve as the old
                site did: a page or file there, not a redirect
  mtimes.txt    lines `path YYYY-MM-DD`: set as those source files' times
                before the import (a checkout gives them today's), for
                what the old generator dated by a file's time
  contains.txt  lines `path: text`: that output file of the sheaf build
                holds that text
  warnings.txt  lines the first `sheaf build` of the import, and `sheaf
                check`, must each print on stderr (warnings kept in sight:
                links the old site shipped broken)
  hidden.txt    texts of hidden pages (drafts, unpublished): no file of the
                sheaf build may hold one
  errors.txt    instead of the above: the import fails (exit status 1),
                and stderr must be these lines (SRC and DEST stand for the
                two folders' paths)

Then a second import into the same folder must be refused, and one with
--force must write the same tree again.

Regenerate the golden tree, after a change on purpose, with
    SHEAF_UPDATE_GOLDEN=1 ctest --test-dir build -R import/
and review `git diff tests/import/` before committing.

usage: run.py path/to/sheaf NAME
"""
import calendar
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


def tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, 'rb') as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def digest(root):
    h = hashlib.sha256()
    for k, v in sorted(tree(root).items()):
        h.update(k.encode() + b'\0' + v + b'\0')
    return h.hexdigest()


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def main():
    sheaf, name = sys.argv[1], sys.argv[2]
    fx = os.path.join(HERE, name)
    src = os.path.join(fx, 'src')
    kind = open(os.path.join(fx, 'kind')).read().strip()
    mpath = os.path.join(fx, 'mtimes.txt')
    for line in open(mpath) if os.path.exists(mpath) else []:
        if line.strip():
            path, day = line.split()
            t = calendar.timegm(time.strptime(day, '%Y-%m-%d')) + 12 * 3600
            os.utime(os.path.join(src, path), (t, t))
    before = digest(src)
    tmp = tempfile.mkdtemp(prefix='sheaf-import-')
    try:
        errfile = os.path.join(fx, 'errors.txt')
        if os.path.exists(errfile):
            # an import that fails: these diagnostics (SRC and DEST for the
            # folders), exit status 1, and the source untouched
            r = run([sheaf, 'import', '-q', kind, src, os.path.join(tmp, 'site')])
            got = r.stderr.replace(src, 'SRC').replace(os.path.join(tmp, 'site'), 'DEST').splitlines()
            want = open(errfile).read().splitlines()
            if r.returncode != 1 or got != want:
                fail('exit %d, stderr:\n%s\nwanted:\n%s' % (r.returncode, '\n'.join(got), '\n'.join(want)))
            if digest(src) != before:
                fail('the import wrote into its source folder')
            print('ok: %s' % name)
            return
        # DEST inside SRC, or holding it: refused before anything is written
        for bad in (os.path.join(src, 'out'), src, fx):
            r = run([sheaf, 'import', kind, src, bad])
            if r.returncode != 1 or 'error:' not in r.stderr or digest(src) != before:
                fail('import into %s was not refused (%d): %s' % (bad, r.returncode, r.stderr))
        dest = os.path.join(tmp, 'site')
        r = run([sheaf, 'import', kind, src, dest])
        if r.returncode != 0:
            fail('import failed (%d):\n%s' % (r.returncode, r.stderr))
        if r.stderr:
            fail('import said on stderr:\n' + r.stderr)
        got = tree(dest)
        expected = os.path.join(fx, 'expected')
        if os.environ.get('SHEAF_UPDATE_GOLDEN'):
            shutil.rmtree(expected, ignore_errors=True)
            shutil.copytree(dest, expected)
            print('updated ' + expected)
        want = tree(expected)
        if sorted(got) != sorted(want):
            fail('file lists differ:\n  only in the import: %s\n  only in expected: %s' %
                 (sorted(set(got) - set(want)), sorted(set(want) - set(got))))
        for k in sorted(got):
            if got[k] != want[k]:
                fail('%s differs from expected/%s:\n%s' % (k, k, got[k].decode(errors='replace')))
        if r.stdout != want['import-report.md'].decode():
            fail('stdout is not the report:\n' + r.stdout)
        if digest(src) != before:
            fail('the import wrote into its source folder')

        # a second run is refused; --force replaces
        r = run([sheaf, 'import', kind, src, dest])
        if r.returncode != 1 or 'is not empty' not in r.stderr or 'error:' not in r.stderr:
            fail('a second import was not refused (%d): %s' % (r.returncode, r.stderr))
        with open(os.path.join(dest, 'stray.txt'), 'w') as f:
            f.write('x')
        r = run([sheaf, 'import', '--force', '--quiet', kind, src, dest])
        if r.returncode != 0 or r.stdout or tree(dest) != got:
            fail('import --force did not write the same site again (%d): %s' % (r.returncode, r.stderr))

        # the result builds with no errors
        pub = os.path.join(tmp, 'public')
        r = run([sheaf, 'build', '-s', dest, '-o', pub])
        if r.returncode != 0 or 'error:' in r.stderr:
            fail('sheaf build of the import failed (%d):\n%s' % (r.returncode, r.stderr))
        wpath = os.path.join(fx, 'warnings.txt')
        if os.path.exists(wpath):
            want = [w for w in open(wpath).read().splitlines() if w]
            c = run([sheaf, 'check', '-s', dest])
            for cmd, got in (('build', r.stderr), ('check', c.stderr)):
                lines = got.splitlines()
                absent = [w for w in want if w not in lines]
                if absent:
                    fail('sheaf %s of the import did not warn:\n  %s\nits stderr:\n%s'
                         % (cmd, '\n  '.join(absent), got))
            if c.returncode != 0:
                fail('sheaf check of the import failed (%d):\n%s' % (c.returncode, c.stderr))
        # valid UTF-8, no href/src scheme but http, https, mailto (tests/sites/run.py)
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'sites'))
        from run import bad_outputs
        bad = bad_outputs(pub)
        if bad:
            fail('outputs with invalid UTF-8 or a URL scheme other than http, https, mailto:\n  '
                 + '\n  '.join(bad[:20]))

        # every old URL answers (below the new site's base path)
        bm = re.search(r'^base_url: "[a-z]+://[^/]+(/[^"]*)"', open(os.path.join(dest, 'site.yaml')).read(), re.M)
        base_path = bm.group(1) if bm else '/'
        missing = []
        for line in open(os.path.join(fx, 'urls.txt')):
            url = urllib.parse.unquote(line.split('#', 1)[0].strip())
            if not url:
                continue
            p = os.path.join(pub, url.lstrip('/'))
            if url.endswith('/'):
                p = os.path.join(p, 'index.html')
            elif not os.path.isfile(p):
                p = os.path.join(p, 'index.html')
            if not os.path.isfile(p):
                missing.append(url)
                continue
            # a redirect must lead to a page of the build
            m = re.search(rb'<meta http-equiv="refresh" content="0; url=([^"]+)"', open(p, 'rb').read())
            if m:
                to = re.sub(r'^[a-z]+://[^/]+', '', m.group(1).decode())
                if to.startswith(base_path):
                    to = to[len(base_path) - 1:]
                t = os.path.join(pub, to.lstrip('/'))
                if to.endswith('/'):
                    t = os.path.join(t, 'index.html')
                if not os.path.isfile(t):
                    missing.append('%s (redirects to %s, which is not there)' % (url, to))
        if missing:
            fail('old URLs that do not answer in the sheaf build: %s' % missing)

        # URLs kept exactly: a page there, not a redirect to one
        kpath = os.path.join(fx, 'kept.txt')
        redirected = []
        for line in open(kpath) if os.path.exists(kpath) else []:
            url = urllib.parse.unquote(line.split('#', 1)[0].strip())
            if not url:
                continue
            p = os.path.join(pub, url.lstrip('/'))
            if url.endswith('/') or not os.path.isfile(p):
                p = os.path.join(p, 'index.html')
            if not os.path.isfile(p) or b'<meta http-equiv="refresh"' in open(p, 'rb').read():
                redirected.append(url)
        if redirected:
            fail('old URLs not kept (missing, or a redirect): %s' % redirected)

        # files that must hold a text (a page written at a .html permalink
        # is that page, not a redirect; an old feed path is a feed)
        cpath = os.path.join(fx, 'contains.txt')
        for line in open(cpath) if os.path.exists(cpath) else []:
            if not line.strip() or line.startswith('#'):
                continue
            path, text = line.rstrip('\n').split(': ', 1)
            f = os.path.join(pub, path)
            if not os.path.isfile(f) or text.encode() not in open(f, 'rb').read():
                fail('%s does not hold %r' % (path, text))

        # hidden pages stay hidden
        hidden = [l.strip() for l in open(os.path.join(fx, 'hidden.txt')) if l.strip()]
        for k, v in tree(pub).items():
            for h in hidden:
                if h.encode() in v:
                    fail('hidden text %r is in %s' % (h, k))
        print('ok: %s' % name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
