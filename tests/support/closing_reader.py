"""A reader whose ``close`` takes a moment and leaves a file behind: what a child reader's close let it finish."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit
from filterproof.policy import PolicyFilter


class ClosingReader:
    name = "closing-reader"

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.path = Path(options["path"])

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return []

    def close(self) -> None:
        time.sleep(0.2)  # a store's connection closing: longer than the parent takes to go on after the answer
        self.path.write_text("closed")
