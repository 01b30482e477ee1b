"""Where the tests' throwaway files go: a directory of their own on a RAM-backed file system when the machine has one.

The stores under test write through SQLite (Chroma), Lance files, Milvus Lite's segments and a throwaway PostgreSQL,
and several of them sync every commit to disk. Nothing the tests assert depends on a sync reaching the disk (a killed
process leaves the same files on tmpfs), but the syncs cost: measured on a 2-core machine with /tmp on ext4, the slow
set's LanceDB and Chroma-server classes took 93 s on disk and 61 s on /dev/shm (user 102 s -> 86 s, sys 37 s -> 19 s).

The directory is made fresh (nothing of anyone else's is used or removed), exported as TMPDIR so that every worker,
subprocess and server the tests start puts its files there, and removed when the run ends.
``FILTERPROOF_TESTS_ON_DISK=1`` keeps the machine's own TMPDIR (to look at a failed test's files afterwards).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

RAM = Path("/dev/shm")
ROOM = 4 << 30
"""Free space the RAM file system must have (the slow set's stores use well under 1 GiB at once)."""


def ram_directory() -> Path | None:
    """A new directory on the RAM file system, or None where there is none with room (or the caller opted out)."""
    if os.environ.get("FILTERPROOF_TESTS_ON_DISK") or not RAM.is_dir() or not os.access(RAM, os.W_OK):
        return None
    stat = os.statvfs(RAM)
    if stat.f_bavail * stat.f_frsize < ROOM:
        return None
    directory = Path(tempfile.mkdtemp(prefix="filterproof-tests-", dir=RAM))
    directory.chmod(0o711)  # as root, PostgreSQL runs as nobody, who must enter it (servers.postgres.base_directory)
    return directory


def use(directory: Path) -> None:
    """Make ``directory`` the temporary directory of this process and of every process it starts."""
    os.environ["TMPDIR"] = str(directory)
    tempfile.tempdir = str(directory)


def remove(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)
