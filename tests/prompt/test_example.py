"""The worked exchange of the GM instructions (SPEC §2.1): one check tag and the receipt
the engine writes for it, for the ruleset's own check kind."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

from gmtags import Ruleset, Snapshot, load_ruleset, process
from gmtags.checks.kinds import KINDS
from gmtags.prompt import gm_instructions
from gmtags.prompt.example import SAMPLE_NAME, SEED, _target, worked_exchange
from gmtags.ruleset.played import effective_ruleset
from tests.conftest import FIXTURES, ROOT

RULESETS = sorted(
    path
    for folder in ("checks", "sheets", "reference")
    for path in (FIXTURES / "rulesets" / folder).glob("*.json")
)
IDS = [f"{path.parent.name}/{path.stem}" for path in RULESETS]


def _ruleset(path: pathlib.Path) -> Ruleset:
    return load_ruleset(path)


class TestWorkedExchange:
    @pytest.mark.parametrize("path", RULESETS, ids=IDS)
    def test_the_receipt_is_what_the_engine_writes(self, path: pathlib.Path) -> None:
        """The receipt is the engine's own for the tag, the sample card and the seed: applying
        the tag again gives it byte for byte (never a hand-typed receipt)."""
        ruleset = _ruleset(path)
        exchange = worked_exchange(ruleset)
        assert exchange is not None
        label, card = _target(ruleset) or ("", {})
        snapshot = Snapshot.model_validate({"gameCharacterCards": {SAMPLE_NAME: card}})
        result = process(exchange.tag, ruleset, snapshot, seed=SEED)
        assert result.text == exchange.receipt
        assert 'result="refused"' not in exchange.receipt
        assert f'skill="{label}"' in exchange.tag and f'who="{SAMPLE_NAME}"' in exchange.tag

    @pytest.mark.parametrize("path", RULESETS, ids=IDS)
    def test_the_tag_is_one_canonical_tag(self, path: pathlib.Path) -> None:
        """The tag the GM is shown is one skill check in the canonical form: the engine reads
        it with nothing to repair (SPEC §2.1 `recovered=`) and its receipt opens like it."""
        ruleset = _ruleset(path)
        exchange = worked_exchange(ruleset)
        assert exchange is not None
        receipts = process(f"Narration {exchange.tag} after.", ruleset, seed=SEED).receipts
        assert len(receipts) == 1 and receipts[0].tag == "skill_check"
        assert "recovered" not in dict(receipts[0].outputs)
        assert exchange.receipt.startswith(exchange.tag.split('" ')[0])

    @pytest.mark.parametrize("kind", sorted(KINDS))
    def test_one_for_every_kind(self, kind: str) -> None:
        """Every resolution kind's rulesets get an exchange whose receipt is that kind's."""
        rulesets = [r for r in map(_ruleset, RULESETS) if r.resolution_rules.kind_name == kind]
        assert rulesets, kind
        for ruleset in rulesets:
            exchange = worked_exchange(ruleset)
            assert exchange is not None
            assert f'resolution="{KINDS[kind].writes}"' in exchange.receipt

    def test_a_skill_and_a_rung_of_the_ruleset(self) -> None:
        """The check names the ruleset's first skill and the dc of its ladder's middle rung."""
        ruleset = load_ruleset(FIXTURES / "rulesets" / "reference" / "ember-roads.json")
        exchange = worked_exchange(ruleset)
        assert exchange is not None
        assert exchange.tag == f'[skill_check: skill="Scrap" dc="8" who="{SAMPLE_NAME}"]'

    def test_roll_against_keeps_the_rung(self) -> None:
        """Roll-against writes the rung by name: there dc moves the sheet's target."""
        ruleset = load_ruleset(FIXTURES / "rulesets" / "checks" / "coc.json")
        exchange = worked_exchange(ruleset)
        assert exchange is not None and 'difficulty="Hard"' in exchange.tag

    def test_the_played_ladder(self) -> None:
        """With a layer active, the example reads the ladder the game plays (SPEC §4)."""
        ruleset = load_ruleset(FIXTURES / "rulesets" / "layers.json")
        base, day = (
            worked_exchange(ruleset),
            worked_exchange(effective_ruleset(ruleset, ["long_day"])),
        )
        assert base is not None and day is not None
        assert 'dc="6"' in base.tag and 'dc="7"' in day.tag
        reminder = gm_instructions(
            ruleset, Snapshot.model_validate({"rulesetLayers": ["long_day"]})
        )
        assert day.receipt in reminder.reminder

    def test_made_once_per_ruleset(self) -> None:
        """The engine runs once per ruleset object: the next turn reads the kept exchange."""
        ruleset = load_ruleset(FIXTURES / "rulesets" / "reference" / "gravewatch.json")
        assert worked_exchange(ruleset) is worked_exchange(ruleset)


class TestInTheInstructions:
    @pytest.mark.parametrize("path", RULESETS, ids=IDS)
    def test_the_reminder_opens_with_it(self, path: pathlib.Path) -> None:
        """The reminder's check line is the worked exchange: the tag, then the receipt."""
        ruleset = _ruleset(path)
        exchange = worked_exchange(ruleset)
        assert exchange is not None
        line = gm_instructions(ruleset).reminder.splitlines()[1]
        assert line.startswith("- Check, for example: ")
        assert line.index(exchange.tag) < line.index(exchange.receipt)

    def test_results_come_after_the_tag(self) -> None:
        """SPEC §2.1: the system part says the result comes after the tag and is narrated from
        the receipt."""
        system = gm_instructions(_ruleset(RULESETS[0])).system
        assert "writing each result into its tag after you write it" in system
        assert "narrate the outcome only from the receipt" in system

    def test_every_refusal_reason_is_explained(self) -> None:
        """SPEC §2.1: each refusal reason a model can correct is named with what to do."""
        system = gm_instructions(_ruleset(RULESETS[0])).system
        for reason in ("malformed", "placeholder", "unknown-dc", "ambiguous-who", "too-many"):
            assert f"{reason} (" in system, reason


class TestLayering:
    ENGINE = ("checks", "engine", "sheet", "state", "stream", "tags", "ruleset")

    def test_the_engine_never_imports_the_prompt(self) -> None:
        """The arrows point down: no engine module imports `gmtags.prompt`, so the prompt may
        use `gmtags.process` without a cycle."""
        package = ROOT / "gmtags"
        files = [package / "process.py"] + [
            path for name in self.ENGINE for path in (package / name).rglob("*.py")
        ]
        for path in files:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = (
                    [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else []
                )
                assert not any(n.startswith("gmtags.prompt") for n in names), path

    def test_importing_the_engine_loads_no_prompt(self) -> None:
        """`import gmtags` and `gmtags.process` load nothing of `gmtags.prompt`."""
        code = (
            "import sys, gmtags, gmtags.process, gmtags.stream\n"
            "print([m for m in sys.modules if m.startswith('gmtags.prompt')])"
        )
        ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.strip() == "[]"
