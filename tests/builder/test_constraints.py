"""Creation rules, `sheet.builder.constraints` (004 1.155; BUILDER G15): a badge and a label on
their step while unmet, never blocking anything."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gmtags import BuildResult, Ruleset, build_character, load_ruleset
from tests.builder.samples import BUILDERS, builder, points

FATE: dict[str, Any] = json.loads((BUILDERS / "fate-builder.json").read_text(encoding="utf-8"))


def fate(*rules: dict[str, Any], when: dict[str, Any] | None = None) -> Ruleset:
    """The counted-choices sample with these constraints added (and a `when` on contacts)."""
    data = json.loads(json.dumps(FATE))
    builder(data)["constraints"] += list(rules)
    if when is not None:
        next(s for s in builder(data)["steps"] if s["id"] == "contacts")["when"] = when
    return load_ruleset(data)


@pytest.fixture(scope="module")
def sample() -> Ruleset:
    return fate()


def build(ruleset: Ruleset, card: dict[str, Any] | None = None, **steps: Any) -> BuildResult:
    return build_character(ruleset, {"v": 1, "seed": 1, "steps": steps}, card)


def contacts(*names: str) -> dict[str, Any]:
    return {"rows": [{"name": name, "where": "Town"} for name in names]}


def reasons(result: BuildResult, step_id: str) -> list[str]:
    return next(s["reasons"] for s in result.steps if s["id"] == step_id)


DISTINCT = "Two contacts cannot share a name."
REFRESH = "Refresh is at least 1."
APPROVAL = "The GM approves the character."


class TestRows:
    def disadvantage_cap(self) -> Ruleset:
        """The point-based sample with the seed's cap: disadvantages give at most 50 points."""
        data = points()
        bonus = next(p for p in builder(data)["pools"] if p["id"] == "bonus")
        bonus.update(creditLimit=100)
        bonus.pop("caps")
        traits = next(x for x in data["sheet"]["lists"] if x["id"] == "traits")
        traits["columns"][1].update(min=-50, max=50)
        cap = builder(data)["constraints"][0]
        cap.update(min=-50, label="Disadvantages give at most 50 points.")
        return load_ruleset(data)

    def test_disadvantage_cap(self) -> None:
        """004 `disadvantage_cap`: the sum of `cost` over the traits whose cost is below 0 is at
        least −50; 55 points of disadvantages badge the traits step, and nothing else moves."""
        ruleset = self.disadvantage_cap()
        over = [{"name": "Bad Sight", "cost": -30}, {"name": "Enemy", "cost": -25}]
        fine = [{"name": "Bad Sight", "cost": -30}, {"name": "Enemy", "cost": -20}]
        merit = [{"name": "Ally", "cost": 40}]
        result = build(ruleset, traits={"rows": over + merit})
        assert "Disadvantages give at most 50 points." in reasons(result, "traits")
        kept = build(ruleset, traits={"rows": fine + merit})
        assert reasons(kept, "traits") == []
        assert result.pending["traits"] == kept.pending["traits"] + 1
        assert len(result.card["lists"]["traits"]) == 3  # never blocking: every row written

    def test_count_of_rows(self) -> None:
        """rows without `sum` counts the rows the filter keeps (`equals`, case-insensitive)."""
        rule = {
            "id": "one_in_town",
            "label": "At most one contact in town.",
            "step": "contacts",
            "rows": {"list": "contacts", "filter": {"column": "where", "equals": "town"}},
            "max": 1,
        }
        ruleset = fate(rule)
        assert "At most one contact in town." in reasons(
            build(ruleset, contacts=contacts("Ann", "Bob")), "contacts"
        )
        assert reasons(build(ruleset, contacts=contacts("Ann")), "contacts") == []

    def test_above_and_a_reference_bound(self) -> None:
        """`above` keeps number cells over it; a bound may be a reference read from the sheet."""
        rule = {
            "id": "high_ratings",
            "label": "No more skills above +2 than Refresh.",
            "step": "ratings",
            "rows": {"list": "skill_ratings", "filter": {"column": "rating", "above": 2}},
            "max": {"field": "refresh"},
        }
        ruleset = fate(rule)
        picks = {"picks": ["fight-4", "notice-3", "lore-3"]}
        low = build(ruleset, ratings=picks, details={"fields": {"refresh": 2}})
        assert rule["label"] in reasons(low, "ratings")
        lifted = build(ruleset, ratings=picks, details={"fields": {"refresh": 3}})
        assert rule["label"] not in reasons(lifted, "ratings")


class TestDistinct:
    def test_names_distinct_without_case_or_spaces(self, sample: Ruleset) -> None:
        """004 `distinct`: "sin distinguir mayúsculas de minúsculas ni espacios"."""
        result = build(sample, contacts=contacts("Bob Smith", "Ann", " bob  SMITH"))
        assert reasons(result, "contacts") == [DISTINCT]
        assert result.pending["contacts"] == 1
        assert len(result.card["lists"]["contacts"]) == 3

    def test_distinct_names_and_blank_cells(self, sample: Ruleset) -> None:
        """Different names meet it, and a blank cell is no value (module doc)."""
        assert reasons(build(sample, contacts=contacts("Bob", "Ann")), "contacts") == []
        rows = {"rows": [{"where": "Port"}, {"where": "Town"}, {"name": "Ann"}]}
        assert DISTINCT not in reasons(build(sample, contacts=rows), "contacts")


class TestValueAndApproved:
    def test_value_min(self, sample: Ruleset) -> None:
        """`value` with `min`: a Refresh of 0 badges the details step until raised."""
        low = build(sample, details={"fields": {"refresh": 0, "approved": True}})
        assert reasons(low, "details") == [REFRESH]
        assert low.pending["details"] == 1
        fine = build(sample, details={"fields": {"refresh": 2, "approved": True}})
        assert reasons(fine, "details") == []
        assert fine.pending["details"] == 0

    def test_approved_boolean_field(self, sample: Ruleset) -> None:
        """004 `approved: fieldId`: "un campo booleano que debe estar activado", as the GM's
        approval; a hand-written approval on the card counts too."""
        waiting = build(sample, details={"fields": {"refresh": 2, "approved": False}})
        assert reasons(waiting, "details") == [APPROVAL]
        by_hand = build(sample, {"fields": {"approved": True}}, details={"fields": {"refresh": 2}})
        assert reasons(by_hand, "details") == []


class TestWhen:
    def test_when_holds_the_rule_only_above_zero(self) -> None:
        """A rule's optional `when` (here a strict GM) turns it on."""
        rule = {
            "id": "few_contacts",
            "label": "At most one contact.",
            "step": "contacts",
            "when": {"field": "strict"},
            "rows": {"list": "contacts"},
            "max": 1,
        }
        ruleset = fate(rule)
        two = contacts("Ann", "Bob")
        assert "At most one contact." not in reasons(build(ruleset, contacts=two), "contacts")
        on = build(ruleset, {"fields": {"strict": 1}}, contacts=two)
        assert "At most one contact." in reasons(on, "contacts")

    def test_a_hidden_step_shows_no_rule(self) -> None:
        """A rule on a hidden step adds nothing: a hidden step's badge is 0 (SPEC §10)."""
        ruleset = fate(when={"field": "strict"})
        result = build(ruleset, contacts=contacts("Ann", "ann"))
        assert result.pending["contacts"] == 0
        assert reasons(result, "contacts") == []


class TestNeverBlocking:
    def test_every_unmet_rule_badges_and_nothing_else_changes(self, sample: Ruleset) -> None:
        """004: "Una regla incumplida nunca bloquea Back, Next ni All fields": three unmet
        rules leave every answer and every value written."""
        answers = {
            "contacts": contacts("Ann", "ANN"),
            "details": {"fields": {"refresh": -1}},
            "ratings": {"picks": ["fight-4"]},
        }
        result = build(sample, **answers)
        assert reasons(result, "contacts") == [DISTINCT]
        assert reasons(result, "details") == [REFRESH, APPROVAL]
        assert result.card["fields"]["refresh"] == -1
        assert [r["name"] for r in result.card["lists"]["contacts"]] == ["Ann", "ANN"]
        assert result.card["lists"]["skill_ratings"][0]["skill"] == "Fight"
        assert result.problems == []
