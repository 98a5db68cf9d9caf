"""The eleventh dev-side corpus's phrasing (``dev_eleventh``): English clauses for record notes, calendar
descriptions, e-mail bodies and log messages; chat clauses in Persian (a WhatsApp export) and Swahili (an SMS thread);
the attribute, variable and column names of LDIF entries, logfmt lines, GraphQL arguments, Kubernetes manifests and
fixed-width reports. ``{}`` is where a value (or a hard negative) goes. None of it is taken from another split's
phrasebook."""

from __future__ import annotations

CLAUSES: dict[str, dict[str, list[str]]] = {
    "en": {
        "PERSON": ["next of kin is {}", "referred by {}", "please loop in {}", "guardian on file: {}"],
        "LOCATION": ["relocating from {}", "travel history includes {}", "family still lives in {}"],
        "EMAIL_ADDRESS": ["send the invoice to {}", "alternate contact {}", "replies go to {}"],
        "PHONE_NUMBER": ["text {} before visiting", "emergency number {}", "after hours call {}"],
        "CREDIT_CARD": ["deposit charged to {}", "card ending in the full number {}", "pre-auth on {}"],
        "IBAN_CODE": ["salary account {}", "standing order from {}", "reimburse to {}"],
        "US_SSN": ["US tax number (SSN) {}", "SSN given as {}"],
        "IP_ADDRESS": ["portal login came from {}", "device registered at {}", "allowlist {}"],
        "STREET_ADDRESS": ["home visit at {}", "parcel redirected to {}", "mailing address {}"],
        "DATE_OF_BIRTH": ["date of birth {}", "born on {}", "birthday {}"],
        "NATIONAL_ID": ["personal code {}", "identity number {}", "registry number {}"],
        "SECRET": ["service token {}", "do not share: {}", "client secret {}"],
        "other_date": ["follow-up appointment {}", "card expires {}", "issued {}"],
        "person_named": ["prescribed per the {}", "scored with the {}", "see {}"],
        "place_named": ["lunch was {}", "ordered a {}", "like the {}"],
        "other_id": ["tracking {}", "ref {}", "document {}"],
        "tech_ref": ["at {}", "build {}", "checkpoint {}"],
    },
    "fa": {
        "PERSON": ["با {} صحبت کردم", "{} فردا میاد", "سلام به {} برسون"],
        "LOCATION": ["الان {} هستم", "پروازم به {} لغو شد", "خونواده‌ام تو {} زندگی می‌کنن"],
        "EMAIL_ADDRESS": ["ایمیلم {} هست", "به {} بفرست"],
        "PHONE_NUMBER": ["شماره‌ام {} هست", "به {} زنگ بزن"],
        "CREDIT_CARD": ["با کارت {} پرداخت کردم", "شماره کارت {}"],
        "IBAN_CODE": ["به حساب {} واریز کن", "شبا/IBAN {}"],
        "US_SSN": ["SSN آمریکا {}", "شماره SSN {}"],
        "IP_ADDRESS": ["سرور {} جواب نمیده", "از {} وصل شدم"],
        "STREET_ADDRESS": ["آدرس: {}", "بسته رو بفرست {}"],
        "DATE_OF_BIRTH": ["تاریخ تولدم {}", "متولد {}"],
        "NATIONAL_ID": ["شماره شناسایی {}", "کد ملی خارجی {}"],
        "SECRET": ["توکن {}", "رمز سرور {}"],
        "other_date": ["جلسه {}", "مهلت {}"],
        "person_named": ["درباره {} خوندم", "از {} استفاده کن"],
        "place_named": ["{} سفارش دادم", "مثل {}"],
        "other_id": ["کد پیگیری {}", "شماره {}"],
        "tech_ref": ["نسخه {}", "{} رو دیپلوی کردم"],
    },
    "sw": {
        "PERSON": ["nimeongea na {}", "{} atakuja kesho", "msalimie {}"],
        "LOCATION": ["niko {} sasa hivi", "nasafiri kwenda {}", "nyumbani ni {}"],
        "EMAIL_ADDRESS": ["barua pepe yangu ni {}", "tuma kwa {}"],
        "PHONE_NUMBER": ["nipigie {}", "namba yangu ni {}"],
        "CREDIT_CARD": ["nimelipa kwa kadi {}", "kadi {} imezuiwa"],
        "IBAN_CODE": ["tuma pesa kwa {}", "akaunti {}"],
        "US_SSN": ["SSN yake ni {}", "SSN {}"],
        "IP_ADDRESS": ["seva {} haifanyi kazi", "niliingia kutoka {}"],
        "STREET_ADDRESS": ["anwani ni {}", "niletee {}"],
        "DATE_OF_BIRTH": ["nilizaliwa {}", "tarehe ya kuzaliwa {}"],
        "NATIONAL_ID": ["namba ya kitambulisho {}", "kitambulisho {}"],
        "SECRET": ["tokeni ni {}", "nenosiri {}"],
        "other_date": ["mkutano ni {}", "mwisho ni {}"],
        "person_named": ["nimesoma kuhusu {}", "tumia {}"],
        "place_named": ["nimeagiza {}", "kama {}"],
        "other_id": ["namba ya kumbukumbu {}", "angalia {}"],
        "tech_ref": ["toleo {}", "tumeweka {}"],
    },
}  # fmt: skip

# Attribute, variable, argument and column names by entity type or hard-negative kind.
KEYS: dict[str, list[str]] = {
    "PERSON": ["displayName", "contact_person", "holder", "kin_name"],
    "LOCATION": ["hometown", "origin_country", "site_city"],
    "EMAIL_ADDRESS": ["contactEmail", "mail_to", "owner_email"],
    "PHONE_NUMBER": ["msisdn", "cell", "contact_phone"],
    "CREDIT_CARD": ["pan", "card_no", "paymentCard"],
    "IBAN_CODE": ["account_iban", "iban", "settlement_account"],
    "US_SSN": ["us_ssn", "ssnNumber"],
    "IP_ADDRESS": ["peer_addr", "source_ip", "clientAddress"],
    "STREET_ADDRESS": ["street", "address_line", "residence_addr"],
    "DATE_OF_BIRTH": ["birth_date", "dateOfBirth", "dob_value"],
    "NATIONAL_ID": ["personal_code", "idNumber", "citizen_id"],
    "SECRET": ["client_secret", "access_token", "signing_key"],
    "other_date": ["valid_until", "issued_on", "appointment"],
    "person_named": ["algorithm", "scale"],
    "place_named": ["dish", "sku_name"],
    "other_id": ["tracking_no", "doc_ref"],
    "tech_ref": ["commit", "image_tag", "position"],
}
