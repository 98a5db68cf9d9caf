"""PERSON: NER's people kept only when written as a name and holding a known name (names-dataset), known first +
last name pairs that NER misses (foreign sentences, lower-case chat), and names a cue points at (name_cues)."""

import re

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.name_cues import phrase_pattern
from gateway.guardrails.people import capitals_pairs, confirmed, name_pairs
from gateway.guardrails.person_names import known_names


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def test_the_snapshot_holds_names_of_many_countries_with_their_diacritics() -> None:
    names = known_names()
    assert len(names.first) > 50_000 and len(names.last) > 50_000
    assert names.is_first("Małgorzata") and names.is_last("Wójcik") and names.is_last("Jiménez")
    assert names.is_first("Oluwaseun") and names.is_last("Nguyen")
    assert not names.is_name("Verspätung") and not names.is_name("Utilisez")


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Bitte schick den Vertrag an Jürgen Weißmann bis Freitag.", "Jürgen Weißmann"),
        ("Envoyez le dossier à Amélie Fontaine avant midi.", "Amélie Fontaine"),
        ("Por favor, llama a Lucía Gutiérrez mañana.", "Lucía Gutiérrez"),
        ("The reviewer is Małgorzata K. Wójcik.", "Małgorzata K. Wójcik"),
        ("hey its tomasz nowak here can u reset my login", "tomasz nowak"),  # all lower case: chat
    ],
)
def test_known_first_and_last_names_are_people(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "Virez le montant sur le compte. Utilisez ce jeton.",  # French imperatives NER reads as names
        "Ahora actualiza el número de tarjeta.",  # Spanish words, one of them in names-dataset as a name
        "Der Flug hatte zwei Stunden Verspätung.",  # German nouns; "Der" is a stop word
        "Mit freundlichen Grüßen",  # a closing
    ],
)
def test_capitalised_words_that_are_no_names_are_not_people(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []


def test_a_pair_inside_another_finding_is_left_to_it() -> None:
    text = "Ship to 12 Walker Street, attention Tom Walker"
    taken = [Finding("STREET_ADDRESS", 8, 24, 0.7, "test")]
    pairs = [text[f.start : f.end] for f in name_pairs(text, frozenset(), taken)]
    assert pairs == ["Tom Walker"]


def test_a_surname_wordnet_lists_as_a_noun_alone_follows_a_first_name() -> None:
    from gateway.guardrails.places import english_words

    english = english_words()
    common = english.nouns | english.verbs | english.modifiers
    text = "This term's class teacher for Year 4 is Bartolomeo Tasso."  # WordNet's Torquato Tasso
    assert [text[f.start : f.end] for f in name_pairs(text, common, [])] == ["Bartolomeo Tasso"]


def test_lower_case_pairs_of_dictionary_words_are_no_people() -> None:
    text = "can you grant will access to the repo"
    assert name_pairs(text, frozenset({"grant", "will"}), []) == []
    assert confirmed("Ahora", Finding("PERSON", 0, 5, 0.85, "spacy_ner")) is False


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Hi Tavita, the build is green again.", "Tavita"),  # a greeting
        # a title: the cue's span takes it ("Frau Okonkwo-Baptiste") where NER has not found the name alone
        ("Sehr geehrte Frau Okonkwo-Baptiste, anbei die Rechnung.", "Okonkwo-Baptiste"),
        ("Bonjour, je m'appelle Ikaika Kahananui et j'ai une question.", "Ikaika Kahananui"),  # an introduction
        ("The incident was escalated to Wiremu T. Ngata last night.", "Wiremu T. Ngata"),  # a hand-over
        ("Liesbeth van der Heijden-Smit wrote: the numbers are off", "Liesbeth van der Heijden-Smit"),  # after
        ("Mit freundlichen Grüßen\nDorottya Vámos\nAcme GmbH", "Dorottya Vámos"),  # a sign-off's next line
        ("ok thx ikaika, ttyl", "ikaika"),  # chat in lower case
        ("Bitte ruf Наталья Кузьмичёва an.", "Наталья Кузьмичёва"),  # a known first name, an unknown surname
    ],
)
def test_names_a_cue_points_at(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    found = people(analyzer, text)
    assert any(name == person or name.endswith(" " + person) for name in found), found  # or with its title


@pytest.mark.parametrize(
    "text",
    [
        "Dear Customer, your order has shipped.",  # dictionary words after a greeting
        "Hi all, thanks everyone for joining.",  # stop words
        "can you ping the server and tell me the latency",
        "thx man, that fixed it",
        "Liebe Grüße\nAcme GmbH",  # a closing, not a greeting
        "Best regards,\nBerlin",  # a signature's city
        "Schick es an die Zentrale.",  # a German imperative opening a sentence
    ],
)
def test_cues_without_a_name_are_no_people(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    "span",
    ["Settlement.run(Settlement.java:196", "order_id", "sha256 ee2442c", "Módena\nVAT", "das Konto des Lieferanten"],
)
def test_ner_spans_not_written_as_names_are_dropped(span: str) -> None:
    text = f"x {span} y"
    assert confirmed(text, Finding("PERSON", 2, 2 + len(span), 0.85, "spacy_ner")) is False


def test_ner_people_inside_a_found_place_are_dropped() -> None:
    text = "The flight from Tsuen Wan was late."
    person = Finding("PERSON", 16, 25, 0.85, "spacy_ner")
    assert confirmed(text, person) is True
    assert confirmed(text, person, [Finding("LOCATION", 16, 25, 0.7, "PlaceRecognizer")]) is False


def test_phrase_pattern_matches_each_phrase_and_nothing_longer() -> None:
    pattern = re.compile(rf"(?:{phrase_pattern(['thanks', 'thank you', 'thx', 'hi'])})\Z")
    assert all(pattern.match(text) for text in ["thanks", "thank  you", "thx", "hi"])
    assert not any(pattern.match(text) for text in ["than", "thank", "thankyou", "his"])


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("token RK4UFZ and card ends 2273 and who is huy bùi again", "huy bùi"),  # chat with codes in capitals
        ("exp 09/27 who is hawa r. traore again", "hawa r. traore"),  # a middle initial in lower case
        ("From: Roberto\nSubject: Re: your request", "Roberto"),  # an e-mail's sender header
        ("> De : Nhiên\n> Objet : dossier", "Nhiên"),
        ("can u loop tao gao into the thread", "tao gao"),  # chat's "loop X in"
        ("Happy birthday to Kiaan Wadhwa from all of us!", "Kiaan Wadhwa"),  # wishes
        ("Glückwunsch an Odina Mubinova zur Beförderung!", "Odina Mubinova"),
        ("Von: Ümit Korkmaz\nBetreff: Urlaub", "Ümit Korkmaz"),
    ],
)
def test_names_in_chat_with_codes_and_in_sender_headers(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "token RK4UFZ and card ends 2273 and who is taking the night shift",  # dictionary words only
        "From: Service Desk\nSubject: Re: your request",  # a desk, not a person
        "loop through the list and loop back",  # a loop of code
        "Happy birthday to everyone in Marketing!",  # wishes to a team
        "From: noreply@example.com\nSubject: alert",
        "Token ABC and Who is taking over",  # capitalised words: the text is not typed in lower case
    ],
)
def test_chat_and_headers_without_a_name(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("On Tuesday Sveinfríður Arnúlfsdóttir demoed the workflow", "Sveinfríður Arnúlfsdóttir"),  # ð
        ("Glückwunsch an İnarə Qənizadə zur Beförderung!", "İnarə Qənizadə"),  # İ, ə
        ("La note de frais de Arnþóra P. Karimsdóttir est bloquée", "Arnþóra P. Karimsdóttir"),  # þ, an initial
    ],
)
def test_names_spelled_with_letters_the_gateways_languages_do_not_write(analyzer: PiiAnalyzer, text: str,
                                                                        person: str) -> None:
    assert person in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "Dirección Económica y Área Técnica",  # accents of the languages read: department names
        "the plant in Łódź Fabryczna closed",  # a place the gazetteer knows comes first
        "Die Größe Änderung wurde im Vorstand besprochen.",  # German nouns with umlauts
    ],
)
def test_capitalised_pairs_with_common_accents_or_known_places_are_no_people(analyzer: PiiAnalyzer,
                                                                              text: str) -> None:
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("[2025-08-28 13:11] Tupaq Kusiyupanki: ok tak\n[2025-08-28 13:18] Work: kortet", "Tupaq Kusiyupanki"),
        ("25/03/2025, 17:26 - Tupaq Kusiyupanki: ok\n25/03/2025, 17:34 - Me: please pay", "Tupaq Kusiyupanki"),
        ("[03.04.24, 09:15:02] Tupaq Kusiyupanki: on my way", "Tupaq Kusiyupanki"),
    ],
)
def test_chat_speakers_after_the_exports_date(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)


def test_relations_an_address_book_names_are_no_speakers(analyzer: PiiAnalyzer) -> None:
    text = "[2025-08-28 13:11] Mum: call me\n[2025-08-28 13:12] Hubby: ok\n[2025-08-28 13:14] Me: on my way"
    assert people(analyzer, text) == []


@pytest.mark.parametrize(
    ("span", "text"),
    [
        ("J. T. Kusiyupanki", "@J. T. Kusiyupanki can you take a look?"),
        ("Tupaq K.", '"account_owner": "Tupaq K.", "verified": true'),
    ],
)
def test_a_ner_person_written_with_initials_needs_no_listed_name(span: str, text: str) -> None:
    start = text.index(span)
    assert confirmed(text, Finding("PERSON", start, start + len(span), 0.85, "spacy_ner"))


@pytest.mark.parametrize("span", ["Plan B.", "Suite A."])
def test_a_word_and_an_initial_that_name_no_one_stay_unconfirmed(span: str) -> None:
    text = f"We will go with {span} tomorrow."
    start = text.index(span)
    assert not confirmed(text, Finding("PERSON", start, start + len(span), 0.85, "spacy_ner"))


def test_initials_after_a_first_name_are_left_to_the_whole_name() -> None:
    text = "Mit freundlichen Grüßen\nVita G. Kalniņa\nBuchhaltung"
    start = text.index("G. Kalniņa")
    assert not confirmed(text, Finding("PERSON", start, start + len("G. Kalniņa"), 0.85, "spacy_ner"))


def test_initials_after_a_tab_separated_column_are_a_name_of_their_own() -> None:
    text = "761872065\tGoldman Sachs\tL. P. Kusiyupanki\tKing Street Dental"
    start = text.index("L. P. Kusiyupanki")
    assert confirmed(text, Finding("PERSON", start, start + len("L. P. Kusiyupanki"), 0.85, "spacy_ner"))


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("BREAD  9.27\nMEMBER:TINI ANNISA\nITEM: PARKINSON'S DISEASE\n", "TINI ANNISA"),
        ("MILK 1L  21.66\nCUSTOMER OSNAT HADAD\nTERMINAL IP fe80::1\n", "OSNAT HADAD"),
        ("RCPT RFC 6749\nMEMBER ROŽĖ JANKAUSKAITĖ\nTOTAL 240.96\n", "ROŽĖ JANKAUSKAITĖ"),
        ("CASHIER: HYUNHEE MISUN\nTHANK YOU\n", "HYUNHEE MISUN"),  # family name first
        ("<tr><td>EMMA BONOLIS</td><td>Klaipėda</td></tr>", "EMMA BONOLIS"),  # a family name no list holds
        ("ADRES: ul. Lipowa 4\nWNIOSKODAWCA: NELA BEJMA-LEŚNA\n", "NELA BEJMA-LEŚNA"),
        ("CASE NO. 24-117\nDEFENDANT: CHRISTOPHER CHAMBERS\n", "CHRISTOPHER CHAMBERS"),  # both dictionary words
    ],
)
def test_names_printed_in_capitals_are_people(text: str, person: str) -> None:
    found = [text[f.start : f.end] for f in capitals_pairs(text, frozenset({"total", "thank", "bread", "milk"}), [])]
    assert found == [person]


@pytest.mark.parametrize(
    "text",
    [
        "RM HOME CITY SAINT ELIZABETH\nSSR DOCS YY HK1/P////20APR98/F//\nSSR CTCM YY HK1\n",  # codes, a parish
        "TOTAL DUE 12.00\nTHANK YOU FOR SHOPPING\nSTORE SAINT ANDREW\n",  # words, a place
        "HEADS UP: GRANT WILL MARK THE ROSE AS DONE\n",  # names that are dictionary words
        "EMMA RELEASE NOTES\nJULIA TUTORIAL\nMARIA DATABASE\n",  # a first name before a word, not a family name
        "RM ADDR 12 AKINWALE STREET\nDELIVER TO: CALLE MARTINA 4\n",  # streets named after people
        "ADDRESS LINE: STRADA MARCELA CRISTEA 218\nADDR: CALLE MARTINA FIGUEROA 7\n",  # a street type before the pair
    ],
)
def test_capitals_that_name_no_one_are_no_people(text: str) -> None:
    assert capitals_pairs(text, frozenset({"grant", "will", "mark", "rose", "done", "heads"}), []) == []


def test_a_chat_message_typed_in_lower_case_is_read_for_lower_case_names() -> None:
    text = (
        "[22:40] Mwanzo: Bumili ako ng Lyme disease kit\n"
        "[22:49] ate_j: pakisabi kay eitan gabay na late ako\n"
        "[22:51] Vlad: ok see you at the Main Office\n"
        "[22:55] bebe: nitakupigia saa hii\n"  # two short words of a language no stop-word list covers
    )
    assert [text[f.start : f.end] for f in name_pairs(text, frozenset({"late", "office"}), [])] == ["eitan gabay"]


def test_lower_case_words_outside_chat_messages_are_no_names() -> None:
    text = "Deploy notes\nconfig: eitan gabay\nls eitan gabay\n"  # a key's value, a command: no chat line
    assert name_pairs(text, frozenset(), []) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("I've drafted a reply to Adebimpe explaining the refund timeline.", "Adebimpe"),  # a reply's addressee
        ("Please write back to Kealoha Makoa today.", "Kealoha Makoa"),
        ("vanaf maandag komt meneer Barentsz ons team versterken.", "Barentsz"),  # Dutch, Italian titles
        ("La dottoressa Karadağ l'ha già visitata.", "Karadağ"),
    ],
)
def test_reply_addressees_and_titles_are_cues(text: str, person: str) -> None:
    from gateway.guardrails.name_cues import NameWords, cued_names
    from gateway.guardrails.people import _STOP_WORDS, known_names

    names = known_names()
    words = NameWords(_STOP_WORDS, frozenset({"refund", "timeline"}), names.is_name, names.is_first)
    assert [text[f.start : f.end] for f in cued_names(text, words, [])] == [person]
