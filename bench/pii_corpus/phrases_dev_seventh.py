"""The seventh dev-side corpus's phrasing (``dev_seventh``): clauses for text messages in English, Indonesian and
Danish, for commit messages, calendar descriptions and PDF prose in English, for phone calls transcribed without
punctuation, and the keys of vCards, LDAP entries, SOAP bodies and semicolon-separated exports. ``{}`` is where a
value (or a hard negative) goes. None of it is taken from another split's phrasebook."""

from __future__ import annotations

# Clauses by language, then entity type or hard-negative kind.
CLAUSES: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": ["{} will cover the Thursday shift", "Sent on behalf of {}", "pls ring {} back re the claim",
                   "The tenant, {}, reported the leak", "Approved by {} after review"],
        "LOCATION": ["moving the team offsite to {} in spring", "the parcel is stuck in {}", "branch office: {}",
                     "Relocated from {} last year"],
        "EMAIL_ADDRESS": ["reply to {} not to me", "forwarding to {} now", "new login is {}"],
        "PHONE_NUMBER": ["call me on {} after 6", "backup number {}", "Reachable at {} during office hours"],
        "CREDIT_CARD": ["charged to card {} again", "the card used was {}", "refund goes back to {}"],
        "IBAN_CODE": ["salary account {} changed", "please pay into {}", "Beneficiary account {}"],
        "US_SSN": ["her social is {}", "SSN on file {} does not match", "social security no. {}"],
        "IP_ADDRESS": ["blocked {} at the firewall", "logins came from {}", "whitelist {} for the vendor"],
        "STREET_ADDRESS": ["keys are at {}", "send the contract to {}", "Ship to {} instead"],
        "DATE_OF_BIRTH": ["born {}", "date of birth {} per the passport", "Birthday: {}"],
        "NATIONAL_ID": ["personal number {} on the form", "their national ID {} expired", "tax ID {}"],
        "SECRET": ["rotated the key {} just now", "old token {} still works", "secret was {}"],
        "other_date": ["the lease ends {}", "invoice dated {}", "Next review on {}"],
        "person_named": ["switched routing to {}", "ordered a {} for the lobby", "winner of the {}"],
        "place_named": ["lunch was {} again", "read up on {}", "bought the {} pack"],
        "other_id": ["ticket {} reopened", "ref {} attached", "see item {}"],
    },
    "id": {
        "PERSON": ["tolong hubungi {} ya", "tadi {} sudah bayar", "atas nama {}"],
        "LOCATION": ["aku lagi di {} sekarang", "paketnya masih di {}", "pindah ke {} bulan depan"],
        "EMAIL_ADDRESS": ["kirim ke email {} aja", "emailnya {}"],
        "PHONE_NUMBER": ["nomor baru aku {}", "telp ke {} ya"],
        "CREDIT_CARD": ["kartu kreditnya {}", "pakai kartu {}"],
        "IBAN_CODE": ["transfer ke rekening {}", "IBAN-nya {}"],
        "US_SSN": ["SSN dia {}", "nomor SSN {}"],
        "IP_ADDRESS": ["IP server {}", "akses dari {} diblokir"],
        "STREET_ADDRESS": ["alamatnya {}", "antar ke {} ya"],
        "DATE_OF_BIRTH": ["tanggal lahir {}", "lahir {}"],
        "NATIONAL_ID": ["nomor identitas {}", "no. KTP lama {}"],
        "SECRET": ["token API {}", "kuncinya {} jangan disebar"],
        "other_date": ["jatuh tempo {}", "rapat tanggal {}"],
        "person_named": ["pesan {} dua", "pakai {} aja"],
        "place_named": ["makan {} tadi", "beli {}"],
        "other_id": ["nomor tiket {}", "kode {}"],
    },
    "da": {
        "PERSON": ["ring lige til {}", "{} tager vagten i morgen", "på vegne af {}"],
        "LOCATION": ["er i {} hele ugen", "pakken sidder fast i {}", "flytter til {} til sommer"],
        "EMAIL_ADDRESS": ["skriv til {}", "ny mail: {}"],
        "PHONE_NUMBER": ["mit nye nummer er {}", "ring på {}"],
        "CREDIT_CARD": ["kortet {} blev afvist", "betalt med {}"],
        "IBAN_CODE": ["overfør til {}", "kontoen er {}"],
        "US_SSN": ["hans SSN er {}", "SSN {}"],
        "IP_ADDRESS": ["serveren på {} er nede", "blokér {}"],
        "STREET_ADDRESS": ["adressen er {}", "nøglerne ligger på {}"],
        "DATE_OF_BIRTH": ["født {}", "fødselsdato {}"],
        "NATIONAL_ID": ["personnummer {}", "ID-nummer {}"],
        "SECRET": ["nøglen er {}", "token: {}"],
        "other_date": ["fakturaen er fra {}", "mødet er {}"],
        "person_named": ["bestilte en {}", "vi bruger {}"],
        "place_named": ["spiste {}", "købte {}"],
        "other_id": ["sag {}", "varenr. {}"],
    },
}  # fmt: skip
# A phone call as a speech-to-text service writes it: lower case, no punctuation.
VOICE: dict[str, list[str]] = {
    "PERSON": ["yes this is {} speaking", "my name is {} thats right", "im calling for {} my mother",
               "the account is under {}"],
    "LOCATION": ["i live in {} now", "we moved from {} last year", "im calling from {}"],
    "EMAIL_ADDRESS": ["the email is {}", "you can email me at {}"],
    "PHONE_NUMBER": ["my number is {}", "call me back on {}"],
    "CREDIT_CARD": ["the card number is {}", "its {} the long number"],
    "IBAN_CODE": ["the iban is {}", "pay it into {}"],
    "US_SSN": ["my social is {}", "social security number {}"],
    "IP_ADDRESS": ["the router says {}", "my ip is {}"],
    "STREET_ADDRESS": ["the address is {}", "send it to {} please"],
    "DATE_OF_BIRTH": ["my date of birth is {}", "i was born {}", "dob {}"],
    "NATIONAL_ID": ["my id number is {}", "the personal number is {}"],
    "SECRET": ["the key it shows is {}", "the code on screen is {}"],
    "other_date": ["the payment went out {}", "my appointment is {}"],
    "person_named": ["i bought the {}", "its about my {}"],
    "place_named": ["i ordered {}", "about the {} offer"],
    "other_id": ["the reference is {}", "order number {}"],
}  # fmt: skip
AGENT_LINES = ["thank you for calling how can i help", "can i take your details please", "let me just check that",
               "is there anything else", "bear with me one moment"]  # fmt: skip

# Keys of the structured contexts, by entity type or hard-negative kind (others fall back to the shared names).
VCARD = {"PERSON": ["FN"], "EMAIL_ADDRESS": ["EMAIL;TYPE=INTERNET", "EMAIL;TYPE=WORK"], "PHONE_NUMBER":
         ["TEL;TYPE=CELL", "TEL;TYPE=HOME", "TEL;TYPE=WORK,VOICE"], "DATE_OF_BIRTH": ["BDAY"], "LOCATION":
         ["X-BIRTHPLACE", "X-HOMETOWN"], "STREET_ADDRESS": ["ADR;TYPE=HOME"], "IP_ADDRESS": ["X-LAST-IP"],
         "IBAN_CODE": ["X-IBAN"], "CREDIT_CARD": ["X-CARD"], "US_SSN": ["X-SSN"], "NATIONAL_ID": ["X-NATIONAL-ID"],
         "SECRET": ["X-API-KEY"], "person_named": ["ORG"], "place_named": ["ORG"], "other_date": ["ANNIVERSARY"],
         "other_id": ["UID"]}  # fmt: skip
LDAP = {"PERSON": ["cn", "displayName"], "EMAIL_ADDRESS": ["mail"], "PHONE_NUMBER": ["telephoneNumber", "mobile"],
        "LOCATION": ["l"], "STREET_ADDRESS": ["street", "postalAddress"], "DATE_OF_BIRTH": ["birthDate"],
        "NATIONAL_ID": ["nationalIdNumber"], "US_SSN": ["ssn"], "IBAN_CODE": ["bankAccount"],
        "CREDIT_CARD": ["corpCardNumber"], "IP_ADDRESS": ["ipHostNumber"], "SECRET": ["userPassword"],
        "other_date": ["createTimestamp"], "person_named": ["o"], "place_named": ["ou"],
        "other_id": ["employeeNumber"]}  # fmt: skip
SOAP = {"PERSON": ["PartyName", "AccountHolder"], "EMAIL_ADDRESS": ["EmailAddress"], "PHONE_NUMBER": ["ContactPhone"],
        "LOCATION": ["CityName", "BirthPlace"], "STREET_ADDRESS": ["AddressLine"], "DATE_OF_BIRTH": ["BirthDate"],
        "NATIONAL_ID": ["PersonalIdentifier"], "US_SSN": ["TaxpayerSSN"], "IBAN_CODE": ["CreditorAccount"],
        "CREDIT_CARD": ["PrimaryAccountNumber"], "IP_ADDRESS": ["OriginIp"], "SECRET": ["WsSecurityToken"],
        "other_date": ["ValueDate"], "person_named": ["ProductName"], "place_named": ["BrandName"],
        "other_id": ["MessageId"]}  # fmt: skip
# Column headers of semicolon-separated exports (spreadsheets of Danish, Finnish and Hungarian offices).
CSV_HEADERS: dict[str, dict[str, list[str]]] = {
    "da": {"PERSON": ["Navn", "Kontaktperson"], "LOCATION": ["By", "Fødested"], "EMAIL_ADDRESS": ["E-mail"],
           "PHONE_NUMBER": ["Telefon", "Mobil"], "STREET_ADDRESS": ["Adresse"], "DATE_OF_BIRTH": ["Fødselsdato"],
           "IBAN_CODE": ["Kontonr."], "CREDIT_CARD": ["Kortnummer"], "NATIONAL_ID": ["ID-nr."], "US_SSN": ["SSN"],
           "IP_ADDRESS": ["IP-adresse"], "SECRET": ["API-nøgle"], "other_date": ["Oprettet"],
           "person_named": ["Produkt"], "place_named": ["Vare"], "other_id": ["Sagsnr."]},
    "fi": {"PERSON": ["Nimi", "Yhteyshenkilö"], "LOCATION": ["Kaupunki", "Syntymäpaikka"],
           "EMAIL_ADDRESS": ["Sähköposti"], "PHONE_NUMBER": ["Puhelin"], "STREET_ADDRESS": ["Osoite"],
           "DATE_OF_BIRTH": ["Syntymäaika"],
           "IBAN_CODE": ["Tilinumero"], "CREDIT_CARD": ["Kortin numero"], "NATIONAL_ID": ["Henkilötunnus"],
           "US_SSN": ["SSN"], "IP_ADDRESS": ["IP-osoite"], "SECRET": ["Avain"], "other_date": ["Luotu"],
           "person_named": ["Tuote"], "place_named": ["Tuotemerkki"], "other_id": ["Tapausnro"]},
    "hu": {"PERSON": ["Név", "Kapcsolattartó"], "LOCATION": ["Város", "Születési hely"], "EMAIL_ADDRESS": ["E-mail"],
           "PHONE_NUMBER": ["Telefonszám"], "STREET_ADDRESS": ["Cím"], "DATE_OF_BIRTH": ["Születési idő"],
           "IBAN_CODE": ["Számlaszám"], "CREDIT_CARD": ["Kártyaszám"], "NATIONAL_ID": ["Személyi azonosító"],
           "US_SSN": ["SSN"], "IP_ADDRESS": ["IP-cím"], "SECRET": ["API-kulcs"], "other_date": ["Létrehozva"],
           "person_named": ["Termék"], "place_named": ["Márka"], "other_id": ["Ügyszám"]},
}  # fmt: skip
