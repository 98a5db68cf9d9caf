"""PERSON in the name slots of X12 (NM1), SWIFT MT party fields (50F/59F line 1/, 50K/59's first line) and ISO
20022 parties (Nm), with organisations' names (a legal form at the end) left out."""

import pytest

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.legal_forms import ends_in_legal_form
from gateway.guardrails.record_names import RecordNameRecognizer, has_record_name_anchor
from gateway.guardrails.standard_names import standard_names


def names(text: str) -> list[str]:
    return [text[start:end] for start, end in standard_names(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the subscriber (IL), a person (1): last, first, middle
        ("INS*Y*18*021*28*A***FT~\nNM1*IL*1*KOWALCZYK*HALINA*M~\nN3*UL DLUGA 4~", ["KOWALCZYK*HALINA*M"]),
        ("NM1*IL*1*DE LA CRUZ PEREZ*JOSÉ~DMG*D8*19700101*M~", ["DE LA CRUZ PEREZ*JOSÉ"]),
        ("NM1|QC|1|OYELARAN|TUNDE||||34|123456789\n", ["OYELARAN|TUNDE"]),  # another element separator
        ("NM1*PR*2*BLUE SHIELD OF NORTHLAND*****PI*842610001~", []),  # an organisation (2), the payer
        ("NM1*IL*1~\nN3*Main St 4~", []),  # a name-less segment
        ("NM1*85*1*NORTHSIDE CLINIC LLC*****XX*1234567893~", []),  # a legal form in a person's slot
        ("ANM1*IL*1*SMITH*JOHN~", []),  # no segment: letters glued before it
    ],
)
def test_x12_nm1_person_names(text: str, expected: list[str]) -> None:
    assert names(text) == expected


def test_swift_party_fields() -> None:
    text = (
        "{4:\n:20:REF1\n:32A:260101EUR100,00\n"
        ":50F:/DE44500105175407324931\n1/BJÖRK GUÐMUNDSDÓTTIR\n2/LAUGAVEGUR 12\n3/IS/REYKJAVIK\n4/19800101\n"
        ":59:/GB29NWBK60161331926819\nTEODORO FALCÃO\n12 RUA DAS FLORES\n"
        ":70:INVOICE 4411\n-}"
    )
    assert names(text) == ["BJÖRK GUÐMUNDSDÓTTIR", "TEODORO FALCÃO"]


def test_swift_organisations_and_option_k_without_account() -> None:
    text = ":50K:HARUTO WATANABE\n1-2-3 SHIBUYA\n:59F:/12345\n1/NORDSTRAND HANDEL GMBH\n2/HAFENSTR 4\n:71A:SHA\n"
    assert names(text) == ["HARUTO WATANABE"]


def test_iso20022_party_names_and_not_banks() -> None:
    text = (
        "<CdtTrfTxInf><Dbtr>\n  <Nm>Ingrid Halvorsen</Nm>\n  <PstlAdr><TwnNm>Oslo</TwnNm></PstlAdr>\n</Dbtr>"
        "<DbtrAgt><FinInstnId><BICFI>DNBANOKK</BICFI><Nm>DNB Bank ASA</Nm></FinInstnId></DbtrAgt>"
        "<CdtrAgt><FinInstnId><Nm>Sparebank Vest</Nm></FinInstnId></CdtrAgt>"
        '<Cdtr id="x"><Nm>Wanjiru Kamau</Nm></Cdtr><UltmtCdtr><Nm>Fjordline Logistics AS</Nm></UltmtCdtr>'
        "<InitgPty><Nm>Mkubwa Traders Ltd.</Nm></InitgPty>"
    )
    assert names(text) == ["Ingrid Halvorsen", "Wanjiru Kamau"]


@pytest.mark.parametrize(
    ("name", "company"),
    [
        ("ACME COMERCIO LTDA", True),
        ("Comercializadora del Norte, S.A. de C.V.", True),
        ("Nowak Sp. z o.o.", True),
        ("Maju Jaya Sdn. Bhd.", True),
        ("Brandt GmbH & Co. KG", True),
        ("Ingrid Halvorsen", False),
        ("SA", False),  # a legal form alone is no company name
        ("ANA SAAVEDRA", False),
    ],
)
def test_legal_forms_end_company_names(name: str, company: bool) -> None:
    assert ends_in_legal_form(name) is company


def test_the_recognizer_reads_standard_slots() -> None:
    text = "NM1*IL*1*KOWALCZYK*HALINA~"
    assert has_record_name_anchor(text)
    found = RecordNameRecognizer().analyze(text, ["PERSON"])
    assert [(text[r.start : r.end], r.score >= 0.5) for r in found] == [("KOWALCZYK*HALINA", True)]


def test_standard_names_are_findings_of_the_analyzer(analyzer: PiiAnalyzer) -> None:
    text = "ST*834*0001~\nINS*Y*18*021*28*A***FT~\nNM1*IL*1*KOWALCZYK*HALINA~\nN3*UL DLUGA 4~\nSE*5*0001~"
    people = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False) if f.entity_type == "PERSON"]
    assert people == ["KOWALCZYK*HALINA"]


def test_a_swift_tag_inside_a_line_is_no_party_field() -> None:
    # a log's clock holds ":59:" ("12:59:03"): no SWIFT field opens there, so no reader runs over the log
    log = "2026-03-02 12:59:03 INFO sync done\n2026-03-02 12:50:11 INFO user Maria Lopez"
    assert not has_record_name_anchor(log)
    assert standard_names(log) == []
    assert standard_names(":59:/123456\nMARIA LOPEZ\n:71A:OUR") != []
