"""gmtags/checks/kinds.py: one registry of resolution kinds, every kind with every part."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from gmtags import Snapshot, load_ruleset, process
from gmtags.checks.kinds import KINDS, kind_of
from gmtags.limits import DEFAULT_LIMITS
from gmtags.ruleset.resolution import MODELS, ResolutionRules
from gmtags.ruleset.resolution.shared import ResolutionKind
from gmtags.tags.parse import parse_span
from gmtags.tags.scan import find_spans
from gmtags.transcript.audit import audit_check

CHECKS = Path(__file__).resolve().parents[2] / "fixtures" / "rulesets" / "checks"
ONE_OF_EACH = {
    "dice-sum": ("two-d6.json", "Climb"),
    "roll-against": ("coc.json", "Spot Hidden"),
    "dice-pool": ("exwod.json", "Ward"),
    "dice-highest": ("rooks.json", "Hunt"),
    "symbol-pool": ("genesys.json", "Athletics"),
}
PARTS = ("name", "model", "buys", "charms", "writes", "resolve", "tray_limit", "reminder")
PARTS += ("audit", "faces")


class TestRegistry:
    def test_every_kind_the_seeds_name(self) -> None:
        """000, "Tipos de resolución": the registry holds exactly the five kinds."""
        assert set(KINDS) == set(ResolutionKind.__args__)  # type: ignore[attr-defined]

    def test_registry_and_models_agree(self) -> None:
        """Each kind's model is the one `resolution.kind` parses with, and names its kind."""
        assert set(KINDS) == set(MODELS)
        for name, kind in KINDS.items():
            assert kind.model is MODELS[name]
            assert kind.name == name == kind.model.kind_literal()

    @pytest.mark.parametrize("name", sorted(KINDS))
    def test_every_kind_provides_every_part(self, name: str) -> None:
        """A kind brings its model, resolver, spend, tray limit, reminder, audit and faces."""
        kind = KINDS[name]
        for part in PARTS:
            assert getattr(kind, part, None) is not None, part
        for part in ("resolve", "tray_limit", "reminder", "audit", "faces"):
            assert callable(getattr(kind, part)), part
        assert issubclass(kind.model, ResolutionRules)
        assert kind.writes in {"sum", "successes", "against"}

    def test_spend_and_charms_follow_000(self) -> None:
        """000, "Gastar…": only dice-pool, dice-highest and symbol-pool declare spend; only
        dice-pool buys successes and rerolls, and only it applies a charm."""
        buys = {name: kind.buys for name, kind in KINDS.items()}
        assert buys == {
            "dice-sum": frozenset(),
            "roll-against": frozenset(),
            "dice-pool": frozenset({"successes", "dice", "reroll"}),
            "dice-highest": frozenset({"dice"}),
            "symbol-pool": frozenset({"dice"}),
        }
        assert [name for name, kind in KINDS.items() if kind.charms] == ["dice-pool"]


class TestPartsAtWork:
    @pytest.mark.parametrize("name", sorted(ONE_OF_EACH))
    def test_parts_on_a_real_check(self, name: str) -> None:
        """On a ruleset of the kind: the reminder teaches it, the tray allows a throw, and the
        receipt a check writes names the kind's resolution and passes the kind's audit."""
        file, skill = ONE_OF_EACH[name]
        ruleset = load_ruleset(CHECKS / file)
        rules = ruleset.resolution_rules
        kind = kind_of(rules)
        assert kind is KINDS[name]
        assert kind.reminder(rules) and all(isinstance(line, str) for line in kind.reminder(rules))
        assert kind.tray_limit(rules, DEFAULT_LIMITS) >= DEFAULT_LIMITS.dice_per_roll
        for seed in range(20):
            text = process(f'[skill_check: skill="{skill}" dc="2"]', ruleset, Snapshot(), seed).text
            (span,) = find_spans(text, DEFAULT_LIMITS)
            attrs = {a.key: a.value for a in parse_span(text, span, frozenset()).attrs}
            assert attrs["resolution"] == kind.writes
            assert audit_check(attrs, ruleset) == []

    def test_a_receipt_of_another_kind_is_reported(self) -> None:
        """A receipt claiming another kind's resolution contradicts the ruleset."""
        ruleset = load_ruleset(CHECKS / "two-d6.json")
        attrs = {"rolls": "3|4", "used": "7", "modifier": "0", "total": "7"}
        attrs |= {"result": "success", "resolution": "successes", "dice": "2d6"}
        assert audit_check(attrs, ruleset) == [
            "resolution='successes', but a dice-sum check writes 'sum'"
        ]

    def test_resolvers_take_the_kinds_model(self) -> None:
        """Each resolver is typed for its own kind's model."""
        for kind in KINDS.values():
            hints = inspect.get_annotations(kind.resolve, eval_str=True)
            assert hints["rules"] is kind.model
