"""Directory server logs (``gateway.guardrails.directory_records``): a syslog timestamp's month (RFC 3164's own
example line) and slapd's operation names (the OpenLDAP Administrator's Guide's access-log lines) are no person nor
place; a name elsewhere on the line stays."""

from gateway.guardrails.directory_records import is_log_syntax, without_directory_syntax
from gateway.guardrails.findings import Finding

SYSLOG = "Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8"
SLAPD = """Mar 07 04:20:39 ldap2 slapd[4286]: conn=1000 fd=8 ACCEPT from IP=127.0.0.1:40034
Mar 07 04:20:39 ldap2 slapd[4286]: conn=1000 op=0 BIND dn="cn=Barbara Jensen,ou=People,dc=example,dc=com" method=128
Mar 07 04:20:39 ldap2 slapd[4286]: conn=1000 op=1 MOD dn="uid=bjensen,ou=People,dc=example,dc=com"
Mar 07 04:20:39 ldap2 slapd[4286]: conn=1000 op=1 RESULT tag=103 err=0 text=
"""


def _finding(text: str, word: str, entity: str = "PERSON", occurrence: int = 0) -> Finding:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(word, start + 1)
    return Finding(entity, start, start + len(word), 0.6, "NER")


def test_timestamp_month_and_operations_are_log_syntax() -> None:
    assert is_log_syntax(SYSLOG, 0, 3)
    mod, result = _finding(SLAPD, "MOD"), _finding(SLAPD, "RESULT")
    assert is_log_syntax(SLAPD, mod.start, mod.end) and is_log_syntax(SLAPD, result.start, result.end)


def test_a_name_or_a_month_elsewhere_stays() -> None:
    text = "Mar Roxas met Barbara on Mar 7\nMOD was the wrong op"
    assert not is_log_syntax(text, 0, 3)  # no time after the day
    assert not is_log_syntax(text, text.index("Mar 7"), text.index("Mar 7") + 3)
    assert not is_log_syntax(text, text.index("MOD"), text.index("MOD") + 3)  # no "op=N" before it


def test_findings_filtered() -> None:
    findings = [
        _finding(SLAPD, "Mar", occurrence=2),
        _finding(SLAPD, "Mar", "LOCATION"),
        _finding(SLAPD, "MOD"),
        _finding(SLAPD, "Barbara Jensen"),
        Finding("DATE_OF_BIRTH", 0, 6, 0.6, "x"),  # other types are not judged here
    ]
    assert without_directory_syntax(SLAPD, findings) == findings[3:]
