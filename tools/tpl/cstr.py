"""C string literals that a reader can read: printable ASCII as itself,
other characters as universal character names (\\u00DF, \\U0001D504), which
a C11 compiler stores as UTF-8; only what C allows no name for (controls,
DEL and the C1 range, surrogates kept by "surrogatepass") as bytes in hex.
Shared by gen_casemap.py and gen_entities.py."""


def c_str(s):
    out = []
    hex_before = False
    for ch in s:
        cp = ord(ch)
        if 0x20 <= cp < 0x7F:
            if hex_before and ch in "0123456789abcdefABCDEF":
                out.append('" "')  # a hex escape would swallow the digit
            out.append("\\" + ch if ch in '\\"?' else ch)
            hex_before = False
        elif cp < 0xA0 or 0xD800 <= cp < 0xE000:
            out.append("".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass")))
            hex_before = True
        else:
            out.append(f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}")
            hex_before = False
    return '"' + "".join(out) + '"'
