#!/usr/bin/python3
"""bench/migrate.py — a real Jekyll or Hugo site, built by its own generator
and by sheaf after `sheaf import`: build times, errors on the first try, and
what became of each old URL.

  bench/migrate.py jekyll|hugo SITE [LABEL]
  SHEAF=build/sheaf JEKYLL_CONFIG=extra.yml bench/migrate.py jekyll ~/blog

Runs, each in a fresh folder under WORK (default $TMPDIR/sheaf-migrate):
  1. the old generator (`jekyll build -d OLD`, `hugo -d OLD`), timed, twice
     (the faster run is reported: the first also warms the disk cache);
  2. `sheaf import KIND SITE NEW`, timed;
  3. `sheaf build -s NEW -o OUT`, timed, twice, and its error count (the
     first build is the "first try": no hand edit between import and build;
     when it fails, the URLs are counted on one more build with
     `links: warn` added to site.yaml, and the row says so).
Then every page of the old build (each .html file but its own redirects; a
folder's index.html is its folder's URL) is looked up in sheaf's: *kept* (a page there, not a
redirect), *redirected* (a meta-refresh page there, leading to a page of
the build) or *lost*. Files other than .html are not counted. In the
pages kept, the formulas: <math> elements in sheaf's (KaTeX's MathML)
against the TeX the old page left for MathJax (its delimiters, $$…$$,
\\(…\\), \\[…\\], $…$, outside code and scripts, or math/tex scripts) —
an estimate: the old count has no renderer behind it. Prints one
Markdown table row; the load average is printed with it, since these are
wall-clock times.

A Hugo site with neither a theme nor layouts (hugoBasicExample) is built
with the least templates (a title and the content), since Hugo writes no
page without one.

JEKYLL_CONFIG: an extra config file given to Jekyll after _config.yml, e.g.
to leave out a plugin that is not installed (then say so with the figure).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def timed(args, **kw):
    t = time.monotonic()
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    return time.monotonic() - t, r


def pages(root):
    out = set()
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith('.html'):
                continue
            rel = os.path.relpath(os.path.join(d, f), root)
            out.add(rel)
    return out


TEX = re.compile(r'\$\$.+?\$\$|\\\(.+?\\\)|\\\[.+?\\\]|<script type="math/tex'
                 r'|(?<![\\$\w])\$(?=[^\s$])[^$\n]{1,400}?(?<=[^\s\\])\$(?![\d$])', re.S)
SKIP = re.compile(r'<(script|style|pre|code)\b(?![^>]*math/tex).*?</\1>', re.S | re.I)


def formulas(root, rels, math):
    """Formulas in the pages rels under root: TeX left for MathJax in the
    old build (its delimiters in the text, outside code and scripts, or
    a math/tex script), <math> elements in sheaf's (KaTeX's MathML)."""
    n = 0
    for rel in rels:
        p = os.path.join(root, rel)
        if not os.path.isfile(p):
            continue
        t = open(p, encoding='utf-8', errors='replace').read()
        if math:
            n += t.count('<math')
        else:
            n += len(TEX.findall(SKIP.sub('', t)))
    return n


def main():
    kind, site = sys.argv[1], os.path.abspath(sys.argv[2])
    label = sys.argv[3] if len(sys.argv) > 3 else os.path.basename(site.rstrip('/'))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sheaf = os.path.abspath(os.environ.get('SHEAF', os.path.join(root, 'build', 'sheaf')))
    work = os.environ.get('WORK', os.path.join(tempfile.gettempdir(), 'sheaf-migrate'))
    base = os.path.join(work, label)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    old, new, out = (os.path.join(base, x) for x in ('old', 'new', 'out'))

    if kind == 'jekyll':
        cfg = '_config.yml'
        if os.environ.get('JEKYLL_CONFIG'):
            cfg += ',' + os.path.abspath(os.environ['JEKYLL_CONFIG'])
        gen = ['jekyll', 'build', '--config', cfg, '-d', old]
        # the installed Jekyll and plugins, not a Gemfile's (no network)
        os.environ['JEKYLL_NO_BUNDLER_REQUIRE'] = 'true'
    else:
        gen = ['hugo', '--quiet', '-d', old]
        if not os.path.isdir(os.path.join(site, 'themes')) and \
                not os.path.isdir(os.path.join(site, 'layouts', '_default')):
            # no theme (hugoBasicExample's is fetched by the user): Hugo
            # writes no page without templates, so give it the least ones
            lay = os.path.join(base, 'layouts', '_default')
            os.makedirs(lay)
            for f in ('single.html', 'list.html'):
                open(os.path.join(lay, f), 'w').write('<title>{{ .Title }}</title>{{ .Content }}\n')
            gen += ['--layoutDir', os.path.dirname(lay)]
    old_t = []
    for _ in range(2):
        shutil.rmtree(old, ignore_errors=True)
        t, r = timed(gen, cwd=site)
        old_t.append(t)
    old_ok = r.returncode == 0
    old_err = len([l for l in (r.stderr + r.stdout).splitlines() if re.search(r'\berror\b', l, re.I)])

    imp_t, r = timed([sheaf, 'import', kind, site, new])
    imp_ok = r.returncode == 0
    report = r.stdout
    warn = len(re.findall(r'^- `?[^\n]*:\d+:\d+', report, re.M))
    m = re.search(r'old URLs of pages: (\d+) kept exactly, (\d+) answer with a redirect, (\d+) lost', report)
    claimed = m.groups() if m else ('?', '?', '?')

    new_t = []
    errors = '-'
    for i in range(2):
        shutil.rmtree(out, ignore_errors=True)
        t, r = timed([sheaf, 'build', '-s', new, '-o', out])
        new_t.append(t)
        if i == 0:
            errors = len(re.findall(r'^(?!sheaf: ).*: error: ', r.stderr, re.M))
            first_ok = r.returncode == 0
    warned = False
    if not first_ok:
        # the URL comparison needs an output: once more with broken links
        # as warnings (`links: warn`); the first try's errors are the figure
        with open(os.path.join(new, 'site.yaml'), 'a') as f:
            f.write('\nlinks: warn\n')
        shutil.rmtree(out, ignore_errors=True)
        _, r = timed([sheaf, 'build', '-s', new, '-o', out])
        warned = r.returncode == 0
        if not warned:
            out = None

    kept = redirected = lost = 0
    lost_list = []
    same = []  # old pages that are pages in sheaf's build: their formulas compared
    for rel in sorted(pages(old)) if old_ok else []:
        if out is None:
            break
        if b'http-equiv="refresh"' in open(os.path.join(old, rel), 'rb').read(4096).lower():
            continue  # a redirect of the old site's own (an alias, /page/1/)
        p = os.path.join(out, rel)
        if not os.path.isfile(p):
            lost += 1
            lost_list.append(rel)
            continue
        head = open(p, 'rb').read(4096)
        if b'http-equiv="refresh"' in head:
            redirected += 1
        else:
            kept += 1
            same.append(rel)
    tex_old = formulas(old, same, False) if out else 0
    tex_new = formulas(out, same, True) if out else 0
    load = os.getloadavg()[0]
    print('| site | old build | sheaf import | sheaf build | errors, 1st build | old pages kept / redirected / lost '
          '| formulas: sheaf / old | import report kept / redirected / lost | load |')
    print('|---|---|---|---|---|---|---|---|---|')
    print('| %s | %s %.2f s%s | %.2f s | %.2f s | %s | %s | %s | %s | %.1f |' % (
        label, kind, min(old_t), '' if old_ok else ' (failed)', imp_t, min(new_t),
        errors if imp_ok else 'import failed',
        ('%d / %d / %d' % (kept, redirected, lost) + (' (links: warn)' if warned else '')) if out and old_ok
        else 'no output' if not out else 'old build failed',
        '%d / %d' % (tex_new, tex_old) if out and old_ok else '—',
        ' / '.join(claimed), load))
    if lost_list:
        print('lost: ' + ' '.join(lost_list[:30]) + (' …' if len(lost_list) > 30 else ''), file=sys.stderr)


if __name__ == '__main__':
    main()
