"""Scores a detector's findings on the corpus: recall and precision per entity type, false positives on hard
negatives, and recall per context and per value family.

A gold entity counts as found when a finding of a compatible type overlaps it (``recall``), and as covered when
compatible findings together cover every letter and digit of it (``recall_covered``: what a mask leaves of the
value is what leaks). ``recall_any_type`` counts findings of any scored type: under a mask-all policy a value
flagged under the wrong type is still masked. ``precision`` is the share of findings that overlap a gold entity of
a compatible type; ``precision_any_type`` the share that overlap any gold entity (a name inside a street address
flagged as PERSON, an ITIN flagged as US_SSN). A hard negative counts as a false positive when any scored finding
overlaps it. Findings of types no gold type corresponds to (Presidio's URL, NRP, CRYPTO, bank numbers, ...) are
not scored.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from bench.pii_corpus.generator import ENTITY_TYPES

Finding = tuple[str, int, int, float]  # entity type, start, end, score

# Presidio's names for national identifiers; each stands for NATIONAL_ID.
PRESIDIO_NATIONAL_TYPES = ("US_ITIN", "UK_NINO", "ES_NIF", "ES_NIE", "IT_FISCAL_CODE", "IN_PAN", "IN_AADHAAR",
                           "DE_TAX_ID", "FR_NIR", "BR_CPF", "PL_PESEL", "IT_IDENTITY_CARD", "IN_VOTER", "SG_NRIC_FIN",
                           "AU_TFN", "FI_PERSONAL_IDENTITY_CODE", "KR_RRN", "TH_TNIN")  # fmt: skip
# Finding type -> the gold type it is counted under (per-type precision). Presidio reports a date of birth as
# DATE_TIME; Warden gets the same allowance.
PRIMARY: dict[str, str] = {
    **{entity_type: entity_type for entity_type in ENTITY_TYPES},
    "DATE_TIME": "DATE_OF_BIRTH",
    **dict.fromkeys(PRESIDIO_NATIONAL_TYPES, "NATIONAL_ID"),
}
# Finding type -> the gold types it may stand for: its own, and for LOCATION also a street address (Presidio has no
# address recognizer; its NER tags addresses as places).
COMPATIBLE: dict[str, frozenset[str]] = {
    finding_type: frozenset({gold, "STREET_ADDRESS"} if finding_type == "LOCATION" else {gold})
    for finding_type, gold in PRIMARY.items()
}


def family(subtype: str) -> str:
    """The family a value's subtype names, without its country: ``phone:FR:MOBILE:NATIONAL`` -> ``phone:NATIONAL``,
    ``person:PL:first-last`` -> ``person:first-last``, ``card:amex:spaced`` -> ``card:amex``."""
    parts = subtype.split(":")
    keep = {"phone": [0, 3], "iban": [0, 2], "person": [0, 2]}.get(parts[0], [0, 1])
    name = ":".join(parts[i] for i in keep if i < len(parts))
    return name + (":lower" if parts[-1] == "lower" else "")


def _overlaps(finding: Finding, span: dict) -> bool:
    return finding[1] < span["end"] and span["start"] < finding[2]


def _covered(findings: Sequence[Finding], span: dict, text: str) -> bool:
    masked: set[int] = set()
    for _, start, end, _ in findings:
        masked.update(range(max(start, span["start"]), min(end, span["end"])))
    return all(i in masked for i in range(span["start"], span["end"]) if text[i].isalnum())


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def _type_row(kind: str, totals: Counter, found: Counter, covered: Counter, predicted: Counter,
              predicted_true: Counter) -> dict[str, object]:  # fmt: skip
    return {"entities": totals[kind], "recall": _ratio(found[kind], totals[kind]),
            "recall_covered": _ratio(covered[kind], totals[kind]),
            "precision": _ratio(predicted_true[kind], predicted[kind]), "findings": predicted[kind]}  # fmt: skip


def score(cases: Sequence[dict], findings: Sequence[Sequence[Finding]], threshold: float) -> dict[str, object]:
    """`findings[i]` are the detector's findings on `cases[i]["text"]`; those scoring below `threshold` are dropped."""
    totals: Counter[str] = Counter()
    found: Counter[str] = Counter()
    covered: Counter[str] = Counter()
    predicted: Counter[str] = Counter()
    predicted_true: Counter[str] = Counter()
    negatives: Counter[str] = Counter()
    negative_hits: Counter[str] = Counter()
    by_context: defaultdict[str, Counter[str]] = defaultdict(Counter)
    by_family: defaultdict[str, Counter[str]] = defaultdict(Counter)
    found_any = predicted_on_pii = 0
    for case, case_findings in zip(cases, findings, strict=True):
        scored = [f for f in case_findings if f[3] >= threshold and f[0] in COMPATIBLE]
        for entity in case["entities"]:
            kind = entity["type"]
            compatible = [f for f in scored if kind in COMPATIBLE[f[0]] and _overlaps(f, entity)]
            hit = bool(compatible)
            totals[kind] += 1
            found[kind] += hit
            covered[kind] += hit and _covered(compatible, entity, case["text"])
            found_any += any(_overlaps(f, entity) for f in scored)
            by_context[case["context"]].update({"entities": 1, "found": hit})
            by_family[family(entity["subtype"])].update({"entities": 1, "found": hit})
        for finding in scored:
            predicted[PRIMARY[finding[0]]] += 1
            hit = any(g["type"] in COMPATIBLE[finding[0]] and _overlaps(finding, g) for g in case["entities"])
            predicted_true[PRIMARY[finding[0]]] += hit
            predicted_on_pii += any(_overlaps(finding, g) for g in case["entities"])
        for negative in case["negatives"]:
            negatives[negative["kind"]] += 1
            negative_hits[negative["kind"]] += any(_overlaps(f, negative) for f in scored)
    entities = sum(totals.values())
    return {
        "threshold": threshold,
        "entities": entities,
        "recall": _ratio(sum(found.values()), entities),
        "recall_covered": _ratio(sum(covered.values()), entities),
        "recall_any_type": _ratio(found_any, entities),
        "precision": _ratio(sum(predicted_true.values()), sum(predicted.values())),
        "precision_any_type": _ratio(predicted_on_pii, sum(predicted.values())),
        "hard_negatives": sum(negatives.values()),
        "fp_rate_hard_negatives": _ratio(sum(negative_hits.values()), sum(negatives.values())),
        "by_type": {kind: _type_row(kind, totals, found, covered, predicted, predicted_true) for kind in ENTITY_TYPES},
        "fp_rate_by_negative_kind": {kind: _ratio(negative_hits[kind], n) for kind, n in sorted(negatives.items())},
        "recall_by_context": {name: _ratio(c["found"], c["entities"]) for name, c in sorted(by_context.items())},
        "recall_by_family": {name: _ratio(c["found"], c["entities"]) for name, c in sorted(by_family.items())},
    }


def misses(cases: Sequence[dict], findings: Sequence[Sequence[Finding]], threshold: float) -> list[dict]:
    """Each gold entity no compatible finding overlaps: the entity, its case's id, context and text."""
    missed = []
    for case, case_findings in zip(cases, findings, strict=True):
        scored = [f for f in case_findings if f[3] >= threshold and f[0] in COMPATIBLE]
        for entity in case["entities"]:
            if not any(entity["type"] in COMPATIBLE[f[0]] and _overlaps(f, entity) for f in scored):
                missed.append({"case": case["id"], "context": case["context"], "text": case["text"], **entity})
    return missed


def false_positives(cases: Sequence[dict], findings: Sequence[Sequence[Finding]], threshold: float) -> list[dict]:
    """Each hard negative a scored finding overlaps, with the finding."""
    flagged = []
    for case, case_findings in zip(cases, findings, strict=True):
        scored = [f for f in case_findings if f[3] >= threshold and f[0] in COMPATIBLE]
        for negative in case["negatives"]:
            hits = [f for f in scored if _overlaps(f, negative)]
            if hits:
                flagged.append({"case": case["id"], "context": case["context"], **negative, "finding": hits[0][0]})
    return flagged
