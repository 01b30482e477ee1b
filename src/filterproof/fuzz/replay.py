"""``filterproof fuzz --replay FILE``: a finding file read back, checked field by field, and asked again.

A finding file is data, possibly from someone else: every field is checked before it is
used (a ``UsageError`` naming the file and the field), and its ``targets`` may name only
filterproof's own targets (``targets.builtin``), unless the same ``module:Class`` is also
given on the command line (``allowed``, from ``-b``): a name in a file must never choose
a module to import and a class to call. That check comes before anything is imported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from pathlib import Path
from typing import Any

from filterproof.adapters import filterlang
from filterproof.errors import UsageError
from filterproof.fuzz import repro
from filterproof.fuzz.finding import Finding
from filterproof.fuzz.oracles import ORACLES
from filterproof.fuzz.target import Target

MAX_DEPTH = 64
"""JSON nesting a finding may have: a generated one is a dozen levels deep (a filter nests 3 or 4 levels)."""
SCALARS = (str, int, float, bool, type(None))


class BadFinding(UsageError):
    """A finding file that cannot be replayed; the message names the file and the field."""


def read(path: Path) -> dict[str, Any]:
    """The file's JSON object, when it is a finding (``repro.FINDING_SCHEMA``)."""
    try:
        doc = json.loads(path.read_bytes())
    except OSError as error:
        raise BadFinding(f"{path}: cannot read: {error.strerror or error}") from None
    except RecursionError:
        raise BadFinding(f"{path}: JSON nested too deeply to read") from None
    except UnicodeDecodeError as error:
        raise BadFinding(f"{path}: not UTF-8 text: {error.reason}") from None
    except json.JSONDecodeError as error:
        raise BadFinding(f"{path}: line {error.lineno} column {error.colno}: invalid JSON: {error.msg}") from None
    except ValueError as error:  # an integer literal past Python's limit of digits
        raise BadFinding(f"{path}: cannot read: {error}") from None
    schema = doc.get("schema") if isinstance(doc, dict) else None
    if schema != repro.FINDING_SCHEMA:
        raise BadFinding(f"{path}: not a fuzz finding (schema {schema!r}; a finding-N.json that `filterproof fuzz` "
                         f"writes has {repro.FINDING_SCHEMA!r})")
    if depth(doc) > MAX_DEPTH:
        raise BadFinding(f"{path}: field {deepest(doc)!r}: nested too deeply (at most {MAX_DEPTH} levels)")
    return doc


def depth(value: Any) -> int:
    """How deep ``value`` nests (a scalar: 0), without recursion: a file may nest as deep as json reads."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, level)
            todo.extend((child, level + 1) for child in children)
    return deepest


def deepest(doc: dict[str, Any]) -> str:
    return max(doc, key=lambda key: depth(doc[key]))


def field(path: Path, doc: dict[str, Any], name: str, kinds: type, expected: str) -> Any:
    if name not in doc:
        raise BadFinding(f"{path}: field {name!r} is missing")
    value = doc[name]
    if not isinstance(value, kinds) or isinstance(value, bool):  # True is an int to Python, not to a finding
        raise BadFinding(f"{path}: field {name!r}: expected {expected}, got {_short(value)}")
    return value


def target_names(path: Path, doc: dict[str, Any], allowed: Collection[str]) -> list[str]:
    """The targets, each built in or allowed by ``-b``: checked before any module is imported."""
    from filterproof.fuzz.targets import TARGETS, builtin

    names = field(path, doc, "targets", list, "a list of one or two target names")
    if not 1 <= len(names) <= 2 or not all(isinstance(n, str) for n in names):
        raise BadFinding(f"{path}: field 'targets': expected a list of one or two target names, got {_short(names)}")
    for name in names:
        if builtin(name) or name in allowed:
            continue
        if ":" not in name:
            raise BadFinding(f"{path}: field 'targets': unknown fuzz target {name!r}; built in: {', '.join(TARGETS)}")
        raise BadFinding(f"{path}: field 'targets': target {name!r} is not built in, and a finding file may not "
                         f"choose code to import: pass -b {name} to allow it")
    return names


def check_filter(path: Path, node: Any) -> None:
    """A filter as ``filterlang.to_json`` writes it (bounded in depth by ``read``), else a ``BadFinding``."""
    def bad(why: str) -> BadFinding:
        return BadFinding(f"{path}: field 'filter': {why}")

    if not isinstance(node, dict):
        raise bad(f"expected an object, got {_short(node)}")
    joins = [key for key in ("and", "or", "not") if key in node]
    if joins:
        if len(node) != 1:
            raise bad(f"{_short(node)}: expected one of and, or, not alone")
        part = node[joins[0]]
        if joins[0] == "not":
            check_filter(path, part)
            return
        if not isinstance(part, list):
            raise bad(f"{joins[0]}: expected a list of filters, got {_short(part)}")
        for each in part:
            check_filter(path, each)
        return
    op, key = node.get("op"), node.get("key")
    if op not in filterlang.OPS:
        raise bad(f"unknown operator {op!r}; the operators: {', '.join(filterlang.OPS)}")
    if not isinstance(key, str):
        raise bad(f"{op}: expected a field name as key, got {_short(key)}")
    if op in filterlang.UNARY_OPS:
        if node.get("value") is not None:
            raise bad(f"{op} takes no value, got {_short(node['value'])}")
        return
    value = node.get("value")
    values = value if op in filterlang.LIST_OPS else [value]
    if not isinstance(values, list) or not all(_plain(v) or _date(v) for v in values):
        raise bad(f"{op} on {key}: expected {'a list of values' if op in filterlang.LIST_OPS else 'a value'} (text, "
                  f"a number, a bool, {{\"$date\": \"YYYY-MM-DD\"}}), got {_short(value)}")


def check_docs(path: Path, docs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    for doc_id, payload in docs.items():
        if not isinstance(payload, dict):
            raise BadFinding(f"{path}: field 'docs': document {doc_id!r}: expected an object, got {_short(payload)}")
        for key, value in payload.items():
            if not (_plain(value) or (isinstance(value, list) and all(_plain(v) for v in value))):
                raise BadFinding(f"{path}: field 'docs': document {doc_id!r}, key {key!r}: expected a value or a "
                                 f"list of values, got {_short(value)}")
    return {i: dict(d) for i, d in docs.items()}


def load_finding(path: Path, allowed: Collection[str] = ()) -> tuple[Finding, list[Target]]:
    """The finding and its targets, opened; ``allowed``: the ``module:Class`` names the command line gave."""
    from filterproof.fuzz.shrink import relation_for
    from filterproof.fuzz.targets import TargetError, open_targets

    doc = read(path)
    names = target_names(path, doc, allowed)
    oracle = field(path, doc, "oracle", str, "an oracle's name")
    if oracle not in ORACLES:
        raise BadFinding(f"{path}: field 'oracle': unknown oracle {oracle!r}; the oracles: {', '.join(ORACLES)}")
    if (oracle == "differential") != (len(names) == 2):
        raise BadFinding(f"{path}: field 'targets': the {oracle} oracle judges {'two' if len(names) == 1 else 'one'} "
                         f"target{'s' if len(names) == 1 else ''}, not {len(names)}")
    check_filter(path, field(path, doc, "filter", dict, "a filter"))
    try:
        expr = filterlang.from_json(doc["filter"])
    except (KeyError, TypeError, ValueError) as error:  # a date that is none (2026-02-30)
        raise BadFinding(f"{path}: field 'filter': {error}") from None
    docs = check_docs(path, field(path, doc, "docs", dict, "an object of id -> document"))
    answers = field(path, doc, "answers", dict, "an object of label -> ids")
    error = field(path, doc, "error", str, "the engine's message, or \"\"")
    signature = field(path, doc, "signature", str, "text")
    seed, case = field(path, doc, "seed", int, "an integer"), field(path, doc, "case", int, "an integer")
    spellings = field(path, doc, "spellings", list, "two spellings")
    if len(spellings) != 2 or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in spellings):
        raise BadFinding(f"{path}: field 'spellings': expected two integers from 0, got {_short(spellings)}")
    try:
        targets = open_targets(names)
    except TargetError as why:
        raise BadFinding(f"{path}: target {why.target!r}: {why}") from None
    try:
        for n, spelling in enumerate(spellings):  # one target: the second is 0, as the fuzzer writes it
            ways = targets[n].spellings if n < len(targets) else 1
            if spelling >= ways:
                raise BadFinding(f"{path}: field 'spellings': {_short(spellings)}: target {n + 1} writes a filter "
                                 f"{ways} way(s), so spelling {spelling} is none of them")
        finding = Finding(tuple(names), oracle, signature, docs, expr, None,  # type: ignore[arg-type]
                          answers, error, seed, case, (spellings[0], spellings[1]))
        relation = relation_for(finding, expr, docs, targets)
        if relation is None:
            raise BadFinding(f"{path}: the oracle {oracle} does not apply to this filter and world")
    except BaseException:
        for target in targets:
            target.close()
        raise
    finding.relation = relation
    return finding, targets


def replay(path: Path, allowed: Collection[str] = ()) -> int:
    """1 when the finding still fails on the installed versions, 0 when it does not."""
    from filterproof.fuzz.shrink import attempt

    finding, targets = load_finding(path, allowed)
    try:
        again = attempt(finding, finding.expr, finding.docs, targets)
    finally:
        for target in targets:
            target.close()
    print(f"{path}: {finding.signature}")
    versions = {k: v for t in targets for k, v in t.versions().items()}
    print(f"  versions now: {', '.join(f'{k} {v}' for k, v in versions.items())}")
    print(f"  {'FAILS: ' + again.describe() if again else 'holds: the finding does not reproduce'}")
    return 1 if again else 0


def _plain(value: Any) -> bool:
    """A JSON scalar a world or a filter may hold (NaN and the infinities are never generated)."""
    return isinstance(value, SCALARS) and not (isinstance(value, float) and not math.isfinite(value))


def _date(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"$date"} and isinstance(value["$date"], str)


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if depth(value) < MAX_DEPTH else type(value).__name__
    return text if len(text) <= 80 else text[:77] + "..."
