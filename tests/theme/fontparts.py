#!/usr/bin/python3
"""fontparts.py — the default theme names the parts of its math font twice:
style.css's @font-face rules (which part the browser fetches for a
character) and partials/math-fonts.html's map (which parts a page
preloads). They must agree, part for part and range for range: a part
missing from the map would arrive late again and move a formula drawn
before it. Fails with the first difference.

usage: fontparts.py THEME_DIR
"""
import re
import sys


def main():
    theme = sys.argv[1]
    css = open(f"{theme}/static/style.css", encoding="utf-8").read()
    tpl = open(f"{theme}/templates/partials/math-fonts.html", encoding="utf-8").read()
    faces = re.findall(r'font-family: "Sheaf Math";\s*src: url\("fonts/sheaf-math-([a-z-]+)\.woff2"\)'
                       r'[^}]*?unicode-range: ([^;]+);', css)
    parts = re.findall(r'^\s*"([a-z-]+)": "([^"]+)",?$', tpl, re.M)
    norm = lambda rs: [r.strip().upper() for r in rs.split(",")]
    if not faces:
        sys.exit("style.css: no Sheaf Math @font-face rule found")
    if [f[0] for f in faces] != [p[0] for p in parts]:
        sys.exit(f"parts differ: style.css {[f[0] for f in faces]}, math-fonts.html {[p[0] for p in parts]}")
    for (name, a), (_, b) in zip(faces, parts):
        if norm(a) != norm(b):
            sys.exit(f"part {name}: style.css has {a}, math-fonts.html {b}")
    print(f"ok {len(faces)} parts agree")


if __name__ == "__main__":
    main()
