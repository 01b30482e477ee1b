"""Writing a package's files inside a directory, never through a symbolic link, and never half.

Every check runs before the first write (``refusal``): a refused command leaves the directory
as it was. ``write_inside`` opens each directory with ``O_NOFOLLOW`` from its parent's
descriptor, so a link made meanwhile is not followed either; nothing outside the directory is
ever written.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from filterproof.errors import UsageError


def occupied(directory: Path) -> bool:
    """Whether ``directory`` exists and holds anything (a file in its place counts)."""
    return directory.exists() and (not directory.is_dir() or any(directory.iterdir()))


def in_the_way(directory: Path, relative: str) -> str | None:
    """What stops the scaffold writing ``relative`` inside ``directory``: a symbolic link on the way (a file or a
    directory: the scaffold never writes through one, which could lead outside ``directory``), a directory where
    its file goes, or a file where one of its directories goes; None when nothing does."""
    target = directory / relative
    path = directory
    parts = PurePosixPath(relative).parts
    for n, part in enumerate(parts):
        path = path / part
        if path.is_symlink():
            return (f"{path} is a symbolic link (to {os.readlink(path)}): the scaffold writes nothing through a "
                    "link; remove it, or give another directory")
        if not path.exists():
            return None  # nothing below it exists either
        if n < len(parts) - 1 and not path.is_dir():
            return f"{path} is in the way of {target}"
    return f"{target} is a directory: it is in the way of the package's file" if target.is_dir() else None


def refuse_what_is_in_the_way(directory: Path, relatives: Iterable[str]) -> None:
    """A ``UsageError`` for the first of ``relatives`` something stops the scaffold writing."""
    for relative in relatives:
        clash = in_the_way(directory, relative)
        if clash is not None:
            raise UsageError(clash)


def refuse_existing(directory: Path, relatives: Iterable[str], backend_of: Mapping[str, str]) -> None:
    """A ``UsageError`` naming the first of ``relatives`` that exists: a user's file is never overwritten."""
    for relative in relatives:
        path = directory / relative
        if path.exists() or path.is_symlink():
            raise UsageError(f"{path} already exists, where backend {backend_of[relative]!r} has a file of its "
                             "own: filterproof new-adapter never overwrites a file; choose another backend name, or "
                             "move the file away")


def write_all(directory: Path, texts: Mapping[str, str]) -> None:
    """Each relative path's text inside ``directory`` (created first), a ``UsageError`` naming a failure."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{directory}: cannot create it: {error.strerror or error}") from None
    for relative, text in texts.items():
        try:
            write_inside(directory, relative, text)
        except OSError as error:  # a link made meanwhile (O_NOFOLLOW), a directory that takes no file
            raise UsageError(f"{directory / relative}: cannot write it: {error.strerror or error}") from None


def write_inside(directory: Path, relative: str, text: str) -> None:
    """``relative``'s text in ``directory``, never through a symbolic link: each directory is opened with
    ``O_NOFOLLOW`` from its parent's descriptor, and the file is written new beside its place and renamed over it
    (``os.replace`` swaps the name: a file hard-linked from outside keeps its own content)."""
    *folders, name = PurePosixPath(relative).parts
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for folder in folders:
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, dir_fd=fd)
            inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        temporary = f".{name}.{secrets.token_hex(4)}.tmp"
        out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666, dir_fd=fd)
        try:
            # newline="": the text's line endings as given (a user's CRLF pyproject.toml stays CRLF)
            with os.fdopen(out, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            with contextlib.suppress(FileNotFoundError):  # a file edited in place (--add) keeps its mode
                mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode & 0o7777
                os.chmod(temporary, mode, dir_fd=fd)
            os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=fd)
            raise
    finally:
        os.close(fd)
