"""Synthetic text from a seeded vocabulary: no corpus is downloaded, and relevance is known.

Words are pronounceable nonsense built from syllables, so no real-language
statistics leak in and every run is reproducible from the seed alone. Three
layers of vocabulary give the TF-IDF space a structure the sweep can rely on:

* *general* words, Zipf-distributed, shared by every document (background noise);
* *domain* words, one block per domain; every document belongs to one domain, so
  unrelated documents still have near neighbours (what makes filtering matter);
* *topic* words, a block per case: the documents planted for a case (its relevant
  set) use them, and the case's query is written from them. Relevance is therefore
  a fact of construction, not a judgement fitted to the retriever afterwards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
GENERAL_PER_DOC = 10
DOMAIN_PER_DOC = 6
TOPIC_WORDS = 8


def facet_count(topics: int) -> int:
    """Enough facets that every topic gets its own pair: sqrt(2 x topics) plus headroom."""
    return max(8, math.ceil(math.sqrt(2 * topics)) + 4)


def syllables() -> list[str]:
    return [c + v for c in CONSONANTS for v in VOWELS]


def make_words(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` distinct three-syllable words, in a seeded order."""
    syl = syllables()
    n = len(syl)
    if count > n**3:
        raise ValueError(f"cannot make {count} distinct words from {n**3}")
    codes = rng.choice(n**3, size=count, replace=False)
    return [syl[c // (n * n)] + syl[(c // n) % n] + syl[c % n] for c in codes.tolist()]


@dataclass
class Vocabulary:
    """The word blocks, drawn once per fixture from the fixture's seed."""

    general: list[str]
    general_p: np.ndarray
    domains: list[list[str]]
    topics: list[list[str]]

    @classmethod
    def build(cls, rng: np.random.Generator, n_general: int, n_domains: int, domain_size: int,
              n_topics: int) -> Vocabulary:
        n_facets = facet_count(n_topics)
        half = TOPIC_WORDS // 2
        words = make_words(rng, n_general + n_domains * domain_size + n_facets * half)
        general, rest = words[:n_general], words[n_general:]
        weights = 1.0 / np.arange(1, n_general + 1) ** 1.1
        domains = [rest[i * domain_size:(i + 1) * domain_size] for i in range(n_domains)]
        rest = rest[n_domains * domain_size:]
        facets = [rest[i * half:(i + 1) * half] for i in range(n_facets)]
        pairs = [(a, b) for a in range(n_facets) for b in range(a + 1, n_facets)]
        chosen = rng.choice(len(pairs), size=n_topics, replace=False).tolist()
        topics = [facets[pairs[i][0]] + facets[pairs[i][1]] for i in chosen]
        return cls(general, weights / weights.sum(), domains, topics)


BACKGROUND_PIECE = 65_536
"""Rows per draw of background words: the same stream as one draw for all rows, without its transient."""


@dataclass
class Background:
    """Every background document's words, as indices: 26 bytes a row instead of a 150-byte string.

    ``general[row]`` indexes the general vocabulary, ``local[row]`` the row's domain
    block. ``texts`` joins them into strings for the rows being read, on demand.
    """

    general: np.ndarray
    local: np.ndarray
    domain: np.ndarray


class PackedTexts:
    """Texts of a few rows (the planted documents), packed into one bytes buffer with offsets.

    A Python string costs about 50 bytes of header plus a dict slot per row; packed,
    a planted text costs its length plus 8 bytes (they are ASCII by construction).
    """

    def __init__(self, texts: dict[int, str]) -> None:
        self.rows = np.array(sorted(texts), dtype=np.int64)
        encoded = [texts[r].encode("ascii") for r in self.rows.tolist()]
        self.offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=self.offsets[1:])
        self.blob = b"".join(encoded)

    def __len__(self) -> int:
        return len(self.rows)

    def apply(self, rows: np.ndarray, texts: list[str]) -> None:
        """Overwrite ``texts[j]`` with the packed text of ``rows[j]`` where there is one."""
        at = np.searchsorted(self.rows, rows)
        hit = at < len(self.rows)
        hit[hit] = self.rows[at[hit]] == rows[hit]
        for j, i in zip(np.flatnonzero(hit).tolist(), at[hit].tolist(), strict=True):
            texts[j] = self.blob[self.offsets[i]:self.offsets[i + 1]].decode("ascii")


class TextMaker:
    """Draws background words in bulk, writes the planted documents and queries of each case."""

    def __init__(self, rng: np.random.Generator, vocabulary: Vocabulary) -> None:
        self.rng = rng
        self.vocab = vocabulary
        self._general = np.array(vocabulary.general, dtype=object)
        self._domains = np.array(vocabulary.domains, dtype=object)

    def background(self, domains: np.ndarray) -> Background:
        """The words of one document per entry of ``domains`` (a domain index per document), as indices.

        Drawn in pieces: ``choice`` with ``p`` and ``integers`` consume the seed's
        stream value by value, so pieces give the same words as one draw of every
        row (the tests hold the corpus equal, byte for byte, to the one drawn at once).
        """
        n = len(domains)
        general = np.empty((n, GENERAL_PER_DOC), dtype=np.int16 if len(self._general) < 2**15 else np.int32)
        for start in range(0, n, BACKGROUND_PIECE):
            stop = min(n, start + BACKGROUND_PIECE)
            general[start:stop] = self.rng.choice(len(self._general), size=(stop - start, GENERAL_PER_DOC),
                                                  p=self.vocab.general_p)
        size = len(self.vocab.domains[0])
        local = np.empty((n, DOMAIN_PER_DOC), dtype=np.int8 if size < 128 else np.int16)
        for start in range(0, n, BACKGROUND_PIECE):
            stop = min(n, start + BACKGROUND_PIECE)
            local[start:stop] = self.rng.integers(0, size, size=(stop - start, DOMAIN_PER_DOC))
        return Background(general, local, domains)

    def texts(self, background: Background, rows: np.ndarray | slice) -> list[str]:
        """The background texts of ``rows`` (general words, then domain words, space separated)."""
        domain_words = self._domains[background.domain[rows][:, None], background.local[rows]]
        tokens = np.concatenate([self._general[background.general[rows]], domain_words], axis=1)
        return [" ".join(row) for row in tokens.tolist()]

    def _general_words(self, count: int) -> list[str]:
        picks = self.rng.choice(len(self._general), size=count, p=self.vocab.general_p)
        return self._general[picks].tolist()

    def _domain_words(self, domain: int, count: int) -> list[str]:
        words = self.vocab.domains[domain]
        return [words[i] for i in self.rng.integers(0, len(words), size=count).tolist()]

    def query(self, topic: int, domain: int) -> tuple[str, list[str]]:
        """The query text of a case, and its topic words: two from each of the topic's two facets."""
        words = self.vocab.topics[topic]
        half = len(words) // 2
        first = self.rng.choice(half, 2, replace=False).tolist()
        second = (half + self.rng.choice(half, 2, replace=False)).tolist()
        chosen = [words[i] for i in sorted(first + second)]
        return " ".join([*chosen, *self._domain_words(domain, 1)]), chosen

    def relevant(self, topic: int, query_words: list[str], domain: int, answer: bool = False) -> str:
        """A document about the case's topic.

        It repeats three of the query's four topic words and adds one or two other
        words of the topic, so that every relevant document outscores documents that
        merely share one facet with the query. The answer has all four, twice.
        """
        keep = list(query_words)
        if not answer:
            keep.pop(int(self.rng.integers(0, len(keep))))
        others = [w for w in self.vocab.topics[topic] if w not in query_words]
        extra = int(self.rng.integers(1, 3))
        keep += [others[i] for i in self.rng.choice(len(others), extra, replace=False).tolist()]
        if answer:  # the answer says it twice and little else: the one best eligible match by construction
            tokens = query_words + keep + self._domain_words(domain, 1) + self._general_words(2)
        else:
            tokens = keep + self._domain_words(domain, 3) + self._general_words(6)
        order = self.rng.permutation(len(tokens)).tolist()
        return " ".join(tokens[i] for i in order)
