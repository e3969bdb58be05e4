"""UTF-16 positions and TextOperation replay, written independently of the server."""

from __future__ import annotations


def units(s: str) -> list[int]:
    b = s.encode("utf-16-le", "surrogatepass")
    return [b[i] | (b[i + 1] << 8) for i in range(0, len(b), 2)]


def from_units(u: list[int]) -> str:
    return b"".join(x.to_bytes(2, "little") for x in u).decode("utf-16-le", "surrogatepass")


def length(s: str) -> int:
    return len(units(s))


def apply_ops(text: str, ops: list) -> str:
    """Applies a compact TextOperation (retain n > 0, insert "s", delete -n) to `text`."""
    src = units(text)
    out: list[int] = []
    i = 0
    for op in ops:
        if isinstance(op, bool):
            raise AssertionError(f"bad op component {op!r}")
        if isinstance(op, str):
            out += units(op)
        elif isinstance(op, int) and op > 0:
            assert i + op <= len(src), f"retain {op} past the end ({i}/{len(src)}) in {ops}"
            out += src[i:i + op]
            i += op
        elif isinstance(op, int) and op < 0:
            assert i - op <= len(src), f"delete {-op} past the end ({i}/{len(src)}) in {ops}"
            i -= op
        else:
            raise AssertionError(f"bad op component {op!r} in {ops}")
    assert i == len(src), f"ops {ops} span {i} units, the text has {len(src)}"
    return from_units(out)


def boundaries(s: str) -> list[int]:
    """Every UTF-16 offset of `s` that does not split a surrogate pair."""
    out, pos = [0], 0
    for ch in s:
        pos += 2 if ord(ch) > 0xFFFF else 1
        out.append(pos)
    return out
