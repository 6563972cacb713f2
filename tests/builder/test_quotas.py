"""Counted picks: `quotas`, `distinctBy` and `quotaBelow` on catalog steps and entry choices
(004 1.151, "Elecciones contadas"; BUILDER G6, G8, G9, G14), on the counted-choices sample."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import BuildResult, Ruleset, build_character, load_ruleset
from gmtags.builder import quotas
from gmtags.ruleset.catalogs import CatalogEntry, Quota, QuotaBelow
from tests.builder.samples import BUILDERS

FATE = BUILDERS / "fate-builder.json"

PYRAMID = [
    "fight-4",
    "athletics-3",
    "notice-3",
    "burglary-2",
    "contacts-2",
    "crafts-2",
    "deceive-1",
    "drive-1",
    "empathy-1",
    "lore-1",
]


@pytest.fixture(scope="module")
def fate() -> Ruleset:
    return load_ruleset(FATE)


def build(
    ruleset: Ruleset, choices: dict[str, list[str]] | None = None, **steps: Any
) -> BuildResult:
    answers = {"v": 1, "seed": 1, "steps": steps, "choices": choices or {}}
    return build_character(ruleset, answers)


def picks(**steps: list[str]) -> dict[str, Any]:
    return {step: {"picks": chosen} for step, chosen in steps.items()}


def step(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def why(result: BuildResult, step_id: str) -> dict[str, str]:
    return {i["answer"]: i["reason"] for i in step(result, step_id)["inactive"]}


def rows(result: BuildResult, list_id: str, column: str) -> list[Any]:
    return [row[column] for row in result.card.get("lists", {}).get(list_id, [])]


class TestQuotas:
    def test_fate_pyramid_complete(self, fate: Ruleset) -> None:
        """004: the Fate pyramid (one +4, two +3, three +2, four +1, each skill once) is met:
        every pick counts, the badge is 0 and each pick writes its row."""
        result = build(fate, **picks(ratings=PYRAMID))
        assert step(result, "ratings")["active"] == PYRAMID
        assert result.pending["ratings"] == 0
        assert step(result, "ratings")["reasons"] == []
        assert sorted(rows(result, "skill_ratings", "rating")) == [1, 1, 1, 1, 2, 2, 2, 3, 3, 4]

    def test_a_quota_max_makes_later_matching_picks_inactive(self, fate: Ruleset) -> None:
        """004: "los máximos desactivan más selecciones coincidentes": a second +4 is kept,
        inactive, and writes nothing; the earlier one counts (BUILDER §3.3)."""
        result = build(fate, **picks(ratings=["fight-4", "notice-4", "athletics-3"]))
        assert step(result, "ratings")["active"] == ["fight-4", "athletics-3"]
        assert why(result, "ratings") == {"notice-4": "rating 4 takes 1"}
        assert "Notice" not in rows(result, "skill_ratings", "skill")
        assert result.answers["steps"]["ratings"]["picks"] == ["fight-4", "notice-4", "athletics-3"]

    def test_a_quota_min_adds_to_the_badge_while_unmet(self, fate: Ruleset) -> None:
        """004: "Los mínimos afectan a la insignia": ten picks all at +1 leave four active and
        six missing, counted once (the step's shortfall and the quotas' agree), each unmet
        quota named among the reasons."""
        ones = [f"{s}-1" for s in ("athletics", "burglary", "contacts", "crafts", "deceive")]
        ones += [f"{s}-1" for s in ("drive", "empathy", "fight", "investigate", "lore")]
        result = build(fate, **picks(ratings=ones))
        assert len(step(result, "ratings")["active"]) == 4
        assert result.pending["ratings"] == 6
        assert step(result, "ratings")["reasons"] == [
            "rating 4: 0 of at least 1",
            "rating 3: 0 of at least 2",
            "rating 2: 0 of at least 3",
        ]

    def test_quota_shortfalls_count_where_the_step_size_is_met(self) -> None:
        """A quota min the step's own min does not ask for still counts in the badge."""
        entries = [entry("a", rating=1), entry("b", rating=1)]
        rules = Rules(quotas=[Quota(filter="rating", value=4, min=1, max=1)])
        tally = quotas.count(rules, entries, 10)
        assert tally.active == ["a", "b"]
        assert tally.short == 1


class TestDistinctBy:
    def test_picks_may_not_share_the_filter_value(self, fate: Ruleset) -> None:
        """004 `distinctBy: "skill"`: Fight at +4 and again at +3 cannot both count."""
        result = build(fate, **picks(ratings=["fight-4", "fight-3", "notice-3"]))
        assert step(result, "ratings")["active"] == ["fight-4", "notice-3"]
        assert why(result, "ratings") == {"fight-3": "shares skill 'fight' with an earlier pick"}

    def test_no_tag_of_a_tags_filter_is_shared(self) -> None:
        """004: "ni ninguna etiqueta, en un filtro de etiquetas"."""
        entries = [entry("a", kinds=["fire", "air"]), entry("b", kinds=["water", "air"])]
        entries.append(entry("c", kinds=["earth"]))
        tally = quotas.count(Rules(distinct_by="kinds"), entries, 10)
        assert tally.active == ["a", "c"]
        assert tally.inactive == [
            {"answer": "b", "reason": "shares kinds 'air' with an earlier pick"}
        ]

    def test_an_entry_lacking_the_filter_cannot_count(self, fate: Ruleset) -> None:
        """004: "una entrada a la que le falte ese filtro no puede contar" (the Brawler's stunt
        slot is distinct by skill; Drifter names no skill)."""
        chosen = {"archetype/stunts": ["killer-blow", "drifter", "sprinter"]}
        result = build(fate, chosen, **picks(archetype=["brawler"]))
        slot = step(result, "stunts")["choices"][0]
        assert slot["active"] == ["killer-blow", "sprinter"]
        assert slot["inactive"] == [
            {"answer": "drifter", "reason": "has no 'skill' to tell it apart (distinctBy)"}
        ]
        assert slot["pending"] == 1

    def test_without_distinct_by_picks_are_distinct_by_entry_id(self, fate: Ruleset) -> None:
        """004: "Si no, la distinción es por ID de entrada": the Drifter's slot takes two Fight
        stunts, but not one stunt twice."""
        chosen = {"archetype/drift": ["killer-blow", "killer-blow", "riposte"]}
        result = build(fate, chosen, **picks(archetype=["drifter"]))
        slot = step(result, "stunts")["choices"][0]
        assert slot["active"] == ["killer-blow", "riposte"]
        assert [i["answer"] for i in slot["inactive"]] == ["killer-blow"]
        assert rows(result, "stunts", "name") == ["Killer Blow", "Riposte"]


class TestQuotaBelow:
    def test_genesys_pyramid_holds(self, fate: Ruleset) -> None:
        """004 `quotaBelow: {filter: tier}`: three tier 1, two tier 2, one tier 3 all count."""
        chosen = ["grit", "toughened", "parry", "dodge", "side-step", "dual-wielder"]
        result = build(fate, **picks(talents=chosen))
        assert step(result, "talents")["active"] == chosen
        assert result.pending["talents"] == 0

    def test_strictly_more_below(self, fate: Ruleset) -> None:
        """One tier 1 talent does not hold up one tier 2 talent ("estrictamente más")."""
        result = build(fate, **picks(talents=["dodge", "grit"]))
        assert step(result, "talents")["active"] == ["grit"]
        assert why(result, "talents") == {
            "dodge": "needs more picks at tier 1 than at 2 (quotaBelow)"
        }

    def test_removing_a_support_leaves_the_latest_higher_picks_inactive(
        self, fate: Ruleset
    ) -> None:
        """004: "Quitar una selección que sirve de apoyo deja inactivas las selecciones
        superiores sobrantes, retirando sus concesiones y conservando sus respuestas": without
        Parry, the latest tier 2 (Side Step) goes, then the tier 3 it held up (BUILDER §3.28);
        their rows are withdrawn, their answers kept."""
        chosen = ["grit", "toughened", "dodge", "side-step", "dual-wielder"]
        result = build(fate, **picks(talents=chosen))
        assert step(result, "talents")["active"] == ["grit", "toughened", "dodge"]
        assert set(why(result, "talents")) == {"side-step", "dual-wielder"}
        assert rows(result, "talents", "name") == ["Grit", "Toughened", "Dodge"]
        assert result.answers["steps"]["talents"]["picks"] == chosen
        repaired = build(fate, **picks(talents=[*chosen, "parry"]))
        assert step(repaired, "talents")["active"] == [*chosen, "parry"]

    def test_a_gap_holds_nothing_up(self, fate: Ruleset) -> None:
        """Tier 1 is the base; a tier 5 pick needs a tier 4 below it, however many tier 1."""
        result = build(fate, **picks(talents=["grit", "toughened", "parry", "dedication"]))
        assert "dedication" in why(result, "talents")

    def test_entries_without_a_whole_tier_are_free(self) -> None:
        """Only whole tiers of 1 or more are held (module doc): a text or missing tier is not."""
        entries = [entry("a", tier="two"), entry("b"), entry("c", tier=2.5)]
        assert quotas.count(Rules(below="tier"), entries, 10).active == ["a", "b", "c"]


class TestEntryChoices:
    def test_quotas_on_an_entry_choice(self, fate: Ruleset) -> None:
        """004: entry choices take "las mismas quotas, distinctBy y quotaBelow … limitadas por
        max o count": the Brawler's slot wants a Fight stunt, a tier 2 stunt needs more
        tier 1 below it, and the slot takes 3."""
        chosen = {"archetype/stunts": ["sprinter", "riposte", "eagle-eyes"]}
        result = build(fate, chosen, **picks(archetype=["brawler"]))
        slot = step(result, "stunts")["choices"][0]
        assert slot["active"] == ["sprinter", "riposte", "eagle-eyes"]  # two tier 1, one 2
        assert slot["pending"] == 0

        chosen = {"archetype/stunts": ["riposte", "sprinter", "safecracker", "eagle-eyes"]}
        result = build(fate, chosen, **picks(archetype=["brawler"]))
        slot = step(result, "stunts")["choices"][0]
        assert slot["active"] == ["riposte", "sprinter", "safecracker"]
        assert slot["inactive"] == [{"answer": "eagle-eyes", "reason": "the choice takes 3"}]

        chosen = {"archetype/stunts": ["sprinter", "eagle-eyes", "safecracker"]}
        result = build(fate, chosen, **picks(archetype=["brawler"]))
        slot = step(result, "stunts")["choices"][0]
        assert slot["pending"] == 1  # no Fight stunt
        assert "skill fight: 0 of at least 1" in step(result, "stunts")["reasons"]

    def test_a_support_removed_in_an_entry_choice(self, fate: Ruleset) -> None:
        """A tier 2 stunt with one tier 1 below it is kept, inactive, and writes no row."""
        chosen = {"archetype/stunts": ["killer-blow", "parkour"]}
        result = build(fate, chosen, **picks(archetype=["brawler"]))
        slot = step(result, "stunts")["choices"][0]
        assert slot["active"] == ["killer-blow"]
        assert slot["inactive"][0]["answer"] == "parkour"
        assert rows(result, "stunts", "name") == ["Killer Blow"]


# -- direct checks of the counting -----------------------------------------------------


class Rules:
    """What a catalog step declares, for calling `quotas.count` directly."""

    def __init__(
        self,
        quotas: list[Quota] | None = None,
        distinct_by: str | None = None,
        below: str | None = None,
    ) -> None:
        self.quotas = quotas
        self.distinct_by = distinct_by
        self.quota_below = QuotaBelow(filter=below) if below else None


def entry(entry_id: str, **filters: Any) -> CatalogEntry:
    return CatalogEntry.model_validate(
        {
            "id": entry_id,
            "label": entry_id.title(),
            "filters": filters,
            "rows": [{"list": "x", "values": {"name": entry_id}}],
        }
    )


SKILLS = ("athletics", "burglary", "contacts", "fight", "notice")
RATING_IDS = [f"{s}-{r}" for s in SKILLS for r in (4, 3, 2, 1)] + ["nothing-9"]
TALENT_IDS = ["grit", "toughened", "parry", "dodge", "side-step", "dual-wielder", "dedication"]


class TestProperties:
    @settings(max_examples=40, deadline=None)
    @given(
        st.lists(st.sampled_from(RATING_IDS), max_size=14),
        st.lists(st.sampled_from(TALENT_IDS), max_size=9),
    )
    def test_active_picks_meet_every_rule(self, ratings: list[str], talents: list[str]) -> None:
        """Any picks never raise; the active picks meet every quota max, distinctBy, the
        step's size and quotaBelow, and every answer is kept."""
        ruleset = FATE_RULESET
        result = build(ruleset, **picks(ratings=ratings, talents=talents))
        active = step(result, "ratings")["active"]
        assert len(active) <= 10
        skills = [a.rsplit("-", 1)[0] for a in active]
        assert len(set(skills)) == len(skills)
        caps = {4: 1, 3: 2, 2: 3, 1: 4}
        for rating, cap in caps.items():
            assert sum(1 for a in active if a.endswith(f"-{rating}")) <= cap
        tiers = {"grit": 1, "toughened": 1, "parry": 1, "dodge": 2, "side-step": 2}
        tiers |= {"dual-wielder": 3, "dedication": 5}
        held = [tiers[t] for t in step(result, "talents")["active"]]
        for level in set(held) - {1}:
            assert held.count(level - 1) > held.count(level)
        assert result.answers["steps"]["ratings"]["picks"] == ratings

    @settings(max_examples=300, deadline=None)
    @given(
        st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "tier": st.one_of(st.integers(-1, 5), st.sampled_from([1.5, "x"])),
                    "kind": st.lists(st.sampled_from("abc"), max_size=2),
                    "rating": st.integers(1, 3),
                },
            ),
            max_size=12,
        ),
        st.integers(0, 12),
        st.booleans(),
    )
    def test_count_is_consistent(
        self, shapes: list[dict[str, Any]], most: int, distinct: bool
    ) -> None:
        """`quotas.count` on any entries: active and inactive split the picks, in order; the
        active ones meet the size, the quota maxima, distinctBy and quotaBelow."""
        entries = [entry(f"e{n}", **shape) for n, shape in enumerate(shapes)]
        rules = Rules(
            quotas=[Quota(filter="rating", value=r, min=0, max=r) for r in (1, 2)],
            distinct_by="kind" if distinct else None,
            below="tier",
        )
        tally = quotas.count(rules, entries, most)
        ids = [e.id for e in entries]
        out = [i["answer"] for i in tally.inactive]
        assert sorted(tally.active + out) == sorted(ids)
        assert tally.active == [i for i in ids if i in tally.active]
        chosen = [e for e in entries if e.id in tally.active]
        assert len(chosen) <= most
        for quota in rules.quotas:
            assert sum(1 for e in chosen if quotas.matches(quota, e)) <= quota.max
        if distinct:
            tags = [t for e in chosen for t in set((e.filters or {})["kind"])]
            assert len(tags) == len(set(tags))
        levels = [quotas.tier(e, "tier") for e in chosen]
        for level in {n for n in levels if n is not None and n > 1}:
            assert levels.count(level - 1) > levels.count(level)


FATE_RULESET = load_ruleset(FATE)
