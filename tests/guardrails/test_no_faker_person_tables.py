"""No detector reads Faker's person tables (issue #29): the PII corpus draws its PERSON values from them
(bench/pii_corpus/person_names.py, people.py), so a detector built from them would be scored on its own list.

Statically, no module under gateway/ imports ``faker.providers.person`` or names it in a string (an
``importlib.import_module`` path). Dynamically, an analyzer that has read text in every script its rules read holds
no module of that package but those Faker's own other providers import (bn_BD's digit helper; ru_RU and uk_UA ones),
which the static scan covers. Faker's address, date and colour providers (street-type words, month names, colour
names: the words around values, not the scored values) may still be read."""

import ast
import json
import subprocess
import sys
from pathlib import Path

GATEWAY = Path(__file__).resolve().parents[2] / "gateway"
PERSON_PACKAGE = "faker.providers.person"


def _person_references(source: str) -> list[str]:
    """The imports of and strings naming ``faker.providers.person`` in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith(PERSON_PACKAGE)]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(PERSON_PACKAGE):
                found.append(node.module)
            elif node.module == "faker.providers":
                found += [f"{node.module}.{alias.name}" for alias in node.names if alias.name == "person"]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and PERSON_PACKAGE in node.value:
            found.append(node.value)
    return found


def test_the_scan_sees_each_way_of_naming_the_tables() -> None:
    assert _person_references("import faker.providers.person.en_US") == ["faker.providers.person.en_US"]
    assert _person_references("from faker.providers.person.el_GR import Provider") == ["faker.providers.person.el_GR"]
    assert _person_references("from faker.providers import person, address") == ["faker.providers.person"]
    assert _person_references('m = importlib.import_module(f"faker.providers.person.{x}")') != []
    assert _person_references("from faker.providers.address.el_GR import Provider") == []


def test_no_gateway_module_imports_or_names_faker_person_providers() -> None:
    offenders = {
        str(path.relative_to(GATEWAY.parent)): refs
        for path in sorted(GATEWAY.rglob("*.py"))
        if (refs := _person_references(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def _faker_internal_person_imports() -> set[str]:
    """The person modules that Faker's other providers import themselves (bn_BD's address, phone and currency
    providers import ``translate_to_bengali_digits`` from ``faker.providers.person.bn_BD``), and their package: loaded
    by Faker whenever those providers are, whatever reads them."""
    import faker

    root = Path(faker.__file__).parent
    found = set()
    for path in root.rglob("*.py"):
        if "person" in path.relative_to(root).parts:
            continue
        for reference in _person_references(path.read_text(encoding="utf-8")):
            found.add(reference)
    return found | {PERSON_PACKAGE} if found else found


def test_an_analyzer_at_work_has_loaded_no_faker_person_provider() -> None:
    # Text in the scripts the caseless-name, street and name rules read, so that their lazily built tables are built.
    code = (
        "import json, sys\n"
        "from gateway.guardrails.analyzer import PiiAnalyzer\n"
        "analyzer = PiiAnalyzer()\n"
        "for text in ('MaintainerName=דוד לוי\\n', 'assignee: सीता शर्मा', 'μένω στην Αβραμίδου 3',\n"
        "             'Ask Иван Петров later about 12 Main Street', 'owner: \"فاطمة احمدی\"', 'ส่งที่ 12/3 ถนนพหลโยธิน'):\n"
        "    analyzer.analyze(text)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('faker.providers.person'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=GATEWAY.parent)  # fmt: skip
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert loaded <= _faker_internal_person_imports()
