"""The fifth `dev`-side phrasebook: clauses written for ``dev_fifth`` before any detector was run on them, phrased
unlike every other split's: a support desk's chat transcripts and tickets, HR, clinical and legal letters, and the
keys that SQL, XML, Markdown tables, query strings and YAML lists file values under.

Dates of birth are often written without a birth word here: an age beside the date, a ``DOB`` column, a form line.
``OTHER_DATE`` clauses hold dates that are not dates of birth (visits, filings, hearings), ``TEAM`` clauses a team or
desk where a person would stand: both are hard negatives. Clauses hold no unlabelled name or place. Never part of the
`test` split.
"""

from __future__ import annotations

# Clauses carrying one value at ``{}``, by entity type: what an agent, a customer or a letter says about it.
CLAUSES: dict[str, list[str]] = {
    "PERSON": [
        "I'm calling on behalf of {}, my mother.",
        "The account holder is {}.",
        "Escalating to {} in Tier 2.",
        "Patient {} attended the clinic today.",
        "We act for {} in this matter.",
        "Re: your colleague {}",
        "{} signed for the parcel.",
        "Can you reset the password for {} please?",
        "Employee {} has completed the probation period.",
        "Our client, {}, denies the allegation.",
        "Referred by {} from the night shift.",
        "Thanks {}, that fixed it.",
    ],
    "LOCATION": [
        "The parcel is sitting in the depot at {}.",
        "She relocated from {} last spring.",
        "Our field engineer is based near {}.",
        "Patient was transferred from the hospital in {}.",
        "The hearing will take place in {}.",
        "Currently working remotely from {}.",
        "The outage hit every customer around {}.",
        "Hometown: {}",
    ],
    "DATE_OF_BIRTH": [
        "Patient is a 47-year-old woman ({}).",
        "Age 62, {}, non-smoker.",
        "DOB {}",
        "For verification I gave them {} as my birthday.",
        "The claimant ({}) is now 58.",
        "D.O.B.: {}",
        "The member turned 30 on the birthday recorded as {}.",
        "Date of birth on the passport reads {}.",
    ],
    "STREET_ADDRESS": [
        "Please send the replacement to {}.",
        "Correspondence address: {}",
        "The property at {} is subject to the lease.",
        "Home visit booked at {}.",
        "Billing address on file is {}.",
    ],
    "EMAIL_ADDRESS": [
        "Reply to {} with the case number.",
        "The login e-mail is {}.",
        "Forwarded from {}.",
    ],
    "PHONE_NUMBER": [
        "Best number to reach them is {}.",
        "Callback requested on {}.",
        "Mobile on file: {}",
    ],
    "CREDIT_CARD": [
        "Card used for the order: {}.",
        "The refund goes back to {}.",
        "Charged twice on {} yesterday.",
    ],
    "IBAN_CODE": [
        "Salary is paid into {}.",
        "Settlement to account {} within 14 days.",
        "Please update the bank details to {}.",
    ],
    "US_SSN": [
        "Social security no. {} on the W-2.",
        "The form lists SSN {}.",
        "Identity confirmed with the last SSN {}.",
    ],
    "IP_ADDRESS": [
        "The session started from {}.",
        "Firewall shows repeated hits from {}.",
        "Their VPN exit node was {}.",
    ],
    "NATIONAL_ID": [
        "National ID number: {}",
        "The ID card shows {}.",
        "Tax identifier {} on the payslip.",
    ],
    "SECRET": [
        "Rotated the leaked credential {} this morning.",
        "The token in the ticket was {}.",
        "Config had {} committed.",
    ],
}

# The same in lower-case chat (the customer's side of a transcript), by entity type; other types use CLAUSES.
CHAT: dict[str, list[str]] = {
    "PERSON": ["hi its {} again", "my wife {} has the same problem", "ask {} they set it up",
               "account is under {} not me"],
    "LOCATION": ["im in {} if that matters", "we moved to {} in may", "shop in {} said to call you"],
    "DATE_OF_BIRTH": ["dob is {}", "{} is my bday", "they asked for dob so {}"],
    "STREET_ADDRESS": ["new address is {}", "deliver to {} pls"],
}  # fmt: skip

# Clauses around a hard negative of a kind this corpus adds.
OTHER_DATE = ["Date of visit: {}", "Filed on {}.", "Hearing adjourned to {}.", "Last seen in clinic {}.",
              "Ticket opened {}.", "Start date {}"]  # fmt: skip
TEAM = ["Escalating to {} for review.", "Assigned to: {}", "Handled by {} overnight.", "Reporter: {}"]
CASE_NUMBER = ["Our reference: {}", "Claim number {}.", "Case {} is closed."]

# Keys by entity type (snake case; XML, Markdown and query strings write them their own way).
KEYS: dict[str, list[str]] = {
    "PERSON": ["full_name", "patient", "claimant", "employee", "contact_person", "assignee", "customer", "guardian"],
    "LOCATION": ["town", "region", "place_of_birth", "branch_location", "county", "home_town"],
    "DATE_OF_BIRTH": ["dob", "birth_date", "date_of_birth", "birthdate", "dob_ddmmyyyy"],
    "STREET_ADDRESS": ["street", "address_line", "mailing_address", "addr1"],
    "EMAIL_ADDRESS": ["email", "contact_email", "login"],
    "PHONE_NUMBER": ["phone", "mobile", "tel"],
    "CREDIT_CARD": ["card_number", "pan", "cc"],
    "IBAN_CODE": ["iban", "payout_account"],
    "US_SSN": ["ssn", "social_security"],
    "IP_ADDRESS": ["client_ip", "remote_addr"],
    "NATIONAL_ID": ["national_id", "id_number"],
    "SECRET": ["api_token", "access_key"],
    "other_date": ["visit_date", "filed_on", "created_at", "hearing_date"],
    "team": ["queue", "owner_team", "desk"],
    "case_number": ["case_ref", "claim_no"],
}
