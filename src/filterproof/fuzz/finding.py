"""A finding, and the judge that asks a relation of its targets: what the loop (``run``) and ``shrink`` share.

A finding is kept with its world, filter, relation, answers and the spellings it was
written in; its signature (targets, oracle, the operators with their values' kinds, the
spelling where it changes the rendering, what the world holds in the named fields) is
what tells two findings apart. An engine's error is one finding per message, whatever
the oracle that met it: its numbers and quoted text set aside, so ``ARRAY_CONTAINS(nums,
-1)`` refused under six oracles and at two values is reported once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import Unsupported
from filterproof.fuzz.oracles import Relation
from filterproof.fuzz.target import Docs, Target, TargetFailed


@dataclass
class Finding:
    targets: tuple[str, ...]
    oracle: str
    signature: str
    docs: dict[str, dict[str, Any]]
    expr: filterlang.Expr
    relation: Relation
    answers: dict[str, list[str]]
    error: str = ""
    seed: int = 0
    case: int = 0
    spellings: tuple[int, int] = (0, 0)
    """How each of the targets wrote the filter (``Target.spellings``)."""
    shrunk_from: tuple[int, int] = (0, 0)
    """(documents, filter nodes) before shrinking."""
    reproducer: str = ""

    def describe(self) -> str:
        what = self.error or ", ".join(f"{k}: {sorted(v)}" for k, v in self.answers.items())
        return f"{'+'.join(self.targets)} {self.oracle} on {filterlang.show(self.expr)}: {what}"


class Judge:
    """Asks one relation of its targets (on the loaded world) and says whether it holds."""

    def __init__(self, targets: Sequence[Target]) -> None:
        self.targets = targets

    def answers(self, relation: Relation) -> dict[str, set[str]]:
        sources = [(ask, ask.render(self.targets[ask.target])) for ask in relation.asks]
        return {ask.label: self.targets[ask.target].answer(source, ask.via, ask.indexed, ask.optimized)
                for ask, source in sources}

    def violation(self, relation: Relation, docs: Docs) -> tuple[dict[str, set[str]], str] | None:
        """The answers and an error message when the relation fails (an engine error is a failure)."""
        try:
            answers = self.answers(relation)
        except (Unsupported, NotImplementedError, TargetFailed):  # not the engine's answer: a skip, a target still
            raise  # to write, a bug in the target's own code (``Target.guard``: not one of its ``engine_errors``)
        except Exception as error:  # the engine refused a filter its own language accepts: a finding too
            return {}, f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
        return None if relation.holds(answers, set(docs)) else (answers, "")


def value_kind(value: Any) -> str:
    if isinstance(value, list):
        return "list+null" if None in value else ("empty list" if not value else "list")
    return "null" if value is None else type(value).__name__


def signature(targets: Sequence[str], oracle: str, expr: filterlang.Expr, error: str, docs: Docs,
              spellings: Sequence[int]) -> str:
    """What tells two findings apart: targets, oracle, the operators of the filter, the spelling, and what the
    world holds in the fields the filter names (a bool, a null, a missing key, a list holding a null)."""
    if error:
        return f"{'+'.join(targets)} error {message_shape(error)}"
    named = sorted({c.key for c in filterlang.nodes(expr) if isinstance(c, filterlang.Cond)})
    held = sorted({value_kind(d[k]) if k in d else "missing" for d in docs.values() for k in named})
    spelled = f"spelling {spellings[0]}" if spellings[0] and oracle != "spelling" else ""
    return " ".join(filter(None, ("+".join(targets), oracle, filterlang.shape(expr, kinds=True), spelled,
                                  "[" + " ".join(held) + "]")))


def message_shape(error: str) -> str:
    """An error message with its quoted text and its numbers replaced (``'-'`` by ``S``, ``-1`` by ``N``)."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "S", error)
    return re.sub(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "N", text)[:160]
