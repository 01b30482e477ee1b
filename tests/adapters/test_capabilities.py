"""What an adapter declares (``adapters.base.Capabilities``): a declaration the suite cannot hold a store to raises.

Found by the mutation run of the SQLite example: ``staleness_bound_s=-1.0`` passed every check, held to a bound
no clock can meet and read as "never stale" by nothing; the declaration now raises where it is made.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from filterproof.adapters.base import Capabilities


@pytest.mark.parametrize("bound", [None, 0, 0.0, 2.5, 60])
def test_a_staleness_bound_is_none_or_a_finite_number_of_seconds(bound: Any) -> None:
    assert Capabilities(staleness_bound_s=bound).staleness_bound_s == bound


@pytest.mark.parametrize(("field", "value", "error"), [
    ("staleness_bound_s", -1.0, ValueError), ("staleness_bound_s", math.inf, ValueError),
    ("staleness_bound_s", math.nan, ValueError), ("staleness_bound_s", "0", TypeError),
    ("staleness_bound_s", True, TypeError),
    ("recall_tolerance", -0.1, ValueError), ("recall_tolerance", 1.5, ValueError),
    ("recall_tolerance", math.nan, ValueError), ("recall_tolerance", None, TypeError),
    ("native_filter", 1, TypeError), ("exact", "yes", TypeError), ("lifecycle", None, TypeError),
    ("persistent", 0, TypeError), ("thread_safe", "no", TypeError),
])
def test_a_declaration_no_store_can_be_held_to_raises_naming_the_field(field: str, value: Any,
                                                                         error: type[Exception]) -> None:
    with pytest.raises(error, match=rf"^Capabilities\.{field} "):
        Capabilities(**{field: value})
