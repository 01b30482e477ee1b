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

Exit codes: 0 no finding, 1 a finding (or, with ``--replay``, it still fails), 2 bad usage.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

from filterproof import __version__
from filterproof.fuzz import lang, repro
from filterproof.fuzz.finding import Finding
from filterproof.fuzz.run import Outcome
from filterproof.fuzz.target import Target

RUN_SCHEMA = "filterproof/fuzz-1"


def _of(finding: Finding, targets: list[Target]) -> list[Target]:
    return [next(t for t in targets if t.name == name) for name in finding.targets]


def write(outcome: Outcome, targets: list[Target], directory: Path) -> list[Path]:
    """One reproducer and one JSON file per finding, numbered in the order found."""
    return [repro.write(f, _of(f, targets), directory, n) for n, f in enumerate(outcome.findings, 1)]


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


def load_finding(path: Path) -> tuple[Finding, list[Target]]:
    from filterproof.fuzz.shrink import relation_for
    from filterproof.fuzz.targets import open_target

    doc = json.loads(path.read_text())
    if doc.get("schema") != repro.FINDING_SCHEMA:
        raise ValueError(f"{path}: not a fuzz finding (schema {doc.get('schema')!r})")
    targets = [open_target(name) for name in doc["targets"]]
    expr = lang.from_json(doc["filter"])
    docs = {i: dict(d) for i, d in doc["docs"].items()}
    finding = Finding(tuple(doc["targets"]), doc["oracle"], doc["signature"], docs, expr, None,  # type: ignore[arg-type]
                      doc["answers"], doc["error"], doc["seed"], doc["case"], tuple(doc["spellings"]))
    relation = relation_for(finding, expr, docs, targets)
    if relation is None:
        raise ValueError(f"{path}: the oracle {finding.oracle} does not apply to this filter")
    finding.relation = relation
    return finding, targets


def replay(path: Path) -> int:
    """1 when the finding still fails on the installed versions, 0 when it does not."""
    from filterproof.fuzz.shrink import attempt

    finding, targets = load_finding(path)
    try:
        again = attempt(finding, finding.expr, finding.docs, targets)
    finally:
        for target in targets:
            target.close()
    print(f"{path}: {finding.signature}")
    print(f"  versions now: {', '.join(f'{k} {v}' for k, v in versions(targets).items())}")
    print(f"  {'FAILS: ' + again.describe() if again else 'holds: the finding does not reproduce'}")
    return 1 if again else 0
