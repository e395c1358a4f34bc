#!/usr/bin/python3
"""mathfont.py — makes the default theme's math font from Debian's
fonts-lmodern: Latin Modern Math (the OpenType math font of TeX's Computer
Modern, as KaTeX draws), subset to what sheaf's MathML can hold and split
by Unicode range into WOFF2 files, so that a page downloads only the parts
its formulas use (and a page without math none: browsers fetch a font only
for text drawn in it).

Run it once when the ranges or the font change, and commit the result:
    /usr/bin/python3 scripts/mathfont.py
(needs fonts-lmodern, python3-fonttools and python3-brotli). It writes
themes/default/static/fonts/sheaf-math-*.woff2 and the licence beside
them, and prints the @font-face rules that style.css holds (its "math
font" block must list the same files and ranges: the script checks it;
the map of parts in templates/partials/math-fonts.html, which a page
preloads from, must list them too: tests/theme/fontparts.py checks it).

Why committed rather than made at build time: the build would need Python
and fontTools everywhere sheaf is built (the static release too) for a
result that changes only when Debian's font does.

The GUST Font License (LPPL 1.3c) asks that a modified font be renamed: the
subsets are named "Sheaf Math" inside and sheaf-math-* as files.

Each part keeps the MATH table (constants, size variants and assemblies of
its own characters); the first part holds the space, so its MATH constants
are the ones browsers use. No layout features: 'ssty' (script-size
alternates) alone would add 17 KB to the first part, and neither KaTeX's
HTML nor Chromium uses them.
"""
import os
import sys

from fontTools import subset
from fontTools.ttLib import TTFont

SRC = "/usr/share/texmf/fonts/opentype/public/lm-math/latinmodern-math.otf"
LICENSE = "/usr/share/texmf/doc/fonts/lm-math/GUST-FONT-LICENSE.txt"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "themes/default/static/fonts")
FAMILY = "Sheaf Math"

# (part, ranges): no range in two parts; the first holds U+0020.
PARTS = [
    # the letters and operators of most formulas; U+2016 ‖ and U+2026 …
    # too, which alone would fetch the symbols part
    ("base", "U+20-7E,U+A0,U+AC,U+B1,U+B7,U+D7,U+F7,U+391-3A9,U+2016,U+2026,U+2032-2037,U+2061-2064,"
             "U+210F,U+2113,U+2200-2213,U+2215-221E,U+2223-222B,U+223C,U+2243,U+2245,U+2248,"
             "U+2260-2265,U+226A-226B,U+2282-2287,U+2295-2297,U+22A4-22A5,U+22C5,U+22EE-22F1"),
    # with the upright Greek small letters: a formula's η is drawn italic,
    # but the browser fetches the part its code point is in
    ("italic", "U+210E,U+1D434-1D467,U+1D6E2-1D71B,U+3B1-3C9,U+3D1,U+3D5-3D6,U+3F0-3F1,U+3F5"),
    ("operators", "U+2214,U+221F-2222,U+222C-223B,U+223D-2242,U+2244,U+2246-2247,U+2249-225F,"
                  "U+2266-2269,U+226C-2281,U+2288-2294,U+2298-22A3,U+22A6-22C4,U+22C6-22ED,U+22F2-22FF"),
    ("arrows", "U+2190-21FF,U+27F0-27FF,U+2900-297F"),
    ("symbols", "U+300-36F,U+2020-2025,U+2027-2031,U+2038-205E,U+20D0-20FF,U+2100-2101,U+2103-2109,"
                "U+2114,U+2116-2118,U+211E-2123,U+2125-2127,U+2129-212B,U+212E,U+2132,U+2135-2144,"
                "U+214A-214F,U+2300-23FF,U+25A0-25FF,U+27C0-27EF,U+2980-2AFF"),
    # each alphabet with the Letterlike characters that fill its holes
    # (ℝ is the double-struck R, ℬ the script B, ℭ the fraktur C)
    ("double-struck", "U+2102,U+210D,U+2115,U+2119-211A,U+211D,U+2124,U+2145-2149,U+1D538-1D56B,"
                      "U+1D7D8-1D7E1"),
    ("script-fraktur", "U+210A-210C,U+2110-2112,U+211B-211C,U+2128,U+212C-212D,U+212F-2131,U+2133-2134,"
                       "U+1D49C-1D537,U+1D56C-1D59F"),
    ("bold", "U+1D400-1D433,U+1D468-1D49B,U+1D6A8-1D6E1,U+1D71C-1D755,U+1D7CE-1D7D7"),
    ("sans-mono", "U+1D5A0-1D6A3,U+1D756-1D7CB,U+1D7E2-1D7FF"),
    ("latin-greek", "U+A1-AB,U+AD-B0,U+B2-B6,U+B8-D6,U+D8-F6,U+F8-FF,U+131,U+237,U+3CA-3D0,U+3D2-3D4,"
                    "U+3D7-3EF,U+3F2-3F4,U+3F6"),
]


def css():
    rules = []
    for part, ranges in PARTS:
        rules.append('@font-face {\n  font-family: "%s";\n  src: url("fonts/sheaf-math-%s.woff2") '
                     'format("woff2");\n  font-display: block;\n  unicode-range: %s;\n}'
                     % (FAMILY, part, ranges.replace(",", ", ")))
    return "\n".join(rules) + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for part, ranges in PARTS:
        # every part carries the space so a browser can measure it alone
        opts = subset.Options()
        opts.layout_features = []
        opts.hinting = False
        opts.desubroutinize = True
        opts.flavor = "woff2"
        opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
        font = TTFont(SRC, recalcTimestamp=False)
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=subset.parse_unicodes(ranges + ",U+20"))
        sub.subset(font)
        name = font["name"]
        for rec in name.names:
            if rec.nameID in (1, 16):
                rec.string = FAMILY
            elif rec.nameID == 4:
                rec.string = FAMILY + " " + part
            elif rec.nameID == 6:
                rec.string = "SheafMath-" + part
            elif rec.nameID == 3:
                rec.string = "Sheaf Math " + part + " (subset of Latin Modern Math)"
        path = os.path.join(OUT, "sheaf-math-%s.woff2" % part)
        font.flavor = "woff2"
        font.save(path)
        size = os.path.getsize(path)
        total += size
        print("%-15s %7d bytes" % (part, size), file=sys.stderr)
    print("%-15s %7d bytes" % ("total", total), file=sys.stderr)
    with open(LICENSE, encoding="utf-8") as f:
        text = f.read()
    with open(os.path.join(OUT, "GUST-FONT-LICENSE.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(OUT, "README.txt"), "w", encoding="utf-8") as f:
        f.write("sheaf-math-*.woff2: parts of Latin Modern Math (GUST, from Debian's fonts-lmodern),\n"
                "subset and renamed \"%s\" by sheaf's scripts/mathfont.py.\n"
                "Licence: the GUST Font License (GUST-FONT-LICENSE.txt), that is the\n"
                "LaTeX Project Public License 1.3c.\n" % FAMILY)
    style = open(os.path.join(ROOT, "themes/default/static/style.css"), encoding="utf-8").read()
    if css() not in style:
        print(css())
        print("mathfont.py: style.css does not hold these @font-face rules: put them in its "
              "math font block", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
