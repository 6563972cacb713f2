"""symbol-pool checks (000, "symbol-pool: tirar dados narrativos y leer los símbolos").

Faces of the Genesys dice in `fixtures/rulesets/checks/genesys.json`, counting from 1:
ability 1 -, 2 s, 3 s, 4 ss, 5 a, 6 a, 7 sa, 8 aa;
proficiency 1 -, 2 s, 3 s, 4 ss, 5 ss, 6 a, 7 sa, 8 sa, 9 sa, 10 aa, 11 aa, 12 t;
difficulty 1 -, 2 f, 3 ff, 4 h, 5 h, 6 h, 7 hh, 8 fh;
challenge 1 -, 2 f, 3 f, 4 ff, 5 ff, 6 h, 7 h, 8 fh, 9 fh, 10 hh, 11 hh, 12 d;
boost 1 -, 2 -, 3 s, 4 sa, 5 aa, 6 a; setback 1 -, 2 -, 3 f, 4 f, 5 h, 6 h.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

import icepool

from gmtags import Ruleset, Snapshot, load_ruleset
from gmtags.checks.context import Bought, CheckInput
from gmtags.checks.dice import Tray
from gmtags.checks.symbol_pool import resolve_symbol_pool
from gmtags.engine.check_tag import check_receipt, read_request
from gmtags.limits import DEFAULT_LIMITS
from gmtags.ruleset.resolution import SymbolPool
from gmtags.sheet.numbers import check_number
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS, Receipt
from gmtags.tags.scan import find_spans
from tests.checks.conftest import CHECKS, Scripted, snapshot
from tests.checks.test_distributions import TRIALS, assert_matches

RAW: dict[str, Any] = json.loads((CHECKS / "checks/genesys.json").read_text(encoding="utf-8"))
GENESYS = load_ruleset(RAW)
KIRA = snapshot(
    {
        "Kira": {
            "abilities": {"brawn": 3, "agility": 2},
            "skills": {"athletics": "rank_one", "coordination": "rank_three"},
            "bonuses": {"stealth": 2},
        }
    }
)


def variant(**resolution: Any) -> Ruleset:
    """The Genesys fixture with some resolution keys replaced (None removes one)."""
    changed = {**RAW["resolution"], **resolution}
    return load_ruleset({**RAW, "resolution": {k: v for k, v in changed.items() if v is not None}})


def receipt(
    rules: Ruleset, text: str, state: Snapshot | None = None, dice: Iterable[int] | int = 1
) -> Receipt:
    """One check tag through the symbol-pool resolver, built as `apply_skill_check` builds it."""
    (span,) = list(find_spans(text, DEFAULT_LIMITS))
    tag = parse_span(text, span, ENGINE_ATTRS["skill_check"])
    request = read_request(tag, DEFAULT_LIMITS.integer_digits)
    assert request is not None
    number = check_number(rules, state or Snapshot(), request.who, request.name, request.with_)
    source = random.Random(dice) if isinstance(dice, int) else Scripted(dice)
    tray = Tray(source, 2 * DEFAULT_LIMITS.dice_per_roll)
    resolution = rules.resolution_rules
    assert isinstance(resolution, SymbolPool)
    record = resolve_symbol_pool(resolution, CheckInput(request, number, tray, DEFAULT_LIMITS))
    return check_receipt(record, tuple((attr.key, attr.value) for attr in tag.attrs))


def out(
    rules: Ruleset, text: str, state: Snapshot | None = None, dice: Iterable[int] | int = 1
) -> dict[str, str]:
    """The receipt's attributes as a dict (a check receipt has no bare flags)."""
    return {key: value or "" for key, value in receipt(rules, text, state, dice).outputs}


class TestPoolBuild:
    def test_larger_upgraded(self) -> None:
        """larger-upgraded: Brawn 3 and rank 1 throw three dice, one upgraded to proficiency."""
        got = out(GENESYS, '[skill_check: skill="Athletics" dc="0"]', KIRA, [1, 1, 1])
        assert (got["thrown"], got["pool"]) == ("proficiency|ability|ability", "3")

    def test_rank_larger_than_ability(self) -> None:
        """The larger of the two sets the dice and the smaller the upgrades: rank 3, Agility 2."""
        got = out(GENESYS, '[skill_check: skill="Coordination" dc="0"]', KIRA, [1, 1, 1])
        assert got["thrown"] == "proficiency|proficiency|ability"

    def test_sum_build(self) -> None:
        """build sum throws ability plus rank and upgrades none."""
        rules = variant(pool={"die": "ability", "upgrade": "proficiency", "build": "sum"})
        got = out(rules, '[skill_check: skill="Athletics" dc="0"]', KIRA, [1] * 4)
        assert got["thrown"] == "ability|ability|ability|ability"

    def test_pool_max(self) -> None:
        """pool.max caps the dice and the upgrades stay within them."""
        rules = variant(pool={"die": "ability", "upgrade": "proficiency", "max": 2})
        got = out(rules, '[skill_check: skill="Coordination" dc="0"]', KIRA, [1, 1])
        assert (got["thrown"], got["pool"]) == ("proficiency|proficiency", "2")

    def test_no_upgrade_die(self) -> None:
        """Without pool.upgrade larger-upgraded throws the larger number of plain dice."""
        rules = variant(pool={"die": "ability"}, allowOwnUpgrade=None)
        got = out(rules, '[skill_check: skill="Athletics" dc="0"]', KIRA, [1] * 3)
        assert got["thrown"] == "ability|ability|ability"

    def test_ability_check_has_rank_zero(self) -> None:
        """A pure characteristic check has rank zero: Brawn 3 throws three ability dice."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="0"]', KIRA, [1] * 3)
        assert got["thrown"] == "ability|ability|ability"

    def test_with_changes_the_characteristic(self) -> None:
        """with= changes the characteristic as in other checks: Athletics with Agility 2."""
        text = '[skill_check: skill="Athletics" with="Agility" dc="0"]'
        got = out(GENESYS, text, KIRA, [1, 1])
        assert (got["thrown"], got["with"]) == ("proficiency|ability", "Agility")

    def test_stranger_throws_no_pool(self) -> None:
        """A stranger has no sheet, so no characteristic or rank and no pool dice."""
        got = out(GENESYS, '[skill_check: skill="Athletics" who="Guard" dc="1"]', None, [2])
        assert (got["thrown"], got["pool"], got["result"]) == ("difficulty", "0", "failure")


class TestDifficulty:
    def test_dc_counts_opposing_dice(self) -> None:
        """dc= counts difficulty dice, and the receipt's dc is that count."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="2"]', KIRA, [1] * 5)
        assert (got["thrown"], got["dc"]) == ("ability|ability|ability|difficulty|difficulty", "2")

    def test_dc_clamps_to_max(self) -> None:
        """dc= is clamped to 0..difficulty.max (5)."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="9"]', KIRA, [1] * 8)
        assert (got["dc"], got["thrown"].count("difficulty")) == ("5", 5)

    def test_negative_dc_is_zero(self) -> None:
        """A negative dc= clamps to no opposing dice."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="-3"]', KIRA, [1] * 3)
        assert (got["dc"], got["thrown"]) == ("0", "ability|ability|ability")

    def test_rung(self) -> None:
        """difficulty= names a ladder rung whose dc counts the opposing dice."""
        got = out(GENESYS, '[skill_check: ability="Brawn" difficulty="hard"]', KIRA, [1] * 6)
        assert (got["dc"], got["difficulty"], got["thrown"].count("difficulty")) == (
            "3",
            "Hard",
            3,
        )

    def test_dc_beats_rung(self) -> None:
        """A dc= written beside difficulty= still sets the number of dice."""
        text = '[skill_check: ability="Brawn" difficulty="Hard" dc="1"]'
        got = out(GENESYS, text, KIRA, [1] * 4)
        assert (got["dc"], got["difficulty"]) == ("1", "Hard")

    def test_default_is_easiest_rung(self) -> None:
        """With neither dc= nor a rung the easiest rung applies."""
        got = out(GENESYS, '[skill_check: ability="Brawn"]', KIRA, [1] * 4)
        assert (got["dc"], got["thrown"].count("difficulty")) == ("1", 1)

    def test_upgrade_replaces_dice(self) -> None:
        """upgrade="1" throws one challenge die in place of a difficulty die."""
        text = '[skill_check: ability="Brawn" dc="2" upgrade="1"]'
        got = out(GENESYS, text, KIRA, [1, 1, 1, 1, 1])
        assert got["thrown"] == "ability|ability|ability|challenge|difficulty"

    def test_upgrade_never_adds(self) -> None:
        """upgrade= is capped at the dice thrown: it never adds dice beyond the difficulty."""
        text = '[skill_check: ability="Brawn" dc="2" upgrade="5"]'
        got = out(GENESYS, text, KIRA, [1] * 5)
        assert got["thrown"] == "ability|ability|ability|challenge|challenge"
        none = out(GENESYS, '[skill_check: ability="Brawn" dc="0" upgrade="2"]', KIRA, [1] * 3)
        assert none["thrown"] == "ability|ability|ability"

    def test_no_difficulty_key(self) -> None:
        """A ruleset without difficulty throws no opposing dice whatever dc= says."""
        rules = variant(difficulty=None, difficultyLadder=None)
        got = out(rules, '[skill_check: ability="Brawn" dc="3"]', KIRA, [1] * 3)
        assert (got["dc"], got["thrown"]) == ("0", "ability|ability|ability")


class TestBoostSetback:
    def test_bonus_adds_boost(self) -> None:
        """bonus="+2" adds two boost dice."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="0" bonus="+2"]', KIRA, [1] * 5)
        assert (got["thrown"].count("boost"), got["bonus"]) == (2, "+2")

    def test_boost_max(self) -> None:
        """Boost dice stop at boost.max (3); the receipt's bonus is what could apply."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="0" bonus="+9"]', KIRA, [1] * 6)
        assert (got["thrown"].count("boost"), got["bonus"]) == (3, "+3")

    def test_negative_bonus_adds_setback(self) -> None:
        """bonus="-2" adds two setback dice."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="0" bonus="-2"]', KIRA, [1] * 5)
        assert (got["thrown"].count("setback"), got["bonus"]) == (2, "-2")
        assert "setback" not in got

    def test_sheet_bonus_combines_before_caps(self) -> None:
        """The sheet's +2 and the tag's -1 combine first: one boost die, no setback."""
        text = '[skill_check: skill="Stealth" dc="0" bonus="-1"]'
        got = out(GENESYS, text, KIRA, [1] * 3)
        assert got["thrown"] == "ability|ability|boost"

    def test_adjust_and_wounds_are_signed_bonus(self) -> None:
        """An adjust entry of -2 becomes two setback dice."""
        rules = variant(adjust=[{"value": {"const": -2}}])
        got = out(rules, '[skill_check: ability="Brawn" dc="0"]', KIRA, [1] * 5)
        assert (got["thrown"].count("setback"), got["adjust"]) == (2, "-2")

    def test_separate_setback(self) -> None:
        """bonus="2" setback="1" throws both sides; the receipt records the separate die."""
        text = '[skill_check: ability="Brawn" dc="0" bonus="2" setback="1"]'
        got = out(GENESYS, text, KIRA, [1] * 6)
        assert (got["thrown"].count("boost"), got["thrown"].count("setback")) == (2, 1)
        assert got["setback"] == "1"

    def test_setback_shares_the_cap(self) -> None:
        """A negative bonus adds to setback=, the total held to setback.max (3)."""
        text = '[skill_check: ability="Brawn" dc="0" bonus="-2" setback="2"]'
        got = out(GENESYS, text, KIRA, [1] * 6)
        assert (got["thrown"].count("setback"), got["setback"]) == (3, "1")

    def test_setback_left_out_when_nothing_added(self) -> None:
        """setback= that adds no die after the shared cap is left off the receipt."""
        text = '[skill_check: ability="Brawn" dc="0" bonus="-3" setback="2"]'
        got = out(GENESYS, text, KIRA, [1] * 6)
        assert got["thrown"].count("setback") == 3 and "setback" not in got

    def test_negative_setback_ignored(self) -> None:
        """setback= takes non-negative whole numbers; a negative one adds nothing."""
        got = out(GENESYS, '[skill_check: ability="Brawn" dc="0" setback="-2"]', KIRA, [1] * 3)
        assert "setback" not in got["thrown"]

    def test_no_boost_die_declared(self) -> None:
        """A ruleset without boost dice ignores a positive bonus."""
        rules = variant(boost=None)
        got = out(rules, '[skill_check: ability="Brawn" dc="0" bonus="+2"]', KIRA, [1] * 3)
        assert (got["thrown"], "bonus" in got) == ("ability|ability|ability", False)


class TestOwnUpgrade:
    def test_upgrades_plain_dice(self) -> None:
        """upgradeOwn="1" upgrades one more of the roller's dice."""
        text = '[skill_check: skill="Athletics" dc="0" upgradeOwn="1"]'
        got = out(GENESYS, text, KIRA, [1] * 3)
        assert (got["thrown"], got["upgradeOwn"]) == ("proficiency|proficiency|ability", "1")

    def test_adds_upgraded_dice_within_max(self) -> None:
        """Once every die is upgraded each further upgrade adds one, up to pool.max (6)."""
        text = '[skill_check: skill="Athletics" dc="0" upgradeOwn="9"]'
        got = out(GENESYS, text, KIRA, [1] * 6)
        assert (got["thrown"], got["pool"], got["upgradeOwn"]) == (
            "|".join(["proficiency"] * 6),
            "6",
            "5",
        )

    def test_ignored_unless_allowed(self) -> None:
        """Without allowOwnUpgrade, upgradeOwn= is ignored and not recorded."""
        rules = variant(allowOwnUpgrade=False)
        text = '[skill_check: skill="Athletics" dc="0" upgradeOwn="2"]'
        got = out(rules, text, KIRA, [1] * 3)
        assert (got["thrown"], "upgradeOwn" in got) == ("proficiency|ability|ability", False)

    def test_works_with_sum(self) -> None:
        """upgradeOwn also upgrades a sum-built pool."""
        rules = variant(pool={"die": "ability", "upgrade": "proficiency", "build": "sum"})
        text = '[skill_check: skill="Athletics" dc="0" upgradeOwn="2"]'
        got = out(rules, text, KIRA, [1] * 4)
        assert got["thrown"] == "proficiency|proficiency|ability|ability"

    def test_zero_is_left_out(self) -> None:
        """upgradeOwn="0" applies nothing and is omitted from the receipt."""
        text = '[skill_check: skill="Athletics" dc="0" upgradeOwn="0"]'
        assert "upgradeOwn" not in out(GENESYS, text, KIRA, [1] * 3)


class TestSymbols:
    def test_seed_example(self) -> None:
        """Counts then cancels: prof t, ability sa and ss, difficulty f and h leave 2s 1a 1t."""
        text = '[skill_check: skill="Athletics" dc="2"]'
        got = out(GENESYS, text, KIRA, [12, 7, 6, 1, 4])
        assert (got["symbols"], got["total"], got["used"], got["modifier"]) == (
            "2s 1a 1t",
            "2",
            "2",
            "0",
        )
        assert got["rolls"] == "12|7|6|1|4"
        assert got["result"] == "critical_success"

    def test_triumph_counts_before_cancelling(self) -> None:
        """A triumph's success is cancelled by a failure, yet the triumph stays and marks."""
        text = '[skill_check: skill="Athletics" dc="1"]'
        got = out(GENESYS, text, KIRA, [12, 1, 1, 2])
        assert (got["symbols"], got["result"]) == ("1t", "failure")
        assert got["symbolDetails"].startswith("critSuccess: yes; critFailure: no")

    def test_despair_on_success(self) -> None:
        """Despair marks the roll but does not change that the net successes succeeded."""
        text = '[skill_check: skill="Athletics" dc="1" upgrade="1"]'
        got = out(GENESYS, text, KIRA, [4, 4, 4, 12])
        assert (got["symbols"], got["result"]) == ("5s 1d", "success")
        assert "critFailure: yes" in got["symbolDetails"]

    def test_despair_on_failure_is_critical(self) -> None:
        """A failed roll showing despair is a critical failure."""
        text = '[skill_check: ability="Brawn" dc="1" upgrade="1"]'
        got = out(GENESYS, text, KIRA, [1, 1, 1, 12])
        assert (got["symbols"], got["result"]) == ("1f 1d", "critical_failure")

    def test_both_marks(self) -> None:
        """Triumph and despair may both be marked."""
        text = '[skill_check: skill="Athletics" dc="1" upgrade="1"]'
        got = out(GENESYS, text, KIRA, [12, 2, 1, 12])
        assert got["symbolDetails"].startswith("critSuccess: yes; critFailure: yes")
        assert (got["symbols"], got["result"]) == ("1s 1t 1d", "critical_success")

    def test_success_needed(self) -> None:
        """success.needed 2: one net success fails."""
        rules = variant(success={"symbol": "s", "needed": 2})
        got = out(rules, '[skill_check: ability="Brawn" dc="0"]', KIRA, [2, 1, 1])
        assert (got["total"], got["result"]) == ("1", "failure")
        got = out(rules, '[skill_check: ability="Brawn" dc="0"]', KIRA, [2, 2, 1])
        assert got["result"] == "success"

    def test_empty_result(self) -> None:
        """Everything cancelled leaves symbols empty, and the card names no symbols."""
        text = '[skill_check: ability="Brawn" dc="1"]'
        made = receipt(GENESYS, text, KIRA, [2, 1, 1, 2])
        assert dict(made.outputs)["symbols"] == ""
        assert "no symbols" in made.card

    def test_details_keep_labels_and_faces(self) -> None:
        """symbolDetails lists each run of a die by label with its faces' symbols, `-` blank."""
        text = '[skill_check: skill="Athletics" dc="2"]'
        got = out(GENESYS, text, KIRA, [12, 7, 1, 3, 8])
        assert got["symbolDetails"] == (
            "critSuccess: yes; critFailure: no; Proficiency: t; Ability: s+a, -; "
            "Difficulty: f+f, f+h"
        )


class TestOutcomes:
    TIERS: list[dict[str, Any]] = [
        {"id": "great", "label": "Great", "atLeast": 3, "success": True},
        {"id": "ok", "label": "Made it", "atLeast": 1, "success": True},
        {"id": "miss", "label": "Missed"},
    ]

    def test_margin(self) -> None:
        """by margin reads net successes − needed + 1: 3 net successes is margin 3."""
        rules = variant(outcomes={"by": "margin", "tiers": self.TIERS})
        got = out(rules, '[skill_check: ability="Brawn" dc="0"]', KIRA, [4, 2, 1])
        assert (got["outcome"], got["result"]) == ("Great", "success")

    def test_margin_with_needed(self) -> None:
        """With needed 2, three net successes are margin 2."""
        rules = variant(
            outcomes={"by": "margin", "tiers": self.TIERS}, success={"symbol": "s", "needed": 2}
        )
        got = out(rules, '[skill_check: ability="Brawn" dc="0"]', KIRA, [4, 2, 1])
        assert got["outcome"] == "Made it"

    def test_total(self) -> None:
        """by total reads the net successes themselves; none left falls to the last tier."""
        rules = variant(outcomes={"by": "total", "tiers": self.TIERS})
        got = out(rules, '[skill_check: ability="Brawn" dc="0"]', KIRA, [1, 1, 1])
        assert (got["outcome"], got["result"]) == ("Missed", "failure")

    def test_triumph_lands_in_critical_tier(self) -> None:
        """A succeeding roll with a triumph lands in the critical-success tier, still a success."""
        tiers = [
            {"id": "crit", "label": "Triumphant", "on": "critical-success", "success": True},
            *self.TIERS,
        ]
        rules = variant(outcomes={"by": "total", "tiers": tiers})
        got = out(rules, '[skill_check: skill="Athletics" dc="0"]', KIRA, [12, 1, 1])
        assert (got["outcome"], got["result"]) == ("Triumphant", "critical_success")

    def test_triumph_without_a_critical_tier_reads_the_number(self) -> None:
        """000: with no tier `on` a critical, a triumph does not move the check: the number picks
        the tier, and the triumph stays marked in symbolDetails."""
        rules = variant(outcomes={"by": "total", "tiers": self.TIERS})
        got = out(rules, '[skill_check: skill="Athletics" dc="0"]', KIRA, [12, 1, 1])
        assert (got["outcome"], got["result"]) == ("Made it", "success")
        assert got["symbolDetails"].startswith("critSuccess: yes")

    def test_despair_without_a_critical_tier_reads_the_number(self) -> None:
        """A failing roll with a despair falls to the tier its number reaches, not critical."""
        rules = variant(outcomes={"by": "total", "tiers": self.TIERS})
        text = '[skill_check: skill="Athletics" dc="2" upgrade="1"]'
        got = out(rules, text, KIRA, [1, 1, 1, 12, 1])
        assert "critFailure: yes" in got["symbolDetails"]
        assert (got["outcome"], got["result"]) == ("Missed", "failure")


class TestReceipt:
    def test_golden(self) -> None:
        """The receipt layout: the record's order, then the symbol attributes before outcome."""
        text = '[skill_check: skill="Athletics" dc="2" bonus="1" setback="1" upgradeOwn="1"]'
        made = receipt(GENESYS, text, KIRA, [4, 10, 3, 3, 8, 2, 5])
        assert made.render() == (
            '[skill_check: skill="Athletics" dc="2" rolls="4|10|3|3|8|2|5" used="2" '
            'modifier="0" total="2" result="success" resolution="sum" '
            'dice="2 proficiency 1 ability 1 boost vs 2 difficulty 1 setback" pool="3" '
            'who="Kira" bonus="+1" symbols="2s" '
            'thrown="proficiency|proficiency|ability|boost|difficulty|difficulty|setback" '
            'symbolDetails="critSuccess: no; critFailure: no; Proficiency: s+s, a+a; '
            'Ability: s; Boost: s; Difficulty: f+h, f; Setback: h" setback="1" upgradeOwn="1"]'
        )
        assert made.card == (
            "🎲 **Athletics** · Kira · 2 proficiency 1 ability 1 boost vs 2 difficulty "
            "1 setback (need 2) → 2 Success · **success**"
        )

    def test_largest_roll_fits(self) -> None:
        """The largest Genesys roll (6 + 3 vs 5 + 3 dice) keeps every attribute within limits."""
        text = '[skill_check: skill="Athletics" dc="5" bonus="+3" setback="3" upgradeOwn="9"]'
        got = out(GENESYS, text, KIRA, 7)
        assert len(got["thrown"].split("|")) == 6 + 3 + 5 + 3
        assert all(
            len(value or "") <= DEFAULT_LIMITS.receipt_value_length for value in got.values()
        )


def net(*dice: icepool.Die[Any]) -> icepool.Die[tuple[int, int]]:
    """The exact law of (net successes, net advantages) for Genesys dice given as symbol tuples."""

    def read(*faces: tuple[int, int, int, int, int]) -> tuple[int, int]:
        s = sum(face[0] + face[4] for face in faces)
        f = sum(face[1] for face in faces)
        a = sum(face[2] for face in faces)
        h = sum(face[3] for face in faces)
        return max(s - f, 0), max(a - h, 0)

    return icepool.map(read, *dice)


def die_of(die_id: str) -> icepool.Die[tuple[int, int, int, int, int]]:
    """A Genesys die as counts of (s, f, a, h, t) per face, straight from the fixture."""
    faces = next(d["faces"] for d in RAW["resolution"]["dice"] if d["id"] == die_id)
    return icepool.Die([tuple(face.count(mark) for mark in "sfaht") for face in faces])


class TestDistribution:
    def test_two_ability_one_proficiency_vs_two_difficulty(self) -> None:
        """Net successes and advantages of 2 ability + 1 proficiency vs 2 difficulty: exact law."""
        text = '[skill_check: skill="Athletics" dc="2"]'
        (span,) = list(find_spans(text, DEFAULT_LIMITS))
        tag = parse_span(text, span, ENGINE_ATTRS["skill_check"])
        request = read_request(tag, DEFAULT_LIMITS.integer_digits)
        assert request is not None
        number = check_number(GENESYS, KIRA, None, request.name)
        rules = GENESYS.resolution_rules
        assert isinstance(rules, SymbolPool)
        source = random.Random(2026)
        observed: Counter[object] = Counter()
        thrown: set[str] = set()
        for _ in range(TRIALS):
            tray = Tray(source, 40)
            record = resolve_symbol_pool(rules, CheckInput(request, number, tray, DEFAULT_LIMITS))
            thrown.add("|".join(record.thrown or []))
            symbols = dict(
                (part[-1], int(part[:-1])) for part in (record.symbols or "").split() if part
            )
            observed[(symbols.get("s", 0), symbols.get("a", 0))] += 1
        assert thrown == {"proficiency|ability|ability|difficulty|difficulty"}
        ability, proficiency, difficulty = (
            die_of(d) for d in ("ability", "proficiency", "difficulty")
        )
        assert_matches(observed, net(ability, ability, proficiency, difficulty, difficulty))


class TestBoughtDice:
    def test_bought_dice_join_the_pool_within_max(self) -> None:
        """Dice bought with spend are plain base dice of the roller, within pool.max."""
        text = '[skill_check: skill="Athletics" dc="0"]'
        (span,) = list(find_spans(text, DEFAULT_LIMITS))
        tag = parse_span(text, span, ENGINE_ATTRS["skill_check"])
        request = read_request(tag, DEFAULT_LIMITS.integer_digits)
        assert request is not None
        number = check_number(GENESYS, KIRA, None, request.name)
        rules = GENESYS.resolution_rules
        assert isinstance(rules, SymbolPool)
        for bought, thrown in ((1, 4), (9, 6)):
            tray = Tray(Scripted([1] * thrown), 40)
            check = CheckInput(request, number, tray, DEFAULT_LIMITS, Bought(dice=bought))
            record = resolve_symbol_pool(rules, check)
            assert record.thrown == ["proficiency"] + ["ability"] * (thrown - 1)
