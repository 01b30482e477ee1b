"""A fuzz run written down: reproducers and finding files, a readable summary, JSON, and ``--replay``.

``filterproof fuzz --json FILE`` writes the run, schema ``filterproof/fuzz-1``:

- ``schema``, ``filterproof`` (its version), ``python``;
- ``targets`` (the names asked, in order) and ``versions`` (distribution or server -> version, every target's);
- ``seed``, ``cases`` (filters generated), ``worlds``, ``seconds``;
- ``checked``: ``"<targets> <oracle>"`` -> relations judged (``"qdrant-local+qdrant-edge differential"``);
- ``skipped``: ``"<target>: <reason>"`` -> relations not asked, because a language has no faithful form for a
  condition (the reason is the renderer's);
- ``stopped``: null, or the exit code of a SIGTERM or Ctrl-C that ended the run early (what was found is kept);
- ``findings``: one object per finding, each also written beside its reproducer as ``finding-N.json``, schema
  ``filterproof/fuzz-finding-1``, which ``--replay`` reads: ``targets``, ``oracle``, ``signature`` (what tells two
  findings apart), ``filter`` (the neutral filter as JSON: ``{"op", "key", "value"}``, ``{"and": [...]}``,
  ``{"or": [...]}``, ``{"not": ...}``; a date as ``{"$date": "YYYY-MM-DD"}``), ``shown`` (the same, readable),
  ``docs`` (the shrunk world: id -> payload), ``answers`` (each ask's label -> the ids it selected), ``error``
  (the engine's message, when it refused a filter), ``seed`` and ``case`` (where the generator made it),
  ``spellings``, ``shrunk_from`` (documents and filter nodes before shrinking), ``versions`` and ``reproducer``
  (the script's path).

Exit codes: 0 no finding, 1 a finding (or, with ``--replay``, it still fails), 2 bad usage (a finding file that
is none, a target that cannot be opened or whose own code raised). A finding file is data: ``--replay`` opens only
the built-in targets it names, or a ``module:Class`` also given with ``-b`` (``replay``).
"""

from __future__ import annotations

import platform
from collections.abc import Collection
from pathlib import Path
from typing import Any

from filterproof import __version__
from filterproof.fuzz import repro
from filterproof.fuzz.finding import Finding
from filterproof.fuzz.run import Outcome
from filterproof.fuzz.target import Target

RUN_SCHEMA = "filterproof/fuzz-1"


def _of(finding: Finding, targets: list[Target]) -> list[Target]:
    return [next(t for t in targets if t.name == name) for name in finding.targets]


def write(outcome: Outcome, targets: list[Target], directory: Path) -> list[Path]:
    """One reproducer and one JSON file per finding, numbered in the order found from 1, past the numbers the
    directory already holds (``repro.write``: nothing is overwritten)."""
    written: list[Path] = []
    for finding in outcome.findings:
        first = repro.number_of(written[-1]) + 1 if written else 1
        written.append(repro.write(finding, _of(finding, targets), directory, first))
    return written


def versions(targets: list[Target]) -> dict[str, str]:
    return {k: v for t in targets for k, v in t.versions().items()}


def summary(outcome: Outcome, targets: list[Target], written: list[Path]) -> str:
    checked = sum(outcome.checked.values())
    lines = [f"fuzz: seed {outcome.seed}, {outcome.cases} filters over {outcome.worlds} worlds in "
             f"{outcome.seconds:.1f} s, {checked} relations judged, {sum(outcome.skipped.values())} skipped",
             "versions: " + ", ".join(f"{k} {v}" for k, v in versions(targets).items())]
    for reason, count in sorted(outcome.skipped.items(), key=lambda kv: -kv[1])[:8]:
        lines.append(f"  skipped {count}x: {reason}")
    if not outcome.findings:
        lines.append("no finding")
    for finding, path in zip(outcome.findings, written, strict=True):
        lines.append(f"FINDING {finding.signature}")
        lines.append(f"  {finding.describe()}")
        lines.append(f"  world: {finding.docs}")
        lines.append(f"  reproducer: {path}")
    numbers = [repro.number_of(path) for path in written]
    if numbers != list(range(1, len(written) + 1)):
        lines.append(f"note: {written[0].parent} already held finding files, kept as they were: this run's are "
                     f"finding-{numbers[0]} to finding-{numbers[-1]}")
    return "\n".join(lines)


def to_json(outcome: Outcome, targets: list[Target], written: list[Path]) -> dict[str, Any]:
    return {
        "schema": RUN_SCHEMA, "filterproof": __version__, "python": platform.python_version(),
        "targets": [t.name for t in targets], "versions": versions(targets), "seed": outcome.seed,
        "cases": outcome.cases, "worlds": outcome.worlds, "seconds": round(outcome.seconds, 2),
        "checked": dict(outcome.checked), "skipped": dict(outcome.skipped), "stopped": outcome.stopped,
        "findings": [repro.to_json(f, versions(_of(f, targets))) | {"reproducer": str(p)}
                     for f, p in zip(outcome.findings, written, strict=True)],
    }


def load_finding(path: Path, allowed: Collection[str] = ()) -> tuple[Finding, list[Target]]:
    """The finding in ``path`` and its targets, opened (``replay.load_finding``: every field checked, and no target
    but a built-in one or one of ``allowed``, the ``module:Class`` names given with ``-b``)."""
    from filterproof.fuzz.replay import load_finding as load

    return load(path, allowed)


def replay(path: Path, allowed: Collection[str] = ()) -> int:
    """1 when the finding still fails on the installed versions, 0 when it does not (``replay.replay``)."""
    from filterproof.fuzz.replay import replay as again

    return again(path, allowed)
