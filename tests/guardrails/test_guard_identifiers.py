"""IBANs of every country and national identifiers, validated by python-stdnum."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban as stdnum_iban

from gateway.guardrails import PiiAnalyzer, identifiers
from gateway.guardrails.identifiers import IbanCodeRecognizer, NationalIdRecognizer
from gateway.guardrails.windows import add_window


def with_iban_check(country: str, bban: str) -> str:
    """An IBAN for ``bban``: the mod-97 check digits computed here (ISO 13616), independent of the recognizer."""
    digits = "".join(str(int(char, 36)) for char in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def spaced(value: str) -> str:
    return " ".join(value[i : i + 4] for i in range(0, len(value), 4))


IBANS = [with_iban_check(country, bban) for country, bban in [
    ("DE", "500105175407324931"), ("FR", "20041010050500013M02606"), ("GB", "NWBK60161331926819"),
    ("ES", "21000418450200051332"), ("IT", "X0542811101000000123456"), ("NL", "ABNA0417164300"),
    ("NO", "86011117947"), ("PL", "109010140000071219812874"), ("BR", "00360305000010009795493P1"),
    ("SA", "80000000608010167519"), ("MT", "MALT011000012345MTLCAST001S"), ("CH", "04835012345678009"),
]]  # fmt: skip


@pytest.mark.parametrize("value", IBANS)
def test_ibans_of_many_countries_compact_spaced_and_lower_case(value: str) -> None:
    assert stdnum_iban.is_valid(value)
    recognizer = IbanCodeRecognizer()
    for form in (value, spaced(value), spaced(value).lower()):
        text = f"wire it to {form} for the deposit"
        assert [text[r.start : r.end] for r in recognizer.analyze(text, [])] == [form]


def test_an_iban_at_the_end_of_a_sentence_and_before_a_word() -> None:
    value = spaced(IBANS[0])
    for text in (f"IBAN: {value}.", f"IBAN {value} BIC MARKDEF1100", f"({value})"):
        assert [text[r.start : r.end] for r in IbanCodeRecognizer().analyze(text, [])] == [value]


@pytest.mark.parametrize(
    "text",
    [
        "DE00 5001 0517 5407 3249 31",  # wrong check digits
        "QQ12 3456 7890 1234 5678 90",  # no such country
        "ab12cd34ef56gh78ij90kl12",  # a hash-like token
        "GB29 NWBK 6016 1331 9268",  # cut short: the UK's IBAN is 22 characters
    ],
)
def test_iban_look_alikes(text: str) -> None:
    assert IbanCodeRecognizer().analyze(text, []) == []


NATIONAL_IDS = [
    ("uk_nino", "HJ 12 34 56 C"), ("uk_nino", "JG103759A"),
    ("de_idnr", "36 574 261 809"),
    ("fr_nir", "2 84 09 75 112 317 23"), ("fr_nir", "184127645108946"),
    ("es_dni", "12345678Z"), ("es_dni", "00000023-T"), ("es_nie", "X-2482300-W"), ("es_nie", "Y1234567X"),
    ("it_codice_fiscale", "RSSMRA85T10A562S"),
    ("br_cpf", "390.533.447-05"), ("br_cpf", "111.444.777-35"),
    ("in_pan", "BNZPM2501F"),
    ("in_aadhaar", "2341 2341 2346"),
    ("us_itin", "912-78-3456"), ("us_itin", "900 94 1234"),
    # as people write them besides
    ("uk_nino", "HJ-12-34-56-C"), ("fr_nir", "2.84.09.75.112.317.23"), ("fr_nir", "2-84-09-75-112-317-23"),
    ("es_dni", "12.345.678-Z"), ("es_dni", "12.345.678 Z"), ("it_codice_fiscale", "RSS MRA 85T10 A562S"),
    ("br_cpf", "390.533.447.05"),
]  # fmt: skip


@pytest.mark.parametrize(("scheme", "value"), NATIONAL_IDS)
def test_national_ids_as_their_issuers_print_them(scheme: str, value: str) -> None:
    text = f"my id is {value}, thanks"
    results = [r for r in NationalIdRecognizer().analyze(text, []) if r.score >= 0.5]
    assert [(text[r.start : r.end], r.analysis_explanation.pattern_name) for r in results] == [(value, scheme)]


@pytest.mark.parametrize(
    "value",
    [
        "DQ 12 34 56 A",  # D is never a NINO's first letter
        "GB 12 34 56 A",  # a prefix HMRC never issues
        "12345678A",  # DNI with the wrong letter
        "390.533.447-06",  # CPF with a wrong check digit
        "2 84 09 75 112 317 24",  # NIR with a wrong key
        "RSSMRA85T10A562T",  # codice fiscale with a wrong check letter
        "2341 2341 2347",  # Aadhaar failing Verhoeff
        "36 574 261 808",  # IdNr failing its check digit
        "912-67-3456",  # 67: no ITIN group
        "12.345.678-A",  # dotted DNI with the wrong letter
        "2.84.09.75.112.317.24",  # dotted NIR with a wrong key
        "RSS MRA 85T10 A562T",  # codice fiscale in groups with a wrong check letter
        "150.239.176.73",  # an IPv4 address, though its digits pass a CPF's check (a CPF ends in ".NN" too)
        "12.345.678 z",  # a number in thousands and a one-letter word: a DNI's letter only in capitals after a space
    ],
)
def test_national_id_look_alikes_fail_their_validators(value: str) -> None:
    assert NationalIdRecognizer().analyze(f"ref {value} ok", []) == []


def test_bare_digit_runs_score_below_the_threshold_without_context() -> None:
    """An IdNr, CPF or Aadhaar as a bare run of digits is also the shape of an order id or a phone number."""
    for value in ("36574261809", "39053344705", "234123412346"):
        results = NationalIdRecognizer().analyze(f"order {value} shipped", [])
        assert results and all(r.score < 0.5 for r in results), value


@pytest.mark.parametrize(
    ("label", "value"),
    [("nomor identitas", "39053344705"), ("no. KTP", "234123412346"), ("Személyi azonosító:", "36574261809"),
     ("ID-nr.", "39053344705"), ("henkilötunnus", "36574261809"), ("fødselsnummer", "234123412346"),
     ("utenlandsk ID-nummer", "36574261809"), ("buitenlands ID-nummer", "234123412346"),
     ("informe o número do seu cadastro de pessoa física:", "39053344705")],
)
def test_a_bare_digit_run_after_a_national_numbers_name_is_one(analyzer: PiiAnalyzer, label: str, value: str) -> None:
    """The names the numbers go by in Indonesian, Hungarian, Danish, Finnish and Norwegian are context words."""
    text = f"{label} {value}"
    found = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
             if f.entity_type == "NATIONAL_ID" and f.score >= 0.5]
    assert found == [value], label


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="0123456789 a-\n", max_size=120))
def test_windows_of_digit_pair_stretches_are_those_of_the_pairs_one_by_one(text: str) -> None:
    """The national id schemes run on windows around digit pairs; opening one window per stretch of pairs back to
    back must give the windows that one per pair gives."""
    per_pair: list[tuple[int, int]] = []
    for pair in re.finditer(r"[0-9]{2}", text):
        add_window(per_pair, text, pair.start(), pair.end(), identifiers._WINDOW_MARGIN)
    per_stretch: list[tuple[int, int]] = []
    for pairs in identifiers._DIGIT_PAIRS.finditer(text):
        add_window(per_stretch, text, pairs.start(), pairs.end(), identifiers._WINDOW_MARGIN)
    assert per_stretch == per_pair


def _shape_without_boundaries(scheme: identifiers.IdScheme) -> str:
    """A scheme's regex without its look-arounds (what stands before and after it): a regex Hypothesis can draw
    matches of."""
    pattern = scheme.pattern.pattern.replace(r"(?<![\w.-][\s\S])", "").replace(r"(?![\w]|[.-]\w)", "")
    assert "(?<" not in pattern and "(?!" not in pattern, scheme.name
    return pattern


# Characters an identifier may stand beside or be cut short by: separators, letters, digits, an e-mail's '@'.
_SURROUNDINGS = st.text(alphabet=" .-,:;()\n\t@_aZ19é", max_size=4)


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_the_shape_prefilter_passes_every_text_a_scheme_matches(data: st.DataObject) -> None:
    """The recognizer returns nothing at once for a text ``may_hold_national_id`` rejects: every text where any
    scheme's regex matches must pass it, whatever stands around the value."""
    scheme = data.draw(st.sampled_from(identifiers.SCHEMES))
    value = data.draw(st.from_regex(_shape_without_boundaries(scheme), fullmatch=True))
    text = data.draw(_SURROUNDINGS) + value + data.draw(_SURROUNDINGS)
    if any(each.pattern.search(text) for each in identifiers.SCHEMES):
        assert identifiers.may_hold_national_id(text), (scheme.name, text)


@pytest.mark.parametrize(("scheme", "value"), NATIONAL_IDS)
def test_the_shape_prefilter_passes_every_printed_id(scheme: str, value: str) -> None:
    for text in (value, f"my id is {value}, thanks", f"id:{value}", f"({value})"):
        assert identifiers.may_hold_national_id(text), text


def test_the_shape_prefilter_rejects_support_tickets_with_phone_numbers_and_ids() -> None:
    """Phone numbers, ticket numbers, prices and e-mail addresses hold no identifier's shape: the ten schemes are
    not scanned for over such a text."""
    text = (
        "Ticket 1016: Luis Ortega (luis.ortega@example.org, +1 415 555 7101) asks why the API returns 429 at low "
        "volume. Order 2024-0031 of 19.99 EUR, call +44 20 7946 0958 or 030 1234 5678. Priority high."
    )
    assert not identifiers.may_hold_national_id(text)
    assert NationalIdRecognizer().analyze(text, []) == []


@pytest.mark.parametrize(
    "text",
    [
        "card 2341 2341 2346 5507 declined",  # an Aadhaar's shape leading a card's groups
        "account XK05 1000 2341 2341 2346",  # an IBAN's last groups
        "sku 2341 2341 2346 0042",  # a SKU's four groups
    ],
)
def test_an_identifiers_groups_inside_a_longer_number_are_none(text: str) -> None:
    assert NationalIdRecognizer().analyze(text, []) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("\\textbf{National No} & 70134649257 \\\\", "70134649257"),  # a LaTeX table's row
        ('{"national_no": "23640918589"}', "23640918589"),
        ("<p>national number 337752794789 on file</p>", "337752794789"),
        ("Personal No.:  23249785623", "23249785623"),  # an ICAO page's optional personal number
        ("GET /kyc?id_doc=717036329528&lang=en", "717036329528"),
        ("DETAIL:  Key (id_doc)=(73809427357) already exists.", "73809427357"),
        ("|TIN|947839988|", "947839988"),  # an ITIN under the taxpayer number's abbreviation
        ("export TIN='947839988'", "947839988"),
    ],
)
def test_a_bare_digit_run_under_a_records_national_number_key(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    """Records key the number by what it is to its holder: the national number, the personal number, the identity
    document, a taxpayer identification number."""
    found = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
             if f.entity_type == "NATIONAL_ID" and f.score >= 0.5]
    assert found == [value], text


@pytest.mark.parametrize("text", ["a tiny 947839988 part", "tinted glass 947839988", "national park 337752794789"])
def test_tin_and_national_open_no_other_word(analyzer: PiiAnalyzer, text: str) -> None:
    """The abbreviation TIN counts only as a whole word, and "national" only before a number's or a document's word."""
    found = analyzer.analyze(text, ner_enabled=False)
    assert not [f for f in found if f.entity_type == "NATIONAL_ID" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("label", "value"),
    [("IdNumber = ", "36574261809"), ('personal_code = "', "234123412346"), ('personalCode: "', "39053344705"),
     ('document_no: "', "234123412346"), ("ת.ז. ", "36574261809"), ("số căn cước ", "39053344705")],
)
def test_a_bare_digit_run_under_a_key_or_a_words_that_name_an_identity_number(
    analyzer: PiiAnalyzer, label: str, value: str
) -> None:
    """A key written as code joins its words ("IdNumber", "personal_code"); Hebrew and Vietnamese name the card."""
    text = f"{label}{value}"
    found = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
             if f.entity_type == "NATIONAL_ID" and f.score >= 0.5]
    assert found == [value], label


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("INS*Y*18*021~\nREF*23*36574261809~\nNM1*IL*1~", "36574261809", "NATIONAL_ID"),  # X12 client number
        ("INS*Y*18*021~\nREF*0F*078051121~\nNM1*IL*1~", "078051121", "US_SSN"),  # X12 subscriber number
        ("REF|SY|078051121~", "078051121", "US_SSN"),  # another element separator
        (":50F:/12345678\n1/ACME LTDA\n7/BR/234123412346\n:57A:BANKMXMM", "234123412346", "NATIONAL_ID"),
        (":50F:NIDN/DE/36574261809\n1/ACME LTDA", "36574261809", "NATIONAL_ID"),  # SWIFT party identifier
        ("<Othr><Id>39053344705</Id><SchmeNm><Cd>NIDN</Cd></SchmeNm></Othr>", "39053344705", "NATIONAL_ID"),
        ("<Othr><Id>078051121</Id><SchmeNm><Cd>SOSE</Cd></SchmeNm></Othr>", "078051121", "US_SSN"),
    ],
)
def test_a_bare_value_in_a_record_slot_for_an_identity_number(text: str, value: str, entity: str) -> None:
    """SWIFT 50F's line 7 and party codes, ISO 20022's person identification codes and X12's REF qualifiers name
    what the value is: a valid id there counts with no context word."""
    found = [(text[r.start : r.end], r.entity_type) for r in NationalIdRecognizer().analyze(text, []) if r.score >= 0.5]
    assert found == [(value, entity)]


@pytest.mark.parametrize(
    "text",
    [
        "INS*Y*18*021~\nREF*1L*36574261809~",  # a group or policy number: no person's id
        "INS*Y*18*021~\nREF*23*36574261808~",  # an IdNr failing its check digit
        "<Othr><Id>39053344705</Id><SchmeNm><Cd>CUST</Cd></SchmeNm></Othr>",  # a customer number
        "<Othr><Id>900001234</Id><SchmeNm><Cd>SOSE</Cd></SchmeNm></Othr>",  # area 9xx: no SSN, group 00: no ITIN
        ":50F:/12345678\n1/ACME LTDA\n3/BR/234123412346",  # line 3 is a country and town
    ],
)
def test_slots_that_name_no_identity_number_or_hold_an_invalid_one(text: str) -> None:
    assert [r for r in NationalIdRecognizer().analyze(text, []) if r.score >= 0.5] == []


def test_a_pan_in_lower_case_needs_a_context_word(analyzer: PiiAnalyzer) -> None:
    """Chat writes a PAN in lower case: the shape of many a lower-case token, so only a context word makes it one."""

    def found(text: str) -> list[str]:
        return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
                if f.entity_type == "NATIONAL_ID" and f.score >= 0.5]  # fmt: skip

    assert found("pan is bnzpm2501f pls update kyc") == ["bnzpm2501f"]
    assert found("token bnzpm2501f expired") == []
