"""Legal forms in running text (``legal_forms``): a form of ISO 20275's list written as registries write it, after a
company's name, at a name's end or as the whole span; words and surnames that spell a form are no form."""

import pytest

from gateway.guardrails.legal_forms import (
    ends_in_legal_form,
    ends_in_written_form,
    form_after,
    form_before,
    is_written_form,
)


@pytest.mark.parametrize(
    "form", ["SAS", "SARL", "BV", "N.V.", "Ltda", "Ltda.", "Lda.", "Oy", "Oyj", "ApS", "SE", "GmbH", "KG", "e.K.",
             "sp. z o.o.", "sp.k.", "s.r.o.", "S.A. de C.V.", "S.r.l.s.", "Co."],
)  # fmt: skip
def test_a_form_as_registries_write_it(form: str) -> None:
    assert is_written_form(form)


@pytest.mark.parametrize(
    "form", ["as", "As", "me", "et", "Se", "Ee", "Ou", "Sa", "as.", "PT", "Ltdx", "Maria", "&"],
)  # fmt: skip
def test_words_and_surnames_that_spell_a_form_are_none(form: str) -> None:
    assert not is_written_form(form)


@pytest.mark.parametrize(
    ("text", "after"),
    [("Annick Jacques\nBrightmoor SAS\nFixe", "Brightmoor"), ("ORG:Nexora Consultoria Lda.\nTITLE", "Consultoria"),
     ("Polaris Budownictwo sp. z o.o.\nTel.", "Budownictwo"), ("Marc | Corvexa Techniek BV | M: 012", "Techniek"),
     ("Orbis Konsultointi Oy · p. +358", "Konsultointi"), ("Acme, Inc. signed", "Acme")],
)  # fmt: skip
def test_a_form_after_a_name(text: str, after: str) -> None:
    assert form_after(text, text.index(after) + len(after))


@pytest.mark.parametrize(
    ("text", "after"),
    [("Thanks, Maria as promised", "Maria"), ("Anna Berg\nSAS team", "Berg"), ("Tan Ee Lin", "Tan"),
     ("Ask Paul Sage about it", "Paul"), ("Corvexa BVX", "Corvexa"), ("PT Maju Jaya", "PT")],
)  # fmt: skip
def test_no_form_after_a_name(text: str, after: str) -> None:
    assert not form_after(text, text.index(after) + len(after))


def test_a_form_before_another() -> None:
    text = "Bluepeak Medizintechnik GmbH & Co. KG · Sitz"
    assert form_before(text, text.index("KG"))
    assert not form_before("Dear Anna KG", len("Dear Anna "))


@pytest.mark.parametrize(
    ("span", "company"),
    [("Trivium Ltda", True), ("Corvexa Techniek BV", True), ("Ltda", True), ("KG", False), ("Tan Ee", False),
     ("Maria Garcia", False), ("Anna Sa", False)],
)  # fmt: skip
def test_a_span_ending_in_a_form(span: str, company: bool) -> None:
    assert ends_in_written_form(span) is company


def test_the_record_rule_still_reads_forms_in_any_case() -> None:
    assert ends_in_legal_form("ACME COMERCIO LTDA")
    assert ends_in_legal_form("Nordlys as")
