"""The model-kind checklist (doc/architecture.md, "Adding a model kind") names every source file that names
the closed kind enum `ModelKind`: a file that dispatches on the kind is a file the next kind must change, so
the checklist a new kind follows cannot miss it (issue "One pipeline for every model kind", "The map")."""
import re
from pathlib import Path

from conftest import REPO

SECTION = re.compile(r"^### Adding a model kind\n(.*?)^### ", re.S | re.M)
SOURCE_SUFFIXES = (".h", ".cc", ".py")
# The enum's name as a word: `ModelKind::module`, `ModelKind kind`; not ModelKindFacts, the kinds' table of facts
# that shared code reads without telling the kinds apart (base/model_kind.h).
NAMES_THE_ENUM = re.compile(r"\bModelKind\b")


def checklist_text(architecture: str) -> str:
    found = SECTION.search(architecture)
    assert found, "doc/architecture.md has no section 'Adding a model kind'"
    return found.group(1)


def names_in(checklist: str) -> set:
    """Every file name the checklist spells, `name.h`, `.cc` read as both `name.h` and `name.cc`."""
    names = set(re.findall(r"`(?:[\w./-]*/)?([\w-]+\.(?:h|cc|py))`", checklist))
    for stem, rest in re.findall(r"`(?:[\w./-]*/)?([\w-]+)\.h`((?:,\s*`\.cc`)?)", checklist):
        if rest:
            names.add(stem + ".cc")
    return names


def files_naming_the_kind(root: Path) -> list:
    return sorted(str(path.relative_to(root)) for folder in ("src", "worker", "python")
                  for path in (root / folder).rglob("*")
                  if path.suffix in SOURCE_SUFFIXES and NAMES_THE_ENUM.search(path.read_text(errors="replace")))


def missing_from_checklist(root: Path) -> list:
    listed = names_in(checklist_text((root / "doc" / "architecture.md").read_text()))
    return [path for path in files_naming_the_kind(root) if Path(path).name not in listed]


def test_the_checklist_names_every_file_that_names_the_kind_enum():
    assert files_naming_the_kind(REPO), "no source file names ModelKind: the enum moved, update this test"
    assert missing_from_checklist(REPO) == []


def test_control_a_file_naming_the_kind_that_the_checklist_omits_is_found(tmp_path):
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "architecture.md").write_text(
        "### Adding a model kind\n1. `src/profile/profile.h`, `.cc`; `report/document.cc`\n### Adding a stage\n")
    for name in ("profile/profile.h", "profile/profile.cc", "report/document.cc", "stages/load.cc"):
        (tmp_path / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / name).write_text("switch (profile.kind()) { case ModelKind::module: break; }\n")
    for folder in ("worker", "python"):
        (tmp_path / folder).mkdir()
    assert missing_from_checklist(tmp_path) == ["src/stages/load.cc"]


def test_control_a_file_reading_the_kinds_facts_names_no_kind(tmp_path):
    """Reading the table of facts (ModelKindFacts, model_kind_facts) is not naming the enum; a switch is."""
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "architecture.md").write_text("### Adding a model kind\n1. `src/base/model_kind.h`\n### Adding a stage\n")
    (tmp_path / "src" / "report").mkdir(parents=True)
    (tmp_path / "src" / "report" / "pages.cc").write_text("const ModelKindFacts& k = model_kind_facts(record.kind());\n")
    (tmp_path / "src" / "report" / "switch.cc").write_text("switch (record.kind()) { case ModelKind::module: break; }\n")
    for folder in ("worker", "python"):
        (tmp_path / folder).mkdir()
    assert missing_from_checklist(tmp_path) == ["src/report/switch.cc"]
