import socket

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.ner import NER_SCORE, candidate_windows, mask_spans


def spans(analyzer, text, ner=True, threshold=0.5):
    return {
        (f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text, ner_enabled=ner) if f.score >= threshold
    }


@pytest.mark.parametrize(
    ("text", "entity", "value"),
    [
        ("write to dana.k@example.org today", "EMAIL_ADDRESS", "dana.k@example.org"),
        ("my card is 4111 1111 1111 1111 thanks", "CREDIT_CARD", "4111 1111 1111 1111"),
        ("IBAN: DE89 3704 0044 0532 0130 00 please", "IBAN_CODE", "DE89 3704 0044 0532 0130 00"),
        ("my ssn is 536-22-1234", "US_SSN", "536-22-1234"),
        ("the host at 192.168.10.44 is down", "IP_ADDRESS", "192.168.10.44"),
        ("call me on (415) 555-0132 tonight", "PHONE_NUMBER", "(415) 555-0132"),
        ("ring +44 20 7946 0958", "PHONE_NUMBER", "+44 20 7946 0958"),
        ("ship it to 1600 Pennsylvania Avenue please", "STREET_ADDRESS", "1600 Pennsylvania Avenue"),
        ("she was born on March 3, 1985 in a storm", "DATE_OF_BIRTH", "March 3, 1985"),
        ("DOB: 07/14/1990", "DATE_OF_BIRTH", "07/14/1990"),
        ("Yesterday Maria Garcia flew to Berlin.", "PERSON", "Maria Garcia"),
        ("Yesterday Maria Garcia flew to Berlin.", "LOCATION", "Berlin"),
    ],
)
def test_detects_each_supported_entity(analyzer, text, entity, value):
    assert (entity, value) in spans(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "order 4111 1111 1111 1112 shipped",  # fails the Luhn check
        "the meeting is on March 3, 1985",  # a date without birth context is not a date of birth
        "GB00 0000 0000 0000 0000 00 is not a valid IBAN",
        "version 1.2.3 of the library",
        "def parse(path: str) -> dict:\n    return json.loads(open(path).read())",
    ],
)
def test_does_not_flag_lookalikes(analyzer, text):
    assert spans(analyzer, text) == set()


@pytest.mark.parametrize("number", ["912-78-1234", "900 70 4412", "999-88-1203"])
def test_an_itin_is_no_ssn(analyzer, number):
    """Area 900-999 is never issued as an SSN: the IRS writes ITINs (9xx-7x/8x-xxxx) and ATINs in it."""
    text = f"Taxpayer SSN/ITIN on file: {number}"
    assert "US_SSN" not in {entity for entity, _ in spans(analyzer, text)}
    assert ("US_SSN", "812-78-1234") in spans(analyzer, text.replace(number, "812-78-1234"))


def test_two_phone_numbers_run_together_are_split(analyzer):
    text = "call 415 555 0132 or 415 555 0199 ok"
    assert {v for e, v in spans(analyzer, text) if e == "PHONE_NUMBER"} == {"415 555 0132", "415 555 0199"}


def test_ner_can_be_switched_off(analyzer):
    text = "Maria Garcia wrote to dana.k@example.org"
    assert {e for e, _ in spans(analyzer, text, ner=False)} == {"EMAIL_ADDRESS"}


def test_ner_windows_skip_text_without_capitalised_candidates():
    assert candidate_windows('{"status": "ok", "items": [1, 2, 3]}\nfor x in range(3): print(x)', 10) == []
    text = "The report went out. Then Priya Raman replied."
    windows = candidate_windows(text, 5)
    assert len(windows) == 1 and "Priya Raman" in text[windows[0][0] : windows[0][1]]


def test_ner_runs_the_ner_component_alone(analyzer):
    """The small model's NER embeds its own tok2vec; the shared one only feeds the tagger and parser."""
    assert analyzer.ner.components == ["ner"]
    text = "Yesterday Maria Garcia flew from Berlin to Lisbon with Hiroshi Nguyen."
    assert {(f.entity_type, text[f.start : f.end]) for f in analyzer.ner.find(text)} == {
        ("PERSON", "Maria Garcia"), ("LOCATION", "Berlin"), ("LOCATION", "Lisbon"), ("PERSON", "Hiroshi Nguyen")
    }  # fmt: skip


def test_mask_spans_keeps_offsets():
    text = "Wire it to DE89 3704 0044 0532 0130 00 for Maria Garcia at 12 Elm Street."
    masked = mask_spans(text, [(59, 72), (11, 38), (20, 30)])  # overlapping and unsorted spans
    assert len(masked) == len(text)
    assert masked == "Wire it to " + "-" * 27 + " for Maria Garcia at " + "-" * 13 + "."
    assert mask_spans(text, []) == text


def test_ner_reads_pattern_spans_masked(analyzer):
    """Words inside spans the pattern detectors found are not NER candidates and never come back as findings."""
    text = "Ship the replacement to 1600 Pennsylvania Avenue, attention Mei Rossi."
    address = (text.index("1600"), text.index(", attention"))
    unmasked = {(f.entity_type, text[f.start : f.end]) for f in analyzer.ner.find(text)}
    assert ("LOCATION", "Pennsylvania Avenue") in unmasked  # what masking saves the model from reading
    masked_findings = analyzer.ner.find(text, [address])
    assert {(f.entity_type, text[f.start : f.end], f.score) for f in masked_findings} == {
        ("PERSON", "Mei Rossi", NER_SCORE)
    }
    assert not any(f.start < address[1] and address[0] < f.end for f in masked_findings)


def test_analysis_makes_no_network_connection(monkeypatch):
    """A fresh analyzer (recognizers, tldextract, spaCy model) works with every socket refused."""
    attempts = []

    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: refuse(None, a))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: refuse(None, a))
    fresh = PiiAnalyzer()
    text = "Maria Garcia (maria@sub.example.co.uk) called from 10.1.2.3 about card 4111111111111111."
    found = spans(fresh, text)
    assert ("EMAIL_ADDRESS", "maria@sub.example.co.uk") in found
    assert ("PERSON", "Maria Garcia") in found
    assert attempts == []


def test_tldextract_is_configured_offline(analyzer):
    import tldextract.tldextract as module

    assert module.TLD_EXTRACTOR.suffix_list_urls == ()
    assert module.TLD_EXTRACTOR.extract_str("mail.example.co.uk").suffix == "co.uk"


@pytest.mark.parametrize(
    "iban", ["DE89 3704 0044 0532 0130 00", "FR76 3000 6000 0112 3456 7890 189", "DE89370400440532013000"]
)
def test_iban_digit_runs_are_no_phone_numbers(analyzer, iban):
    """An IBAN's digits (after "DE89 ") are reported as the IBAN only; two phone numbers run together are two."""
    text = f"Wire the refund to IBAN {iban} today."
    assert spans(analyzer, text) == {("IBAN_CODE", iban)}
    text = "call 415 555 0132 415 555 0199 ok"
    assert spans(analyzer, text) == {("PHONE_NUMBER", "415 555 0132"), ("PHONE_NUMBER", "415 555 0199")}


def test_analyze_many_gives_each_text_what_analyze_gives_it(analyzer):
    """One NER call over many texts' windows (batched) finds exactly what one call per text finds."""
    from bench.guardrails import generate_agentic_corpus, generate_pii_testset

    texts = [str(row["text"]) for row in generate_pii_testset(60, seed=11)] + generate_agentic_corpus(6, seed=11)
    texts += ["", "no names here at all", texts[0]]
    batched = analyzer.analyze_many(texts)
    assert batched == [analyzer.analyze(text) for text in texts]
    assert sum(f.entity_type == "PERSON" for findings in batched for f in findings) >= 40
    without_ner = [analyzer.analyze(text, ner_enabled=False) for text in texts[:5]]
    assert analyzer.analyze_many(texts[:5], ner_enabled=False) == without_ner
