"""What the build-cache tests (tests/cache/*.py) share."""
import os


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
