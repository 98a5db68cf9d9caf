"""Directory server logs (OpenLDAP slapd's access log, written through syslog): the log's own words are no value.

A slapd access-log line reads ``Mar 07 04:20:39 ldap2 slapd[4286]: conn=34652 op=5 MOD attr=mobile``: the syslog
timestamp (RFC 3164: a month's three-letter abbreviation, the day, the time) and the operation's name after its
number (``BIND``, ``SRCH``, ``MOD``, ``RESULT``...: slapd's ``op=N`` tags, see slapd.conf(5) ``loglevel stats``) are
the log's structure: a detector that reads "Mar" or "MOD" as a person's name, or "Mar" as a place, is wrong.

The values inside a search filter (``filter="(mobile=...)"``) and a distinguished name (``cn=...,ou=people``) are
read by the other detectors (``record_names`` reads a DN's common name). The check runs per finding (its text
compared with a small set first), so a text costs nothing more than its PERSON and LOCATION findings.
"""

from __future__ import annotations

import re

from gateway.guardrails.findings import Finding

# RFC 3164 4.1.2: the TIMESTAMP's month, English and abbreviated, then the day (space-padded) and hh:mm:ss.
_SYSLOG_MONTHS = frozenset({"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"})
_AFTER_MONTH = re.compile(r" [ 0-3]\d \d\d:\d\d:\d\d")
# slapd's operation names in its access log (servers/slapd: the "op=%lu <NAME>" statistics lines).
_SLAPD_OPERATIONS = frozenset(
    {"BIND", "UNBIND", "SRCH", "MOD", "MODRDN", "ADD", "DEL", "CMP", "EXT", "ABANDON", "RESULT", "ENTRY", "REFERRAL"}
)
_OPERATION_NUMBER = re.compile(r"op=\d+ $")
_ENTITIES = frozenset({"PERSON", "LOCATION"})


def is_log_syntax(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is a syslog line's timestamp month or a slapd operation's name."""
    word = text[start:end]
    if word in _SYSLOG_MONTHS:
        return (start == 0 or text[start - 1] == "\n") and _AFTER_MONTH.match(text, end) is not None
    if word in _SLAPD_OPERATIONS:
        return _OPERATION_NUMBER.search(text, max(0, start - 16), start) is not None
    return False


def without_directory_syntax(text: str, findings: list[Finding]) -> list[Finding]:
    """``findings`` less the people and places that are a log line's timestamp month or a slapd operation's name."""
    return [f for f in findings if f.entity_type not in _ENTITIES or not is_log_syntax(text, f.start, f.end)]
