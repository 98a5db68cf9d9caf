"""DICOM header dumps (``gateway.guardrails.dicom_records``): people by their elements' VR (PN), birth dates, ids,
phones, addresses and places by their tags (PS3.6), the dump's tags, VRs and keywords never a value. The person names
are PS3.5 6.2.1's own examples; the lines follow dcmdump's and pydicom's printouts."""

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.dicom_records import dicom_elements, has_dicom, without_dicom_syntax
from gateway.guardrails.findings import Finding

DCMDUMP = """# Dicom-File-Format

# Dicom-Meta-Information-Header
(0002,0010) UI =LittleEndianExplicit                    #  20, 1 TransferSyntaxUID

# Dicom-Data-Set
(0008,0060) CS [MR]                                     #   2, 1 Modality
(0008,0090) PN [Adams^John Robert Quincy^^Rev.^B.A. M.Div.] #  44, 1 ReferringPhysicianName
(0008,1050) PN [Morrison-Jones^Susan^^^Ph.D., Chief Executive Officer] # 52, 1 PerformingPhysicianName
(0010,0010) PN [Wang^XiaoDong=王^小東=]                  #  26, 1 PatientName
(0010,0020) LO [PID0042]                                #   8, 1 PatientID
(0010,0030) DA [19621011]                               #   8, 1 PatientBirthDate
(0010,1000) LO [131052-308T]                            #  12, 1 OtherPatientIDs
(0010,1040) LO [1600 Amphitheatre Pkwy]                 #  22, 1 PatientAddress
(0010,2150) LO [Norway]                                 #   6, 1 CountryOfResidence
(0010,2154) SH [tel:+47-22-12-34-56\\+4722123457]        #  30, 2 PatientTelephoneNumbers
(0020,000d) UI [1.2.826.0.1.3680043.8.498.1]             #  28, 1 StudyInstanceUID
"""

PYDICOM = """Dataset.file_meta -------------------------------
(0002, 0010) Transfer Syntax UID                 UI: Explicit VR Little Endian
-------------------------------------------------
(0008, 0060) Modality                            CS: 'CT'
(0010, 0010) Patient's Name                      PN: 'Yamada^Tarou=山田^太郎=やまだ^たろう'
(0010, 0030) Patient's Birth Date                DA: '19620411'
(0010, 1000) Other Patient IDs                   LO: ['PID0042', '211062-5629']
"""


def _values(text: str) -> list[tuple[str, str]]:
    return [(entity, text[start:end]) for entity, start, end in dicom_elements(text)[1]]


def test_person_name_components_family_given_middle_not_prefix_nor_suffix() -> None:
    assert [value for entity, value in _values(DCMDUMP) if entity == "PERSON"] == [
        "Adams", "John Robert Quincy", "Morrison-Jones", "Susan", "Wang", "XiaoDong", "王", "小東",
    ]  # fmt: skip


def test_other_elements_by_their_tags() -> None:
    values = [pair for pair in _values(DCMDUMP) if pair[0] != "PERSON"]
    assert values == [
        ("DATE_OF_BIRTH", "19621011"),
        ("NATIONAL_ID", "131052-308T"),  # a Finnish HETU; the hospital's "PID0042" is no national id
        ("STREET_ADDRESS", "1600 Amphitheatre Pkwy"),
        ("LOCATION", "Norway"),
        ("PHONE_NUMBER", "+47-22-12-34-56"),  # a multi-valued element's values, the URI scheme left out
        ("PHONE_NUMBER", "+4722123457"),
    ]


def test_pydicom_printout_ideographic_and_phonetic_forms_and_lists() -> None:
    assert _values(PYDICOM) == [
        ("PERSON", "Yamada"), ("PERSON", "Tarou"), ("PERSON", "山田"), ("PERSON", "太郎"),
        ("PERSON", "やまだ"), ("PERSON", "たろう"), ("DATE_OF_BIRTH", "19620411"), ("NATIONAL_ID", "211062-5629"),
    ]  # fmt: skip


def test_pre_filter_and_text_without_elements() -> None:
    assert not has_dicom("Patient Jane Doe, born 1962-10-11")
    assert dicom_elements("see (0010) and (0010,0010) without a VR") == ((), ())


def test_syntax_and_places_inside_a_name_are_dropped() -> None:
    text = "(0010,0010) PN [da Rocha^Larissa]   #  16, 1 PatientName\n"
    keyword = text.index("PatientName")
    rocha = text.index("Rocha")
    findings = [
        Finding("LOCATION", 12, 14, 0.6, "PlaceRecognizer"),  # the VR "PN"
        Finding("PERSON", keyword, keyword + 11, 0.6, "NER"),
        Finding("LOCATION", rocha, rocha + 5, 0.6, "PlaceRecognizer"),
        Finding("PERSON", rocha - 3, rocha + 5, 0.85, "DicomRecognizer"),
    ]
    assert without_dicom_syntax(text, findings) == findings[3:]


def test_through_the_analyzer(analyzer: PiiAnalyzer) -> None:
    findings = [f for f in analyzer.analyze(DCMDUMP) if f.score >= 0.5]
    found = {(f.entity_type, DCMDUMP[f.start : f.end]) for f in findings}
    assert {("PERSON", "Morrison-Jones"), ("PERSON", "Susan"), ("DATE_OF_BIRTH", "19621011"),
            ("NATIONAL_ID", "131052-308T")} <= found  # fmt: skip
    for word in ("PatientName", "ReferringPhysicianName", "Modality", "LO", "PN"):
        assert not any(DCMDUMP[f.start : f.end] == word for f in findings), word
