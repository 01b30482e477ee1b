"""The plugin's options: a mistake is one usage error (exit code 4) before any test runs, not one error per test."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Imported once here, so that pytester's in-process runs share one hypothesis module with the plugin.
import filterproof.conformance.suite  # noqa: F401
from support.processes import UNUSED_PLUGINS

pytest_plugins = ["pytester"]

SUITE = ["-p", "no:cacheprovider", "--pyargs", "filterproof.conformance"]


@pytest.mark.parametrize(("args", "message"), [
    (["--adapter", "nosuchmodule:make"], "ERROR: --adapter 'nosuchmodule:make': cannot import 'nosuchmodule'*"),
    (["--adapter", "filterproof.conformance.defects:NoSuchDefect"],
     "ERROR: --adapter 'filterproof.conformance.defects:NoSuchDefect': * has no callable 'NoSuchDefect'"),
    (["--adapter", "filterproof.conformance.defects"], "ERROR: --adapter *: expected package.module:factory"),
    (["--backend", "reference", "--backend-option", "hnsw_ef"],
     "ERROR: --backend-option takes KEY=VALUE, got 'hnsw_ef'"),
    (["--backend", "nosuchstore"], "ERROR: --backend: unknown backend 'nosuchstore'; known: reference, *"),
    (["--backend", "qdrant-local:nonsense=1"],
     "ERROR: --backend: backend 'qdrant-local': unknown option 'nonsense'; valid options: *"),
    (["--backend", "qdrant-edge:hnsw_ef=abc"], "ERROR: --backend: backend 'qdrant-edge': option hnsw_ef='abc'*"),
    (["--backend", "reference", "--conformance-scale", "-1"], "ERROR: --conformance-scale takes a number >= 0*"),
])
def test_a_usage_mistake_is_reported_once(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    result = pytester.runpytest(*SUITE, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert result.stderr.str().count("ERROR:") == 1
    assert "passed" not in result.stdout.str() and "error" not in result.stdout.str().lower()


def test_the_readme_example_prints_one_usage_error() -> None:
    """As a user runs it: a fresh interpreter, the installed plugin, one line on stderr, exit code 4."""
    result = subprocess.run([sys.executable, "-m", "pytest", *UNUSED_PLUGINS, *SUITE, "--adapter",
                             "nosuchmodule:make"], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.splitlines() if line.strip()] == [
        "ERROR: --adapter 'nosuchmodule:make': cannot import 'nosuchmodule': No module named 'nosuchmodule'"]
