"""Checks a command makes before any work, beside ``common``'s (``writable``, ``finite``, ``positive_ints``): a
directory that outputs go into, and numbers that numpy or the generator would refuse only once work was done.

Each failure is ``common.fail``'s one line naming the option, exit 2.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

from filterproof.cli.common import fail


def writable_dir(path: Path, what: str) -> Path:
    """A directory the run will write files into: it is one, or can be made (nothing is made now: a run without
    output leaves none), and it takes a new file."""
    if path.is_dir():
        try:
            with tempfile.NamedTemporaryFile(dir=path, prefix=".filterproof-", suffix=".check"):
                pass
        except OSError as error:
            raise fail(f"{what} {path}: cannot write in it: {error.strerror or error}") from None
        return path
    if path.is_symlink():
        raise fail(f"{what} {path}: a symbolic link to {os.readlink(path)}, which is no directory")
    if path.exists():
        raise fail(f"{what} {path}: exists and is not a directory")
    ancestor = next(p for p in path.absolute().parents if p.exists() or p.is_symlink())
    if not ancestor.is_dir():
        raise fail(f"{what} {path}: cannot create it: {ancestor} is not a directory")
    try:  # the nearest existing directory must take a new one (a read-only or virtual file system does not)
        os.rmdir(tempfile.mkdtemp(dir=ancestor, prefix=".filterproof-", suffix=".check"))
    except OSError as error:
        raise fail(f"{what} {path}: cannot create it in {ancestor}: {error.strerror or error}") from None
    return path


def at_least(value: int | None, minimum: int, what: str, maximum: int | None = None) -> int | None:
    """An integer option within bounds (numpy's seeds and sizes refuse a negative one only once it is used)."""
    if value is not None and (value < minimum or (maximum is not None and value > maximum)):
        bounds = f"from {minimum} to {maximum}" if maximum is not None else f"of {minimum} or more"
        raise fail(f"{what} {value}: expected an integer {bounds}")
    return value


def fraction(value: float, what: str, low: float, high: float) -> float:
    """A finite number in ``[low, high)``."""
    if not math.isfinite(value) or not low <= value < high:
        raise fail(f"{what} {value}: expected a number from {low:g} to less than {high:g}")
    return value


def finite_number(value: float, what: str, minimum: float | None = None) -> float:
    if not math.isfinite(value) or (minimum is not None and value < minimum):
        raise fail(f"{what} {value}: expected a finite number" + (f" of {minimum:g} or more" if minimum is not None
                                                                  else ""))
    return value
