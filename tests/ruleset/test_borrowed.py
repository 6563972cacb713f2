"""004, "Catálogos prestados": catalogs read from a lender in the library (ruleset.borrow)."""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from gmtags import RulesetError, Snapshot, load_ruleset, process
from gmtags.cli import main
from gmtags.ruleset.borrow import library_index, map_entry
from gmtags.ruleset.catalogs import BorrowSheet
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.played import effective_ruleset
from tests.conftest import FIXTURES, REFERENCE_RULESETS, invoke

LIBRARY = FIXTURES / "rulesets" / "library"
LENDERS = LIBRARY / "lenders"
BORROWER = LIBRARY / "borrowers" / "new-roads.json"


def borrower() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(BORROWER.read_text(encoding="utf-8"))
    return data


def new_roads() -> Ruleset:
    return load_ruleset(BORROWER, library=[LENDERS])


def entries(ruleset: Ruleset, catalog_id: str) -> dict[str, Any]:
    catalog = next(c for c in ruleset.catalog_models if c.id == catalog_id)
    return {entry.id: entry for entry in catalog.entries or ()}


def five_e_borrower(sheet: dict[str, Any] | None = None) -> dict[str, Any]:
    data = json.loads((REFERENCE_RULESETS / "ruleset-5e-2014.example.json").read_text())
    seed = {"id": "creatures", "label": "Creatures", "holds": "creatures"}
    borrow: dict[str, Any] = {"ruleset": "5e-2014", "catalog": "creatures"}
    if sheet is not None:
        borrow["sheet"] = sheet
    data["id"] = "my-5e"
    data["catalogs"][0] = {**seed, "from": borrow}
    return dict(data)


class TestSeedExample:
    def test_creatures_borrowed_from_5e(self) -> None:
        """The seed's own example: every 5e-2014 creature is read, with the lender's filters."""
        ruleset = load_ruleset(five_e_borrower(), library=[REFERENCE_RULESETS])
        lent = load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json")
        assert list(entries(ruleset, "creatures")) == list(entries(lent, "creatures"))
        assert ruleset.catalog_models[0].filters == lent.catalog_models[0].filters
        assert ruleset.borrow_notes == ()

    def test_seed_sheet_mapping_leaves_out_a_field_the_borrower_lacks(self) -> None:
        """`fields: {ac: ac_typed}` names a field this copy lacks: that creature is left out."""
        sheet = {
            "fields": {"ac": "ac_typed", "size": None},
            "values": {"hp_method": {"by_hand": "manual"}},
            "tiers": {"proficient": "trained"},
        }
        ruleset = load_ruleset(five_e_borrower(sheet), library=[REFERENCE_RULESETS])
        assert "toll-sergeant" not in entries(ruleset, "creatures")
        assert "thorn-lurker" in entries(ruleset, "creatures")
        assert [str(n) for n in ruleset.borrow_notes] == [
            "catalogs.0: entry 'toll-sergeant' is left out: creature: names field 'ac_typed', "
            "which this ruleset does not declare"
        ]


class TestLibrary:
    def test_lender_found_in_a_library_folder(self) -> None:
        """A lender is a ruleset file of a library folder, found by its id."""
        assert "steady" in entries(new_roads(), "feats")
        assert entries(load_ruleset(BORROWER), "feats") == {}

    def test_lender_under_a_community_namespace(self) -> None:
        """A lender in a namespace's subfolder is found by its bare id."""
        assert list(entries(new_roads(), "hills")) == ["hill-stride"]
        assert library_index([LENDERS])["far-hills"].parent.name == "community"

    def test_other_json_files_are_skipped(self, tmp_path: Path) -> None:
        """A file in the folder that is no ruleset object is not a lender, and breaks nothing."""
        (tmp_path / "notes.json").write_text('["not a ruleset"]', encoding="utf-8")
        (tmp_path / "broken.json").write_text("{", encoding="utf-8")
        shutil.copy(LENDERS / "old-roads.json", tmp_path / "old-roads.json")
        assert set(library_index([tmp_path])) == {"old-roads"}

    def test_first_folder_wins(self, tmp_path: Path) -> None:
        """Folders are searched in the order given: the first file with the id is the lender."""
        data = json.loads((LENDERS / "old-roads.json").read_text(encoding="utf-8"))
        data["catalogs"][0]["entries"] = data["catalogs"][0]["entries"][:1]
        (tmp_path / "old.json").write_text(json.dumps(data), encoding="utf-8")
        ruleset = load_ruleset(BORROWER, library=[tmp_path, LENDERS])
        assert list(entries(ruleset, "feats")) == ["steady", "old-name", "homebrew"]


class TestSheetMapping:
    def test_fields_and_values(self) -> None:
        """`fields` renames a field reference and a set key; `values` maps the value set."""
        tough = entries(new_roads(), "feats")["tough"]
        assert tough.offered_when.field == "toughness"
        assert tough.grants.sets == {"method": "manual"}

    def test_tiers(self) -> None:
        """`tiers` maps the tier an entry trains at."""
        assert entries(new_roads(), "feats")["lorekeeper"].grants.trained.tier == "trained"

    def test_refs(self) -> None:
        """`refs` reads a lender's derived value as one of the borrower's values."""
        assert entries(new_roads(), "feats")["seer"].offered_when.field == "lore_rank"

    def test_slots_and_dropped_set(self) -> None:
        """`slots` renames an item's slots; a field mapped to null drops the value it sets."""
        sheet = BorrowSheet.model_validate({"fields": {"size": None}, "slots": {"body": "armor"}})
        entry = {
            "id": "mail",
            "label": "Mail",
            "item": {"category": "gear", "slots": ["body"]},
            "grants": {"sets": {"size": 2, "speed": 30}},
        }
        mapped = map_entry(entry, sheet)
        assert mapped["item"]["slots"] == ["armor"]
        assert mapped["grants"]["sets"] == {"speed": 30}
        assert entry["item"]["slots"] == ["body"]


class TestLeftOut:
    def test_entry_naming_what_the_borrower_lacks(self) -> None:
        """An entry reading a dropped field or paying a pool the borrower lacks is left out."""
        ruleset = new_roads()
        assert {"big", "spellspark"}.isdisjoint(entries(ruleset, "feats"))
        notes = [str(note) for note in ruleset.borrow_notes if note.path == "catalogs.0"]
        assert notes == [
            "catalogs.0: entry 'big' is left out: it reads field 'size', which from.sheet "
            "leaves out",
            "catalogs.0: entry 'spellspark' is left out: mechanics.cost.0.pool: names no pool "
            "or pool group 'mana'",
        ]

    def test_logged_as_warnings(self) -> None:
        """Every note is a structlog warning too, naming the ruleset and the path."""
        with capture_logs() as logs:
            ruleset = new_roads()
        events = [log for log in logs if log["event"] == "borrowed_catalog"]
        assert [e["note"] for e in events] == [n.message for n in ruleset.borrow_notes]
        assert {(e["log_level"], e["ruleset"]) for e in events} == {("warning", "new-roads")}


class TestEntriesBesideFrom:
    def test_replace_in_place_and_add_after(self) -> None:
        """An entry beside `from` replaces the borrowed one with its id; a new one comes last."""
        feats = entries(new_roads(), "feats")
        assert list(feats) == ["steady", "tough", "lorekeeper", "seer", "old-name", "homebrew"]
        assert feats["old-name"].label == "New Name"

    def test_catalogs_stays_the_file_json(self) -> None:
        """`Ruleset.catalogs` is the file's JSON: the borrowed entries are only in the models."""
        assert new_roads().catalogs == borrower()["catalogs"]


class TestMissingLender:
    def test_missing_lender_leaves_the_catalog_empty(self) -> None:
        """A lender not installed: the catalog is empty, with a note, and nothing raises."""
        ruleset = new_roads()
        assert entries(ruleset, "lost") == {}
        assert str(ruleset.borrow_notes[-1]) == (
            "catalogs.2: ruleset 'lost-roads' is not installed: catalog 'lost' is empty"
        )

    def test_no_library(self) -> None:
        """Without a library every borrowing catalog is empty, its own entries too."""
        ruleset = load_ruleset(BORROWER)
        assert all(not catalog.entries for catalog in ruleset.catalog_models)
        assert [note.path for note in ruleset.borrow_notes] == [f"catalogs.{i}" for i in range(3)]


class TestRefused:
    def test_from_its_own_ruleset(self) -> None:
        """A catalog cannot borrow from its own ruleset, refused at `from.ruleset`."""
        data = borrower()
        data["catalogs"][1]["from"]["ruleset"] = "new-roads"
        with pytest.raises(RulesetError) as error:
            load_ruleset(data, library=[LENDERS])
        assert [p.path for p in error.value.problems] == ["catalogs.1.from.ruleset"]

    def test_from_a_borrowing_catalog(self) -> None:
        """A lender's catalog that borrows in turn is refused at `from.catalog`."""
        data = borrower()
        data["catalogs"][1]["from"] = {"ruleset": "old-roads", "catalog": "echoes"}
        with pytest.raises(RulesetError) as error:
            load_ruleset(data, library=[LENDERS])
        assert [p.path for p in error.value.problems] == ["catalogs.1.from.catalog"]

    def test_a_catalog_holding_something_else(self) -> None:
        """A lent catalog of creatures is no catalog of rows: refused at `holds`."""
        data = five_e_borrower()
        data["catalogs"][0]["from"]["catalog"] = "feats"
        with pytest.raises(RulesetError) as error:
            load_ruleset(data, library=[REFERENCE_RULESETS])
        assert [p.path for p in error.value.problems] == ["catalogs.0.holds"]


class TestLayers:
    def test_a_layer_hides_borrowed_entries(self) -> None:
        """The ruleset a game's layers derive keeps the borrowed entries, less the hidden ones."""
        data = borrower()
        data["catalogs"][0]["filters"] = [{"id": "tier", "label": "Tier", "type": "number"}]
        hide = {"id": "feats", "hide": {"filter": "tier", "above": 1}}
        data["layers"] = [
            {"id": "easy", "label": "Easy", "summary": "Low feats.", "catalogs": [hide]}
        ]
        ruleset = load_ruleset(data, library=[LENDERS])
        played = effective_ruleset(ruleset, ["easy"])
        assert list(entries(played, "feats")) == ["steady", "tough", "old-name", "homebrew"]
        assert "feats/seer" in played.hidden_entries
        assert played.borrow_notes == ruleset.borrow_notes


USE = '[sheet: op="use" name="Steady"]\n[sheet: op="use" name="Homebrew"]'
PICKED = {"gameCharacterCards": {"Bram": {"picks": ["feats/steady", "feats/homebrew"]}}}


class TestPlay:
    def test_use_a_borrowed_entry(self) -> None:
        """A borrowed entry picked on a card is paid by `use`, as an inline one is."""
        result = process(USE, new_roads(), Snapshot.model_validate(PICKED), seed=1)
        assert result.text.splitlines() == [
            '[sheet: who="Bram" op="use" name="Steady" result="ok" now="Steady: Grit 1/2"]',
            '[sheet: who="Bram" op="use" name="Homebrew" result="refused" reason="insufficient"]',
        ]

    def test_unresolved_borrow_is_unknown_in_play(self) -> None:
        """Without its lender the entry is unknown: refused as a value, never an exception."""
        result = process(USE, load_ruleset(BORROWER), Snapshot.model_validate(PICKED), seed=1)
        assert 'reason="unknown-entry"' in result.text.splitlines()[0]


class TestCli:
    def test_validate_with_rulesets(self) -> None:
        """`gmtags validate --rulesets DIR` reads the lenders and prints what was left out."""
        ran = invoke(main, "validate", BORROWER, "--rulesets", LENDERS)
        assert ran.returncode == 0
        lines = ran.stdout.splitlines()
        assert lines[0] == "ok: New Roads (new-roads v1)"
        assert lines[1].startswith("  borrowed: catalogs.0: entry 'big' is left out")
        assert len(lines) == 4

    def test_process_with_rulesets(self, tmp_path: Path) -> None:
        """`gmtags process --rulesets DIR` plays a borrowed entry."""
        state = tmp_path / "state.json"
        state.write_text(json.dumps(PICKED), encoding="utf-8")
        args = ["--ruleset", BORROWER, "--state", state, "--seed", "1"]
        ran = invoke(main, "process", *args, "--rulesets", LENDERS, stdin=USE)
        assert 'now="Steady: Grit 1/2"' in ran.stdout
        ran = invoke(main, "process", *args, stdin=USE)
        assert 'reason="unknown-entry"' in ran.stdout

    @pytest.mark.parametrize("command", ["prompt", "stream"])
    def test_every_command_takes_rulesets(self, command: str) -> None:
        """`prompt` and `stream` take `--rulesets` too (as do `transcript` and `serve`)."""
        args = [command, "--ruleset", BORROWER, "--rulesets", LENDERS, "--rulesets", LIBRARY]
        assert invoke(main, *args, stdin="").returncode == 0

    def test_transcript_reprocess_with_rulesets_in_jobs(self, tmp_path: Path) -> None:
        """`transcript reprocess --rulesets DIR --jobs 2`: each worker reads the lenders too."""
        state = tmp_path / "state.json"
        state.write_text(json.dumps(PICKED), encoding="utf-8")
        chats, out = tmp_path / "chats", tmp_path / "out"
        chats.mkdir()
        reply = {"role": "assistant", "content": '[sheet: op="use" name="Steady" who="Bram"]'}
        for name in ("a.jsonl", "b.jsonl"):
            (chats / name).write_text(json.dumps(reply) + "\n", encoding="utf-8")
        args = ["transcript", "reprocess", chats, "--ruleset", BORROWER, "--state", state]
        ran = invoke(main, *args, "--out", out, "--jobs", "2", "--rulesets", LENDERS)
        assert ran.returncode == 0, ran.stderr
        for name in ("a.jsonl", "b.jsonl"):
            assert 'now=\\"Steady: Grit 1/2\\"' in (out / name).read_text(encoding="utf-8")

    def test_transcript_takes_rulesets(self) -> None:
        """`transcript reprocess --help` lists `--rulesets`, and so does `serve --help`."""
        for args in (["transcript", "reprocess", "--help"], ["serve", "--help"]):
            assert "--rulesets DIR" in invoke(main, *args).stdout

    def test_rulesets_folder_must_exist(self, tmp_path: Path) -> None:
        """A `--rulesets` folder that does not exist is a usage error."""
        ran = invoke(main, "validate", BORROWER, "--rulesets", tmp_path / "nowhere")
        assert ran.returncode == 2


def _imports(module: str) -> set[str]:
    """The gmtags modules `module` imports anywhere in its file (inside functions too)."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("gmtags")}


class TestImports:
    def test_borrow_never_imports_load(self) -> None:
        """`load` reads its borrowed catalogs through `borrow`, and `borrow` reads its lenders
        through `read` (as `load` does): no chain of imports leads from `borrow` to `load`."""
        seen: set[str] = set()
        todo = ["gmtags.ruleset.borrow"]
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                todo.extend(_imports(module))
        assert "gmtags.ruleset.read" in seen
        assert "gmtags.ruleset.load" not in seen
