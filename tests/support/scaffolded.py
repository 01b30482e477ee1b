"""A package ``filterproof new-adapter`` wrote, run as its user runs it, without installing anything here.

``pytest`` runs in the package's directory, in a subprocess, with filterproof importable
(``PYTHONPATH``: ``pip install`` for a user) and the package's own ``pythonpath = ["src"]``.
``installed`` writes, into a temporary directory on that path, the ``.dist-info`` that
``pip install -e .`` leaves behind, entry points included (read from the generated
``pyproject.toml``): a ``filterproof`` subprocess then finds the backends by name, and the
shared environment is never touched. The filled-in adapter is the one in
docs/guides/your-own-store.md, so the guide's example is proven to pass the whole suite.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from typer.testing import CliRunner

import filterproof
from filterproof.cli import app
from filterproof.scaffold import Names
from support.paths import ROOT
from support.processes import UNUSED_PLUGINS

GUIDE = ROOT / "docs" / "guides" / "your-own-store.md"
SRC = Path(filterproof.__file__).resolve().parent.parent
FILLED_IN = "# src/filterproof_mystore/adapter.py, filled in"
runner = CliRunner()


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def filled_in_adapter(names: Names | None = None) -> str:
    """The guide's filled-in ``mystore`` adapter; for ``names``, the same adapter under that backend's names."""
    text = next(block for block in blocks(GUIDE.read_text(encoding="utf-8"), "python") if block.startswith(FILLED_IN))
    if names is None:
        return text
    return text.replace("Mystore", names.camel).replace('name = "mystore"', f'name = "{names.backend}"')


def scaffold(tmp_path: Path, name: str = "mystore", *options: str, directory: str | None = None) -> Path:
    """``filterproof new-adapter NAME DIR OPTIONS...``, which must succeed; DIR (``tmp_path/NAME``)."""
    package = tmp_path / (directory or name)
    result = runner.invoke(app, ["new-adapter", name, str(package), *options])
    assert result.exit_code == 0, result.output
    return package


def environment(*path: Path) -> dict[str, str]:
    """This environment, filterproof and ``path`` on ``PYTHONPATH``, no pytest-xdist variables, a wide terminal."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.update(PYTHONPATH=os.pathsep.join(map(str, (SRC, *path))), COLUMNS="400")
    return env


def run_pytest(package: Path, *args: str, path: tuple[Path, ...] = ()) -> tuple[int, str]:
    """``pytest ARGS`` in the package's directory, as a user runs it; the exit code and the output."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *UNUSED_PLUGINS, *args],
                          cwd=package, env=environment(*path), capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def run_filterproof(*args: str, path: tuple[Path, ...]) -> subprocess.CompletedProcess[str]:
    """``filterproof ARGS`` in a subprocess with ``path`` importable (``installed``'s site among them)."""
    return subprocess.run([sys.executable, "-m", "filterproof.cli", *args], env=environment(*path),
                          capture_output=True, text=True, timeout=600)


def installed(package: Path, site: Path) -> tuple[Path, ...]:
    """What ``pip install -e .`` would make importable, written into ``site`` (its ``.dist-info`` with the
    package's entry points, read from its ``pyproject.toml``): the paths to put on ``PYTHONPATH``."""
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    info = site / f"{project['name'].replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: 0.1.0\n")
    group = project["entry-points"]["filterproof.adapters"]
    (info / "entry_points.txt").write_text("[filterproof.adapters]\n" + "".join(f"{k} = {v}\n" for k, v in
                                                                                   group.items()))
    return site, package / "src"


def first_line(output: str, prefix: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(prefix))

