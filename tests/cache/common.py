"""What the build-cache tests (tests/cache/*.py) share."""
import os
import struct
import tempfile
import zlib


def new_site(name):
    """A fresh temporary folder for the test `name` holding site/content/posts:
    returns (tmp, site, posts, env), env checking every cached build
    against a full one (SHEAF_CHECK_INCREMENTAL) and keeping sheaf's
    temporary files in tmp."""
    tmp = tempfile.mkdtemp(prefix="sheaf-cache-%s-" % name)
    site = os.path.join(tmp, "site")
    posts = os.path.join(site, "content", "posts")
    os.makedirs(posts)
    env = dict(os.environ, NO_COLOR="1", SHEAF_CHECK_INCREMENTAL="1", TMPDIR=tmp)
    return tmp, site, posts, env


def output_tree(root, manifest=False):
    """Every file under root, by its path relative to root, with its bytes;
    the output's .sheaf-manifest* files left out unless manifest (they
    record inodes and times, which differ between two builds of the same
    sources)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            if not manifest and rel.startswith(".sheaf-manifest"):
                continue
            with open(full, "rb") as fh:
                out[rel] = fh.read()
    return out


def same_as_clean(sheaf, site, tmp, env, what, fail, timeout=120):
    """Builds site's sources again with --no-cache into tmp/ref and fails
    ("what: …") unless the cached build's output, site/public, holds the
    same files with the same bytes. Returns the cached output's tree."""
    import shutil
    import subprocess
    ref = os.path.join(tmp, "ref")
    c = subprocess.run([sheaf, "build", "-q", "--no-cache", "-s", site, "-o", ref],
                       capture_output=True, text=True, errors="replace", env=env, timeout=timeout)
    if c.returncode != 0:
        fail("%s: the clean build failed: %s" % (what, c.stderr))
    a, b = output_tree(os.path.join(site, "public")), output_tree(ref)
    if a != b:
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        fail("%s: the cached build differs from a clean one in %s" % (what, diff[:8]))
    shutil.rmtree(ref)
    return a


def png_bytes(w, h, shade=0x80):
    """A w×h grey PNG (8-bit greyscale, every pixel `shade`)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes([shade]) * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
