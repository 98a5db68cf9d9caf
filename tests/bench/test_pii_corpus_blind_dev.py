"""The blind dev corpora's shared helpers (bench.pii_corpus.blind_dev): a language by weight, a template filled in;
and no phrase bank reached through them or the corpora that use them."""

import ast
import random
import re
from pathlib import Path

import pytest

from bench.pii_corpus.blind_dev import ascii_lower, dev_name_part, fill, latin_capitalised, weighted_language
from bench.pii_corpus.model import Decoy, Pii, TextBuilder
from bench.pii_corpus.person_names import in_split

PACKAGE = Path(__file__).resolve().parents[2] / "bench" / "pii_corpus"


def test_a_language_by_its_share_and_the_rest() -> None:
    shares = {"fr": 0.5, "de": 0.25}
    drawn = [weighted_language(random.Random(seed), shares, "en") for seed in range(2_000)]
    assert set(drawn) == {"fr", "de", "en"}
    # The roll is the generator's first draw, compared with the running sum of the shares in the mapping's order.
    for seed, lang in enumerate(drawn[:50]):
        roll = random.Random(seed).random()
        assert lang == ("fr" if roll < 0.5 else "de" if roll < 0.75 else "en")


def test_a_template_with_escaped_braces_values_decoys_and_text() -> None:
    out = TextBuilder()
    items: dict[str, Pii | Decoy | str] = {"N": Pii("PERSON", "Ana Lima", "person"), "A": "42",
                                           "X": Decoy("other_date", "2020-01-02")}  # fmt: skip
    fill(out, "{{id}} {N} ({A}) on {X}.", re.compile(r"\{\{|\}\}|\{(\w)\}"), lambda match: items[match.group(1)])
    text = out.finish()
    assert text == "{id} Ana Lima (42) on 2020-01-02."
    assert [(e["type"], text[e["start"] : e["end"]]) for e in out.entities] == [("PERSON", "Ana Lima")]
    assert [text[n["start"] : n["end"]] for n in out.negatives] == ["2020-01-02"]


def _corpus_imports(module: str) -> set[str]:
    """The bench.pii_corpus modules `module` imports, and theirs, read from the sources (importing the package
    itself loads its generator's phrase banks, whatever a blind corpus reads)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bench.pii_corpus."):
                found = node.module.rsplit(".", 1)[1]  # type: ignore[union-attr]
                if found not in seen:
                    seen.add(found)
                    todo.append(found)
    return seen


def test_the_blind_corpora_reach_no_phrase_bank() -> None:
    # The helpers read the values' model and the split of a name (person_names, partition), never a bank's wording.
    assert _corpus_imports("blind_dev") == {"model", "person_names", "partition"}
    for corpus in ("dev_fifteenth", "dev_sixteenth", "dev_seventeenth", "dev_eighteenth", "dev_nineteenth",
                   "dev_twentieth", "dev_twentyfirst", "dev_twentysecond", "dev_twentythird"):  # fmt: skip
        reached = _corpus_imports(corpus)
        assert "blind_dev" in reached, corpus
        assert not [m for m in reached if m.startswith(("phrases", "dev_scaffold"))], corpus


def test_a_name_part_of_the_dev_half_spaces_collapsed() -> None:
    names = iter(["Anna  Maria", "x", "Ola", "Kowalski", "Nowak", "Ines"])
    drawn = dev_name_part(lambda: next(names))
    assert "  " not in drawn
    assert in_split(drawn, "dev")
    with pytest.raises(RuntimeError):
        dev_name_part(lambda: "x1")  # never written as a name


def test_a_place_name_of_latin_letters_and_its_ascii_form() -> None:
    assert latin_capitalised("Łódź") and latin_capitalised("São Paulo")
    assert not latin_capitalised("Αθήνα") and not latin_capitalised("łódź")
    assert ascii_lower("Müller-Lüdenscheidt") == "muller-ludenscheidt"
