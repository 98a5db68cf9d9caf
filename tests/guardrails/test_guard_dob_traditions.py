"""Dates of birth in the traditions ``date_traditions`` reads (Korean, Thai Buddhist era, Persian Solar Hijri,
Lithuanian, Latvian, the telex passport element), months written in another grammatical case, birth words of more
languages, and the keys that name a birth date in machine formats (a YAML name above its value, a CEF field's label);
with the dates beside them that are no birth date."""

import pytest

from gateway.guardrails import PiiAnalyzer


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("생년월일: 1979년 11월 23일", "1979년 11월 23일"),
        ("DOB 1990년3월9일 (verified)", "1990년3월9일"),
        ("date of birth: 1968. 12. 1.", "1968. 12. 1."),
        ("Patient DOB: 14/08/2519", "14/08/2519"),  # Buddhist era: 1976
        ("born 2.11.2497 in Chiang Mai", "2.11.2497"),
        ("تاریخ تولد: 1359/07/21", "1359/07/21"),  # Solar Hijri: 1980
        ("birth date 1342-01-30", "1342-01-30"),
        ("gimimo data 1965 m. sausio 17 d.", "1965 m. sausio 17 d."),
        ("MEMBER DOB: 2001 M. LAPKRIČIO 2 D.", "2001 M. LAPKRIČIO 2 D."),
        ("dzimšanas datums: 1983. gada 9. septembris", "1983. gada 9. septembris"),
        ("rojen 21. novembra 1958", "21. novembra 1958"),  # Slovenian genitive
        ("data urodzenia: 12 października 1977", "12 października 1977"),  # Polish genitive
        ("născut pe 4 octombrie 1962", "4 octombrie 1962"),  # Romanian, from Faker's ro_RO
        ("sündinud 8. märts 1971", "8. märts 1971"),
        ("ipinanganak siya 10/03/1988", "10/03/1988"),
        ("alizaliwa 02.06.1979", "02.06.1979"),
        ('"date_born": "ika-14 ng Oktubre 1944"', "ika-14 ng Oktubre 1944"),  # Filipino ordinal day
        ("DOB confirmed as Ika-5 ng Disyembre, 2000", "Ika-5 ng Disyembre, 2000"),
    ],
)
def test_dates_of_other_traditions_next_to_birth_words(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    assert dates_of_birth(analyzer, text) == [date]


@pytest.mark.parametrize(
    "text",
    [
        "회의 2024년 3월 9일 오후 2시",  # a meeting's date, no birth word
        "released 2019. 4. 2. to production",
        "receipt 14/08/2567 total 120 THB",  # Buddhist era today: no birth word
        "invoice 1403/05/11 paid",  # Solar Hijri today
        "sąskaita 2023 m. kovo 3 d.",
        "Reset on 2024. gada 1. marts",
        "pulong sa ika-5 ng Disyembre 2024",
    ],
)
def test_those_dates_without_birth_words_stay_below_the_threshold(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


def test_a_solar_hijri_year_of_today_is_no_birth_year(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, "DOB 1359/07/21, registered 1402/03/01") == ["1359/07/21"]


def test_the_telex_passport_element_holds_the_date_of_birth_and_not_the_expiry(analyzer: PiiAnalyzer) -> None:
    telex = ("QU LONRRBA\n.PARRRAF 041200\nSSR DOCS BA HK1/P/FRA/14CK90421/FRA/09SEP71/F/23MAR31/DURAND/CLAIRE\n"
             "SSR DOCS AF HK1/P////17FEB1956/M//\nRM ISSUED 02AUG19\nTKT/TIME LIMIT 12MAR24")
    assert dates_of_birth(analyzer, telex) == ["09SEP71", "17FEB1956"]


def test_a_yaml_name_above_its_value_is_its_key(analyzer: PiiAnalyzer) -> None:
    manifest = ("        env:\n          - name: PATIENT_DOB\n            value: \"07.02.1964\"\n"
                "          - name: CREATED_AT\n            value: \"07.02.2021\"\n"
                "          - name: RELEASE\n            value: '1982.05.14'\n")
    assert dates_of_birth(analyzer, manifest) == ["07.02.1964"]


def test_a_cef_field_is_a_date_of_birth_by_its_label(analyzer: PiiAnalyzer) -> None:
    labelled = ("CEF:0|Acme|IdP|2.1|44|Account change|3|flexDate1Label=Date of Birth rt=1709300000000 "
                "suser=jdoe src=10.2.4.8 act=updated flexDate1=11.04.1985 deviceCustomDate1Label=Password Expiry "
                "deviceCustomDate1=11.04.2026")
    assert dates_of_birth(analyzer, labelled) == ["11.04.1985"]
    other = "CEF:0|Acme|IdP|2.1|44|Account change|3|flexDate1Label=Hire date flexDate1=11.04.1985"
    assert dates_of_birth(analyzer, other) == []


def test_a_year_first_word_is_a_month_only_in_the_hungarian_shape(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, "született 1952. szeptember 23.") == ["1952. szeptember 23."]
    assert dates_of_birth(analyzer, "born 1984. Team 3.") == []


def test_a_form_parts_name_above_its_value_is_its_key(analyzer: PiiAnalyzer) -> None:
    body = ('------Boundary7MA4\r\nContent-Disposition: form-data; name="birthdate"\r\n\r\n21 अक्टूबर 1997\r\n'
            '------Boundary7MA4\r\nContent-Disposition: form-data; name="renewal"\r\n\r\n3 October 2027\r\n'
            '------Boundary7MA4\nContent-Disposition: form-data; name="dob"\n\n11 September 1969\n------Boundary7MA4--')
    assert sorted(dates_of_birth(analyzer, body), key=body.index) == ["21 अक्टूबर 1997", "11 September 1969"]
