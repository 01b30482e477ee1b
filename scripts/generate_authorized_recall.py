"""Write fixtures/authorized-recall/ from the facts of the authorized-recall corpus.

    python scripts/generate_authorized_recall.py [--out fixtures/authorized-recall]

Eight domains of five facets each (40 datasets), three queries per domain taken
from its first three facets (24 queries), four principal profiles granting whole
domains. Relevance is by construction: a dataset is relevant to a query of its
own domain. The output is deterministic; the committed files are its output.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from filterproof.fixtures.corpus import dump_corpus

# domain -> (vocabulary, facets, sensitivity)
DOMAINS: dict[str, tuple[str, list[str], str]] = {
    "purification": (
        "purification recovery yield elution buffer capture polish load",
        ["batch records", "step yields", "buffer conditions", "load challenges", "elution pools"],
        "internal",
    ),
    "chromatography": (
        "chromatography column peak resolution retention gradient pooling",
        ["peak tables", "column performance", "gradient profiles", "pooling decisions", "resolution trends"],
        "internal",
    ),
    "fermentation": (
        "fermentation bioreactor viability titer feed dissolved oxygen",
        ["viability curves", "titer profiles", "feed schedules", "oxygen transfer", "harvest criteria"],
        "internal",
    ),
    "analytics": (
        "assay analytical potency purity impurity release specification",
        ["potency assays", "purity results", "impurity profiles", "release testing", "specification limits"],
        "confidential",
    ),
    "clinical": (
        "clinical subject endpoint adverse dose cohort visit",
        ["subject observations", "endpoint summaries", "adverse events", "dose cohorts", "visit schedules"],
        "restricted",
    ),
    "supply": (
        "supply inventory lot shipment warehouse cold chain logistics",
        ["lot inventory", "shipment tracking", "cold chain excursions", "warehouse stock", "logistics routes"],
        "internal",
    ),
    "equipment": (
        "equipment calibration maintenance asset downtime utilisation sensor",
        ["calibration records", "maintenance logs", "downtime events", "asset utilisation", "sensor streams"],
        "internal",
    ),
    "quality": (
        "quality deviation capa audit complaint change control batch disposition",
        ["deviations", "CAPA records", "audit findings", "complaints", "batch disposition"],
        "confidential",
    ),
}
CAPABILITIES = ("search", "aggregate", "compare", "summarize")
PROFILES = {
    "process-engineer": ("purification", "chromatography", "fermentation", "equipment"),
    "analyst": ("analytics", "chromatography", "quality"),
    "clinical-reviewer": ("clinical", "analytics"),
    "external-auditor": ("quality",),
}
QUERIES_PER_DOMAIN = 3


def dataset_id(domain: str, facet: str) -> str:
    return f"{domain}-{facet.replace(' ', '-').lower()}"


def dataset(domain: str, index: int, facet: str) -> dict:
    vocabulary, _, sensitivity = DOMAINS[domain]
    return {
        "dataset": dataset_id(domain, facet),
        "domain": domain,
        "revision": f"rev-{domain}-{index:02d}",
        "description": f"{facet.capitalize()} for {domain}: {vocabulary}.",
        "schemas": [facet.replace(" ", "_")],
        "capabilities": [
            {
                "name": name,
                "effect": "read" if name in ("search", "compare") else "compute",
                "sensitivity": sensitivity,
                "description": f"{name} over {facet} in {domain}",
            }
            for name in CAPABILITIES
        ],
    }


def build() -> tuple[list[dict], list[dict], dict]:
    datasets = [
        dataset(domain, i, facet)
        for domain, (_, facets, _) in DOMAINS.items()
        for i, facet in enumerate(facets, start=1)
    ]
    queries = [
        {
            "query": f"what do the {facet} tell us about {vocabulary.split()[1]}",
            "domain": domain,
            "relevant": [d["dataset"] for d in datasets if d["domain"] == domain],
        }
        for domain, (vocabulary, facets, _) in DOMAINS.items()
        for facet in facets[:QUERIES_PER_DOMAIN]
    ]
    profiles = {
        name: {"grants": {d["dataset"]: list(CAPABILITIES) for d in datasets if d["domain"] in domains}}
        for name, domains in PROFILES.items()
    }
    return datasets, queries, profiles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("fixtures/authorized-recall"))
    out = parser.parse_args().out
    datasets, queries, profiles = build()
    dump_corpus(out, datasets, queries, profiles)
    print(f"{out}: {len(datasets)} datasets, {len(DOMAINS)} domains, "
          f"{len(queries)} queries, {len(profiles)} profiles")


if __name__ == "__main__":
    main()
