#!/usr/bin/python3
"""The complexity test of issue 34: for each input that once made sheaf
quadratic, build (or import) it at size N and 2N and check that CPU time
and output grow at most about twice, not four times.

Robust on a loaded machine: CPU time of the child (user + system, from
wait4), not wall time; the median of three runs; a generous ratio (3.0 for
time, 2.5 for bytes written); and a time ratio is only judged when the run
at 2N takes at least 50 ms of CPU (below that, start-up dominates). The
sites are built in memory (/dev/shm, where there is one): on an ext4 disk,
making files right after others were deleted costs the kernel several
times more, by the disk's state and not by sheaf's work (BENCHMARKS.md,
"A note on measuring on ext4"), and a case that writes a hundred small
files measured that instead (n=48 0.015 s, n=96 0.098 s).

usage: run.py path/to/sheaf [CASE...]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

TIME_RATIO, BYTES_RATIO, MIN_CPU = 3.0, 2.5, 0.05


def post(title, body, extra=""):
    return f"---\ntitle: {title}\ndate: 2024-01-01\n{extra}---\n\n{body}\n"


def site(tmp, files):
    """A site in tmp/site with these files (relative path -> text)."""
    root = os.path.join(tmp, "site")
    shutil.rmtree(root, ignore_errors=True)
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
    return root


def tree_bytes(root, ext=""):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs
               if f.endswith(ext))


def cpu_run(args):
    """Runs args; returns (CPU seconds, exit status)."""
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, p.returncode


# Each case: make(tmp, n) -> (argv, output folder, expected exit status,
# the ending of the output files measured: "" for all).

def tags_per_page(sheaf, tmp, n):
    # (a page holds at most 100 tags: 200 pages with n each, so that the
    # build at 2n takes the CPU a time is judged by)
    tags = ", ".join(f"t{i}" for i in range(n))
    files = {"site.yaml": "title: T\nbase_url: https://example.org/\n",
             "content/posts/2024-01-02-b.md": post("B", "More.", "tags: [t0]\n")}
    for k in range(200):
        files[f"content/posts/2024-01-01-a{k}.md"] = post(f"A{k}", "Text.", f"tags: [{tags}]\n")
    root = site(tmp, files)
    out = os.path.join(tmp, "out")
    # the feeds: each term's lists the post (under 100 tags a page, the
    # pages are small beside them)
    return [sheaf, "build", "-s", root, "-o", out, "-q", "-j", "1"], out, 0, ".xml"


def shortcodes_per_page(sheaf, tmp, n):
    # pairs in one paragraph: the first 1,000 tags run, the rest are text
    body = "{{% note %}}x{{% /note %}}\n" * (n // 2)
    root = site(tmp, {"site.yaml": "title: T\n", "content/posts/2024-01-01-a.md": post("A", body)})
    out = os.path.join(tmp, "out")
    return [sheaf, "build", "-s", root, "-o", out, "-q", "-j", "1"], out, 1, ""


def unclosed_shortcodes(sheaf, tmp, n):
    # past the cap they are text, still read once
    root = site(tmp, {"site.yaml": "title: T\n",
                      "content/posts/2024-01-01-a.md": post("A", "{{< " * n)})
    out = os.path.join(tmp, "out")
    return [sheaf, "build", "-s", root, "-o", out, "-q", "-j", "1"], out, 1, ""


def liquid_per_post(sheaf, tmp, n):
    src = site(tmp, {"_config.yml": "title: T\n",
                     "_posts/2024-01-01-x.md": post("X", "text {% weird a %} more\n" * n)})
    out = os.path.join(tmp, "out")
    return [sheaf, "import", "jekyll", src, out, "-q"], out, 0, ""


def liquid_blocks_per_post(sheaf, tmp, n):
    # block tags the import converts (boxes), never closed: each one's end
    # tag is looked for once, not through the rest of the post each time
    src = site(tmp, {"_config.yml": "title: T\n",
                     "_posts/2024-01-01-x.md": post("X", "text {% note %} more\n" * n)})
    out = os.path.join(tmp, "out")
    return [sheaf, "import", "jekyll", src, out, "-q"], out, 0, ""


def plain_text(sheaf, tmp, n):
    # a page's plain text (util/html.h) over formulas and hidden elements
    # nested n deep: each end tag is searched for once, not once an element
    body = "<div>" + "<math><mi>x</mi>" * n + "</div>\n<p>" + "<span aria-hidden=\"true\">a" * n + "</p>\n"
    root = site(tmp, {"site.yaml": "title: T\nmarkdown:\n  unsafe: true\n",
                      "content/posts/2024-01-01-a.md": post("A", body)})
    out = os.path.join(tmp, "out")
    return [sheaf, "build", "-s", root, "-o", out, "-q", "-j", "1"], out, 0, ""


CASES = {
    # name: (make, N)
    "tags-per-page": (tags_per_page, 48),
    "shortcodes-per-page": (shortcodes_per_page, 10000),
    "unclosed-shortcodes": (unclosed_shortcodes, 20000),
    "liquid-per-post": (liquid_per_post, 20000),
    "liquid-blocks-per-post": (liquid_blocks_per_post, 20000),
    "plain-text": (plain_text, 5000),
}


SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def measure(sheaf, make, n):
    times, size = [], None
    for _ in range(3):
        tmp = tempfile.mkdtemp(prefix="sheaf-cx-", dir=SCRATCH)
        try:
            args, out, want, ext = make(sheaf, tmp, n)
            t, rc = cpu_run(args)
            if rc != want:
                raise SystemExit(f"`{' '.join(args[1:3])}` at n={n} exited {rc}, not {want}")
            times.append(t)
            size = tree_bytes(out, ext) if os.path.isdir(out) else 0
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return statistics.median(times), size


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sheaf = argv[1]
    names = argv[2:] or list(CASES)
    failed = 0
    for name in names:
        make, n = CASES[name]
        t1, b1 = measure(sheaf, make, n)
        t2, b2 = measure(sheaf, make, 2 * n)
        tr = t2 / t1 if t1 > 0 else 1.0
        br = b2 / b1 if b1 else 1.0
        bad = []
        if t2 >= MIN_CPU and tr > TIME_RATIO:
            bad.append(f"CPU time x{tr:.2f}")
        if br > BYTES_RATIO:
            bad.append(f"output x{br:.2f}")
        print(f"{'FAIL' if bad else 'ok'} {name}: n={n} {t1:.3f} s {b1} B, n={2 * n} {t2:.3f} s {b2} B "
              f"(time x{tr:.2f}, output x{br:.2f})" + (": " + ", ".join(bad) if bad else ""))
        failed += bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
