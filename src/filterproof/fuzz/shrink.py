"""Shrinking a finding: the fewest documents, the fewest payload keys and the smallest filter that still fail.

Greedy, as a delta debugger does: drop one document, one key of a document, replace a
node of the filter by one of its children or drop one part of an AND/OR or one value
of a list, and keep each change that still violates the same oracle with the same
kind of failure (same targets, same signature's oracle). Each try loads a fresh world
into the targets, so the time is bounded (``seconds``); what is not done by then is
left as it is, and the finding says how far it got.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.finding import Finding, Judge
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.oracles import ONE_TARGET, Relation, differential
from filterproof.fuzz.target import Docs, Target


def relation_for(finding: Finding, expr: Expr, docs: Docs, targets: Sequence[Target]) -> Relation | None:
    built = differential(expr, docs, targets[0]) if finding.oracle == "differential" else \
        ONE_TARGET[finding.oracle](expr, docs, targets[0])
    return None if built is None else built.spelled(finding.spellings)


def attempt(finding: Finding, expr: Expr, docs: dict[str, dict[str, Any]], targets: Sequence[Target]
            ) -> Finding | None:
    """The finding again on this world and filter, or None when it no longer fails the same way."""
    relation = relation_for(finding, expr, docs, targets)
    if relation is None:
        return None
    for target in targets:
        target.world(docs)
    try:
        bad = Judge(targets).violation(relation, docs)
    except Unsupported:
        return None
    if bad is None or bool(bad[1]) != bool(finding.error):
        return None
    if finding.error and bad[1].split(":", 1)[0] != finding.error.split(":", 1)[0]:
        return None
    answers, error = bad
    return replace(finding, docs=docs, expr=expr, relation=relation, answers={k: sorted(v) for k, v in
                                                                               answers.items()}, error=error)


def smaller_filters(expr: Expr) -> Iterator[Expr]:
    """Each filter one step smaller than ``expr``: a child in its place, a part or a list value fewer."""
    match expr:
        case And(parts) | Or(parts):
            yield from parts
            join = type(expr)
            for i in range(len(parts)):
                if len(parts) > 1:
                    yield join(parts[:i] + parts[i + 1:])
                for smaller in smaller_filters(parts[i]):
                    yield join((*parts[:i], smaller, *parts[i + 1:]))
        case Not(Not(inner)):
            yield inner  # NOT NOT x is x in two- and three-valued logic alike
            yield expr.part
            for smaller in smaller_filters(expr.part):
                yield Not(smaller)
        case Not(part):
            yield part
            for smaller in smaller_filters(part):
                yield Not(smaller)
        case Cond(op, key, value) if isinstance(value, tuple) and len(value) > 1:
            for i in range(len(value)):
                yield Cond(op, key, value[:i] + value[i + 1:])


def smaller_worlds(docs: dict[str, dict[str, Any]], expr: Expr, allows: Allows
                   ) -> Iterator[dict[str, dict[str, Any]]]:
    """Half the documents, then one fewer; every key the filter does not name, then one key fewer (for targets
    that cannot tell a missing key from a null, ``allows.absent`` False, a key is set to null instead)."""
    ids = list(docs)
    if len(ids) > 3:
        half = len(ids) // 2
        yield {i: docs[i] for i in ids[:half]}
        yield {i: docs[i] for i in ids[half:]}
    for doc_id in reversed(ids):
        if len(docs) > 1:
            yield {i: d for i, d in docs.items() if i != doc_id}
    if not allows.absent and not allows.nulls:
        return
    named = {c.key for c in filterlang.nodes(expr) if isinstance(c, Cond)}

    def without(doc: dict[str, Any], keys: set[str]) -> dict[str, Any]:
        if allows.absent:
            return {k: v for k, v in doc.items() if k not in keys}
        return {k: None if k in keys else v for k, v in doc.items()}

    if any(k not in named and (allows.absent or d[k] is not None) for d in docs.values() for k in d):
        yield {i: without(d, set(d) - named) for i, d in docs.items()}
    for doc_id, doc in docs.items():
        for key in doc:
            if allows.absent or doc[key] is not None:
                yield {**docs, doc_id: without(doc, {key})}


def shrink(finding: Finding, targets: Sequence[Target], seconds: float) -> Finding:
    """The smallest failing form found within ``seconds``; the targets are the finding's (by name)."""
    judged = [t for name in finding.targets for t in targets if t.name == name]
    allows = Allows()
    for target in judged:
        allows = allows & target.allows
    deadline = time.monotonic() + seconds
    current = finding
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for docs in smaller_worlds(current.docs, current.expr, allows):
            if time.monotonic() >= deadline:
                break
            found = attempt(current, current.expr, docs, judged)
            if found is not None:
                current, progress = found, True
                break
        else:
            for expr in smaller_filters(current.expr):
                if time.monotonic() >= deadline:
                    break
                found = attempt(current, expr, current.docs, judged)
                if found is not None:
                    current, progress = found, True
                    break
    return current
