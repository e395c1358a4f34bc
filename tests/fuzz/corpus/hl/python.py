#!/usr/bin/env python3
"""A module docstring with 'quotes' and "more"."""
import os
from typing import List, Optional

CONSTANT = 0x1F + 3.14e-2 - 1_000 + 0b1010 + 0o17 + 2j


@dataclass(frozen=True)
class Point(Base, metaclass=Meta):
    x: float = 0.0
    y: float = 0.0

    def norm(self, p: int = 2) -> float:
        # TODO: handle p = inf
        return (abs(self.x) ** p + abs(self.y) ** p) ** (1 / p)


async def fetch(urls: List[str], timeout: Optional[float] = None):
    for i, url in enumerate(urls):
        if url is None or not url.startswith("http"):
            continue
        elif i > 10:
            break
        await asyncio.sleep(0)
    yield f"done {len(urls)!r} {{braces}}"
    print(r"raw\n", b'bytes', u'unicode', rb'\d+', '''triple
single''')
    lam = lambda a, *args, **kw: (a, args, kw)
    with open(os.path.join("a", "b")) as fh:
        data = [line.strip() for line in fh if line]
    try:
        raise ValueError("bad")
    except (ValueError, KeyError) as e:
        pass
    finally:
        nonlocal_value = True
    return None
