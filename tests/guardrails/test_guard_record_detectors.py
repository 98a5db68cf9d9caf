"""A record format's detector of several entity types: the same findings, in the same order, as one detector per
type run in turn."""

from __future__ import annotations

import dataclasses

import pytest

from gateway.guardrails import recognizers
from gateway.guardrails.unspaced_scripts import glued_findings

# One record of each format, with values of several types (from the formats' own tests' shapes).
RECORDS = {
    "GedcomRecognizer": "0 @I1@ INDI\n1 NAME Ann /Pryce/\n1 BIRT\n2 DATE 3 MAR 1961\n2 PLAC Cardiff, Wales\n"
    "1 RESI\n2 ADDR 12 High Street\n",
    "EdifactRecognizer": "UNA:+.? 'UNB+UNOA:2+SENDER+RECEIVER+200101:1200+1'NAD+BY+++Pryce:Ann+12 High Street+"
    "Cardiff++CF10 1AA+GB'COM+ann.pryce@example.org:EM'COM+442920123456:TE'DTM+329:19610303:102'",
    "DicomRecognizer": "(0010,0010) PN [Pryce^Ann]\n(0010,0030) DA [19610303]\n(0010,0020) LO [PID-448812]\n"
    "(0010,2154) SH [029 2012 3456]\n(0010,1040) LO [12 High Street, Cardiff]\n",
    "MachineReadableZoneRecognizer": "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\n"
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10\n",
}


def _per_type(detector: recognizers.Detector, text: str) -> list[recognizers.Finding]:
    found = []
    for entity in detector.entity_types:
        found += recognizers.run_detector(dataclasses.replace(detector, entity_type=entity, more_entities=()), text)
    return found


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_record_format_reads_every_type_in_one_call_as_per_type_detectors_would(name: str) -> None:
    detector = next(d for d in recognizers.build_detectors() if d.recognizer.name == name)
    assert len(detector.entity_types) > 1
    text = RECORDS[name]
    found = recognizers.run_detector(detector, text)
    assert len({f.entity_type for f in found}) > 1  # the record holds several types: the order is tested
    assert found == _per_type(detector, text)
    assert recognizers.run_detector(detector, "no record here, Ann Pryce, 3 March 1961") == []


def test_the_glued_view_asks_a_record_format_for_its_structured_types_only() -> None:
    """Beside letters of an unspaced script, a DICOM dump's phone is found in the spaced view; its person, birth date
    and address (no structured types) are not looked for there."""
    text = "電話" + RECORDS["DicomRecognizer"].replace("[029 2012 3456]", "[电话02920123456]")
    found = glued_findings(text, [], recognizers.build_detectors())
    assert [(f.entity_type, text[f.start : f.end]) for f in found if f.source == "DicomRecognizer"] == [
        ("PHONE_NUMBER", "02920123456")
    ]
