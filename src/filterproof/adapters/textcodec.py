"""An injective escape for strings a store cannot hold as given.

JSON strings may hold NUL (PostgreSQL text refuses it) and lone surrogates (UTF-8,
hence Arrow and PostgreSQL, cannot encode them). Stores that compare such strings
for equality write every stored and every compared string through ``escape``:
``\\`` becomes ``\\\\``, NUL ``\\0`` (when asked), a surrogate ``\\xHHHH``, and (when asked)
every other control character ``\\xHHHH`` too (a filter language whose string literals
take few escapes, Milvus's, then needs only ``\\\\`` and ``\\"``). The map is
injective, so equality of escaped strings is equality of the originals, and
``unescape`` gives the original back (ids returned by a search). Strings without
``\\``, NUL or surrogates, i.e. nearly all, are unchanged.
"""

from __future__ import annotations


def escape(value: str, *, nul: bool, controls: bool = False) -> str:
    """``value`` as stored; ``nul=True`` also escapes NUL, ``controls=True`` the other C0 controls and DEL."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}: {value!r}")
    out = []
    for char in value:
        if char == "\\":
            out.append("\\\\")
        elif char == "\x00" and nul:
            out.append("\\0")
        elif "\ud800" <= char <= "\udfff" or (controls and (char < " " or char == "\x7f")):
            out.append(f"\\x{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def unescape(stored: str) -> str:
    """The string ``escape`` was given."""
    if "\\" not in stored:
        return stored
    out, chars = [], iter(stored)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        code = next(chars)
        if code == "\\":
            out.append("\\")
        elif code == "0":
            out.append("\x00")
        else:  # x and four hex digits: a lone surrogate
            out.append(chr(int("".join(next(chars) for _ in range(4)), 16)))
    return "".join(out)
