"""What every usage error of the command line must be: exit 2, one line, ``error: ...``, naming what is at fault."""

from __future__ import annotations

from typing import Any


def one_line_error(result: Any, *fragments: str) -> str:
    """The line of a command's usage error (a ``CliRunner`` result), once each of ``fragments`` is checked in it."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return str(lines[0])
