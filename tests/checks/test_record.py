"""The check record: the receipt layout of a rolled check and its card (SPEC §3)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags.checks.record import CheckRecord, signed
from gmtags.engine.check_tag import check_receipt
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.parse import parse_span
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans
from gmtags.text import clean_value

LEAD = ("skill", "dc", "rolls", "used", "modifier", "total", "result")
ORDER = (
    *LEAD,
    "mode",
    "resolution",
    "dice",
    # ENGINE-NOTES §1 extras, in their fixed order.
    "threshold",
    "pool",
    "who",
    "with",
    "bonus",
    "spend",
    "auto",
    "use",
    "rerolled",
    "penalty",
    "difficulty",
    "explode",
    "double",
    "complication",
    "adjust",
    "reroll",
    "effects",
    "from",
    "automatic",
    # What the newer kinds add.
    "against",
    "highest",
    "zeroDice",
    "dark",
    "darkHighest",
    "darkOutcome",
    "unmodified",
    "exact",
    "symbols",
    "thrown",
    "symbolDetails",
    "setback",
    "upgradeOwn",
    "outcome",
)
"""SPEC §3: the reference record layout, every attribute a check receipt can hold."""

EVERYTHING: dict[str, Any] = {
    "skill": "Ward",
    "dc": 2,
    "rolls": [4, 5, 2, 7],
    "used": 1,
    "modifier": 0,
    "total": 1,
    "result": "success",
    "mode": "normal",
    "resolution": "successes",
    "dice": "4d10",
    "threshold": 7,
    "pool": 4,
    "who": "Bram the Quiet",
    "with_": "Sinew",
    "bonus": 1,
    "spend": "resolve:1",
    "auto": 1,
    "use": "Potence",
    "rerolled": 2,
    "penalty": -1,
    "difficulty": "Grim",
    "explode": 9,
    "double": 10,
    "complication": True,
    "adjust": -2,
    "reroll": "careful",
    "effects": 3,
    "from_": ["Steel Nerve", "Iron Grip"],
    "automatic": True,
    "against": "at-most",
    "highest": True,
    "zero_dice": True,
    "dark": 2,
    "dark_highest": True,
    "dark_outcome": "light",
    "unmodified": 66,
    "exact": 1,
    "symbols": "2s 1a",
    "thrown": ["ability", "difficulty"],
    "symbol_details": "critSuccess: no; critFailure: no",
    "setback": 1,
    "upgrade_own": 1,
    "outcome": "Success",
    "outcome_text": "You do it.",
    "unrolled": True,
}
INPUTS = frozenset(
    {"skill", "dc", "mode", "threshold", "who", "with", "bonus", "spend", "use", "difficulty"}
    | {"explode", "double", "reroll", "dark", "setback", "upgradeOwn"}
)
"""What a check receipt echoes from the tag the model wrote (SPEC §3 `who` is rewritten)."""


def keys(record: CheckRecord) -> list[str]:
    return [key for key, _ in record.attrs()]


def uncut_length(attrs: list[tuple[str, str]]) -> int:
    """How long a check receipt is with every (already cleaned) attribute written."""
    return len("[skill_check: " + " ".join(f'{key}="{value}"' for key, value in attrs) + "]")


def card(**fields: Any) -> str:
    return check_receipt(CheckRecord(**{"skill": "Ward", "dc": 8, **fields}), ()).card


class TestSigned:
    @pytest.mark.parametrize(("value", "text"), [(2, "+2"), (-1, "-1"), (0, "0"), (-100, "-100")])
    def test_sign_is_written(self, value: int, text: str) -> None:
        """A signed attribute carries its sign; zero is a bare `0`."""
        assert signed(value) == text


class TestAttrs:
    def test_a_bare_record(self) -> None:
        """With nothing else set, a receipt holds the lead attributes, resolution and dice."""
        record = CheckRecord(skill="Climb", dc=10)
        assert record.attrs() == (
            ("skill", "Climb"),
            ("dc", "10"),
            ("rolls", ""),
            ("used", "0"),
            ("modifier", "0"),
            ("total", "0"),
            ("result", "failure"),
            ("resolution", "sum"),
            ("dice", ""),
        )

    def test_every_attribute_in_reference_order(self) -> None:
        """ENGINE-NOTES §1: with everything set, the attributes come in the reference order."""
        assert keys(CheckRecord(**EVERYTHING)) == list(ORDER)

    def test_outcome_is_last(self) -> None:
        """`outcome` closes the receipt whatever else is written."""
        assert keys(CheckRecord(skill="A", dc=1, symbols="1s", outcome="Success"))[-1] == "outcome"

    def test_mode_only_when_set(self) -> None:
        """`mode` is written for dice-sum checks only, between result and resolution."""
        assert "mode" not in keys(CheckRecord(skill="A", dc=1))
        got = keys(CheckRecord(skill="A", dc=1, mode="advantage"))
        assert got[got.index("result") + 1] == "mode"

    def test_rolls_join_with_bars(self) -> None:
        """Every die thrown, in order, joined with `|`; Fudge faces keep their sign."""
        record = CheckRecord(skill="Notice", dc=2, rolls=[0, -1, 0, 1])
        assert dict(record.attrs())["rolls"] == "0|-1|0|1"

    @pytest.mark.parametrize(
        ("fields", "key", "value"),
        [
            ({"bonus": 2}, "bonus", "+2"),
            ({"bonus": -2}, "bonus", "-2"),
            ({"adjust": 1}, "adjust", "+1"),
            ({"effects": -3}, "effects", "-3"),
            ({"penalty": -2}, "penalty", "-2"),
            ({"threshold": 0}, "threshold", "0"),
            ({"unmodified": 66}, "unmodified", "66"),
            ({"exact": 0}, "exact", "0"),
            ({"complication": True}, "complication", "true"),
            ({"automatic": True}, "automatic", "true"),
            ({"highest": True}, "highest", "1"),
            ({"zero_dice": True}, "zeroDice", "true"),
            ({"dark_highest": True}, "darkHighest", "true"),
            ({"from_": ["A", "B"]}, "from", "A; B"),
            ({"thrown": ["ability", "boost"]}, "thrown", "ability|boost"),
            ({"thrown": []}, "thrown", ""),
            ({"symbols": ""}, "symbols", ""),
            ({"upgrade_own": 2}, "upgradeOwn", "2"),
        ],
    )
    def test_present_extras(self, fields: dict[str, Any], key: str, value: str) -> None:
        """An extra that applies is written with its value; signed extras carry their sign."""
        assert dict(CheckRecord(skill="A", dc=1, **fields).attrs())[key] == value

    @pytest.mark.parametrize(
        ("fields", "key"),
        [
            ({"bonus": 0}, "bonus"),
            ({"adjust": 0}, "adjust"),
            ({"effects": 0}, "effects"),
            ({"penalty": 0}, "penalty"),
            ({"penalty": 3}, "penalty"),
            ({"auto": 0}, "auto"),
            ({"auto": -1}, "auto"),
            ({"rerolled": 0}, "rerolled"),
            ({"dark": 0}, "dark"),
            ({"setback": 0}, "setback"),
            ({"upgrade_own": -1}, "upgradeOwn"),
            ({"from_": []}, "from"),
            ({"thrown": None}, "thrown"),
            ({"complication": False}, "complication"),
        ],
    )
    def test_absent_extras(self, fields: dict[str, Any], key: str) -> None:
        """An extra that does not apply is left out: zero, a penalty not below 0, an empty list."""
        assert key not in keys(CheckRecord(skill="A", dc=1, **fields))

    def test_private_fields_are_never_written(self) -> None:
        """`outcome_text` and `unrolled` are for the engine, not the receipt."""
        written = dict(CheckRecord(**EVERYTHING).attrs())
        assert "You do it." not in written.values()
        assert not {"outcome_text", "outcomeText", "unrolled"} & set(written)

    def test_computed_attributes_cannot_be_forged(self) -> None:
        """SPEC §2: everything the engine works out is discarded when a model writes it."""
        computed = set(keys(CheckRecord(**EVERYTHING))) - INPUTS
        assert {key.lower() for key in computed} <= ENGINE_ATTRS["skill_check"]
        assert not {key.lower() for key in INPUTS} & ENGINE_ATTRS["skill_check"]


class TestCard:
    """SPEC §7.3: a check's card names the check, who, the roll, the faces and the outcome."""

    def test_reference_example(self) -> None:
        """The spec's pool example: dice and threshold, faces, successes, outcome in bold."""
        got = card(
            who="Bram", dc=2, rolls=[9, 3, 7], used=2, total=2, result="success",
            resolution="successes", dice="3d10", threshold=7,
        )  # fmt: skip
        assert got == "🎲 **Ward** · Bram · 3d10 ≥7 vs 2 → 9, 3, 7 · 2 successes · **success**"

    @pytest.mark.parametrize(
        ("fields", "middle"),
        [
            ({"dice": "2d6", "rolls": [3, 5], "used": 8, "total": 8}, "2d6 vs 8 → 3, 5 = 8"),
            (
                {"dice": "2d6", "rolls": [3, 5], "used": 8, "modifier": -1, "total": 7},
                "2d6-1 vs 8 → 3, 5 = 7",
            ),
            (
                {"dice": "2d20", "rolls": [15, 18], "used": 18, "modifier": 5, "total": 23,
                 "mode": "advantage"},
                "2d20+5 with advantage vs 8 → ~~15~~, 18 = 23",
            ),
            (
                {"dice": "2d20", "rolls": [15, 18], "used": 15, "total": 15,
                 "mode": "disadvantage"},
                "2d20 with disadvantage vs 8 → 15, ~~18~~ = 15",
            ),
            (
                {"dice": "3d6", "rolls": [2, 3, 1], "used": 3, "total": 3, "highest": True},
                "3d6 highest vs 8 → ~~2~~, 3, ~~1~~ = 3",
            ),
            (
                {"dice": "1d100", "rolls": [36, 56], "used": 56, "total": 56,
                 "resolution": "against", "against": "at-most"},
                "1d100 ≤8 → ~~36~~, 56",
            ),
            ({"rolls": [], "total": 0}, "no dice vs 8 → no dice = 0"),
        ],
    )  # fmt: skip
    def test_the_roll_with_kept_dice_distinguishable(
        self, fields: dict[str, Any], middle: str
    ) -> None:
        """Dice thrown but not kept are struck through; the total follows the faces."""
        assert card(**fields) == f"🎲 **Ward** · {middle} · **failure**"

    @pytest.mark.parametrize(
        ("rolls", "total", "counted"),
        [([4, 5, 2, 7], 1, "1 success"), ([8, 9], 2, "2 successes"), ([], 0, "0 successes")],
    )
    def test_pool_counts_successes(self, rolls: list[int], total: int, counted: str) -> None:
        """A dice pool counts its successes, singular for one."""
        got = card(rolls=rolls, total=total, resolution="successes", dice="4d10", threshold=7)
        assert f" · {counted} · **failure**" in got

    @pytest.mark.parametrize(
        ("result", "word"),
        [
            ("success", "success"),
            ("failure", "failure"),
            ("critical_success", "critical success"),
            ("critical_failure", "critical failure"),
        ],
    )
    def test_result_word(self, result: str, word: str) -> None:
        """Without tiers the card says the result in words, in bold."""
        assert card(result=result).endswith(f" · **{word}**")

    def test_tier_label_beats_the_result_word(self) -> None:
        """A declared tier's label is what the card says."""
        assert card(result="success", outcome="Hard success").endswith(" · **Hard success**")

    def test_what_was_spent_comes_last(self) -> None:
        """A check that spent from a pool, or drew a complication, says so after the outcome."""
        got = card(spend="resolve:1", complication=True)
        assert got.endswith("**failure** · spent resolve:1 · complication")

    def test_who_comes_second(self) -> None:
        """A resolved character follows the check's name; the dc may be negative."""
        got = card(who="Bram", dc=-3, rolls=[1], used=1, total=1, dice="1d6")
        assert got == "🎲 **Ward** · Bram · 1d6 vs -3 → 1 = 1 · **failure**"

    def test_long_names_stay_whole(self) -> None:
        """The card is for a person: a 10,000-character skill is not cut."""
        assert "x" * 10_000 in card(skill="x" * 10_000)

    @pytest.mark.parametrize("breaker", ["\u2028", "\x85", "\x0b"])
    def test_card_is_one_line(self, breaker: str) -> None:
        """A card is one line whatever the skill, the stranger's name and the dice hold."""
        got = card(skill=f"Cl{breaker}imb", who=f"A{breaker}b", dice=f"2{breaker}d6")
        assert len(got.splitlines()) == 1


class TestReceipt:
    def test_receipt_carries_the_inputs_layout_and_card(self) -> None:
        """`receipt()` is a skill_check receipt of the tag's inputs, the layout and the card."""
        record = CheckRecord(skill="Climb", dc=10, rolls=[2, 5], used=7, modifier=4, total=11)
        inputs = (("skill", "Climb"), ("dc", "10"))
        receipt = check_receipt(record, inputs)
        assert (receipt.tag, receipt.inputs, receipt.outputs) == (
            "skill_check",
            inputs,
            record.attrs(),
        )
        assert receipt.card == "🎲 **Climb** · no dice+4 vs 10 → 2, 5 = 11 · **failure**"
        assert receipt.text == (
            '[skill_check: skill="Climb" dc="10" rolls="2|5" used="7" modifier="4" total="11" '
            'result="failure" resolution="sum" dice=""]'
        )

    def test_hostile_text_is_cleaned_in_the_receipt_only(self) -> None:
        """Quotes and brackets in a stranger's name become spaces in the receipt, not the record."""
        record = CheckRecord(skill="Climb", dc=5, who='A "tinker" [x]')
        assert 'who="A tinker x"' in check_receipt(record, ()).text
        assert dict(record.attrs())["who"] == 'A "tinker" [x]'

    def test_maximal_record_is_cut_to_one_tag(self) -> None:
        """Every text at 10,000 characters, every number 300 digits: one tag, result kept."""
        long, huge = '["x' * 3_400, 10**300
        names = ["skill", "dice", "who", "with_", "spend", "use", "difficulty", "reroll"]
        texts = {name: long for name in [*names, "symbols", "symbol_details", "outcome"]}
        numbers = {
            name: huge
            for name, value in EVERYTHING.items()
            if isinstance(value, int) and not isinstance(value, bool)
        }
        record = CheckRecord(
            **{**EVERYTHING, **texts, **numbers, "from_": [long] * 5, "rolls": [6] * 1000}
        )
        text = check_receipt(record, ()).render()
        (span,) = find_spans(text, DEFAULT_LIMITS)
        assert span.complete and (span.start, span.end) == (0, len(text))
        assert len(text) <= DEFAULT_LIMITS.tag_length
        tag = parse_span(text, span, frozenset())
        assert not tag.malformed and tag.attrs[-1].key == "result"
        assert text.startswith('[skill_check: skill="x x x')


# Hostile text: quotes, brackets, line breaks and control characters, up to 10,000 characters.
TEXT = st.one_of(
    st.text(st.one_of(st.sampled_from('"[]\n\r\x00\x85\u2028 “”'), st.characters()), max_size=30),
    st.integers(0, 10_000).map(lambda n: '["x' * (n // 3)),
)
INTS = st.integers(-(10**9), 10**9)
OPTIONAL_TEXT = st.none() | TEXT
RECORDS = st.builds(
    CheckRecord,
    skill=TEXT,
    dc=INTS,
    rolls=st.lists(st.integers(-1, 100), max_size=40),
    used=INTS,
    modifier=INTS,
    total=INTS,
    result=st.sampled_from(["success", "failure", "critical_success", "critical_failure"]),
    mode=st.none() | st.sampled_from(["normal", "advantage", "disadvantage"]),
    resolution=st.sampled_from(["sum", "successes", "against"]),
    dice=TEXT,
    threshold=st.none() | INTS,
    pool=st.none() | INTS,
    who=OPTIONAL_TEXT,
    with_=OPTIONAL_TEXT,
    bonus=INTS,
    spend=OPTIONAL_TEXT,
    auto=INTS,
    use=OPTIONAL_TEXT,
    rerolled=INTS,
    penalty=INTS,
    difficulty=OPTIONAL_TEXT,
    explode=st.none() | INTS,
    double=st.none() | INTS,
    complication=st.booleans(),
    adjust=INTS,
    reroll=OPTIONAL_TEXT,
    effects=INTS,
    from_=st.lists(TEXT, max_size=5),
    automatic=st.booleans(),
    against=st.none() | st.sampled_from(["at-most", "at-least"]),
    highest=st.booleans(),
    zero_dice=st.booleans(),
    dark=INTS,
    dark_highest=st.booleans(),
    dark_outcome=st.none() | st.just("light"),
    unmodified=st.none() | INTS,
    exact=st.none() | INTS,
    symbols=OPTIONAL_TEXT,
    thrown=st.none() | st.lists(st.sampled_from(["ability", "boost", "difficulty"]), max_size=8),
    symbol_details=OPTIONAL_TEXT,
    setback=INTS,
    upgrade_own=INTS,
    outcome=OPTIONAL_TEXT,
)


class TestRecordProperties:
    @settings(max_examples=50, deadline=None)
    @given(record=RECORDS)
    def test_layout_follows_the_reference_order(self, record: CheckRecord) -> None:
        """Any record writes each attribute at most once, in the reference order."""
        got = keys(record)
        assert len(set(got)) == len(got) and got == sorted(got, key=ORDER.index)
        assert list(LEAD) == [key for key in got if key in LEAD]

    @settings(max_examples=80, deadline=None)
    @given(record=RECORDS)
    def test_receipt_scans_again_as_one_check(self, record: CheckRecord) -> None:
        """Any record's receipt is one complete tag whose values are the record's, cleaned."""
        receipt = check_receipt(record, (("skill", record.skill),))
        assert (receipt.tag, receipt.inputs) == ("skill_check", (("skill", record.skill),))
        assert receipt.card.startswith("🎲 ") and "\n" not in receipt.card
        text = receipt.render()
        (span,) = find_spans(text, DEFAULT_LIMITS)
        assert span.complete and (span.start, span.end) == (0, len(text))
        tag = parse_span(text, span, frozenset())
        assert not tag.malformed
        back = [(attr.key, attr.value) for attr in tag.attrs]
        limit = DEFAULT_LIMITS.receipt_value_length
        want = [(key, clean_value(value or "", limit)) for key, value in record.attrs()]
        if uncut_length(want) <= DEFAULT_LIMITS.tag_length:
            assert back == want
        else:
            # Cut to fit: result is kept (moved to the end), the rest stays in order.
            assert back[-1] == ("result", record.result)
            rest = iter(want)
            assert all(pair in rest for pair in back[:-1])
