"""The places in a generated package that ``filterproof new-adapter --add`` may change: marked blocks.

A generated ``pyproject.toml`` has its entry points, one line per backend, between two comment
lines, and its ``README.md`` its table of backends, one row per backend, between two HTML
comments::

    [project.entry-points."filterproof.adapters"]
    # >>> filterproof new-adapter backends: ...
    mystore = "filterproof_mystore.adapter:MystoreAdapter"
    # <<< filterproof new-adapter backends

Adding a backend adds its line just above the closing marker, and nothing else in the file
changes (its line endings included). Everything else in these files is the user's.

    >>> text = "a\\n# >>> filterproof new-adapter backends\\nb\\n# <<< filterproof new-adapter backends\\nc\\n"
    >>> within_block(text, ["new"]).splitlines()[3]
    'new'

For ``pyproject.toml`` the result is also read back as TOML, and must be the file as it was
with the new entry points added to the ``filterproof.adapters`` group: markers moved out of
that table, or a block that no longer parses, is a refusal naming the file.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from filterproof.errors import UsageError

BEGIN = ">>> filterproof new-adapter backends"
END = "<<< filterproof new-adapter backends"
GROUP = "filterproof.adapters"
HEADER = f'[project.entry-points."{GROUP}"]'


def within_block(text: str, lines: Sequence[str]) -> str | None:
    """``text`` with ``lines`` added at the end of its marked block; None without exactly one opening marker
    followed by exactly one closing marker (the block was edited beyond recognition)."""
    rows = text.splitlines(keepends=True)
    begins = [n for n, row in enumerate(rows) if BEGIN in row]
    ends = [n for n, row in enumerate(rows) if END in row]
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        return None
    end = ends[0]
    newline = "\r\n" if rows[begins[0]].endswith("\r\n") else "\n"  # the file's own line endings
    return "".join([*rows[:end], *(line + newline for line in lines), *rows[end:]])


def read_project(path: Path, text: str) -> dict[str, Any]:
    """``text``, ``path``'s (a ``pyproject.toml``), as TOML; a ``UsageError`` naming it when it does not parse."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: not valid TOML ({error}): filterproof new-adapter --add reads its entry points "
                         "there") from None


def read_text(path: Path) -> str:
    """The file's text with its line endings as they are."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read it: {getattr(error, 'strerror', None) or error}") from None


def entry_points(project: Mapping[str, Any]) -> dict[str, str]:
    """The ``filterproof.adapters`` entry points a parsed ``pyproject.toml`` declares: name -> ``module:attr``."""
    group = project.get("project", {}).get("entry-points", {}).get(GROUP, {})
    return {str(name): str(value) for name, value in group.items()} if isinstance(group, dict) else {}


def with_entry_points(path: Path, text: str, added: Mapping[str, str]) -> str:
    """``text`` (``path``'s) with ``added`` (name -> ``module:Class``) in its marked entry-points block.

    A ``UsageError`` naming ``path`` when the block is not there, or when the result would be anything but the
    same project with these entry points added (the markers moved out of the entry-points table, say).
    """
    before = tomllib.loads(text)
    lines = [f'{name} = "{value}"' for name, value in added.items()]
    after_text = within_block(text, lines)
    expected = copy.deepcopy(before)
    table = expected.setdefault("project", {}).setdefault("entry-points", {}).setdefault(GROUP, {})
    table.update(added)
    try:
        after = tomllib.loads(after_text) if after_text is not None else None
    except tomllib.TOMLDecodeError:
        after = None
    if after_text is not None and after == expected:
        return after_text
    by_hand = "; ".join(lines)
    raise UsageError(
        f"{path}: the block filterproof new-adapter owns was edited beyond recognition (it expects one line "
        f"holding `# {BEGIN}` and below it one holding `# {END}`, both inside {HEADER}); nothing was written. "
        f"Put the two marker lines back around the entry points, or add the backend's entry point yourself: "
        f"{by_hand}")

