"""gmtags/checks/request.py: what a `[skill_check:]` asks for; numbers of bounded length."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, Snapshot
from gmtags.checks.request import CheckRequest
from gmtags.engine.check_tag import read_request
from gmtags.engine.context import Context
from gmtags.engine.skill_check import apply_skill_check
from gmtags.limits import DEFAULT_LIMITS
from gmtags.tags.parse import Attr, ParsedTag, parse_span
from gmtags.tags.receipt import ENGINE_ATTRS
from gmtags.tags.scan import find_spans
from gmtags.text import parse_int
from tests.checks.conftest import Scripted, attrs, ruleset, snapshot

DIGITS = DEFAULT_LIMITS.integer_digits
LARGEST = 10**DIGITS - 1
# A tag long enough for a number of 5,000 digits (the default spans 4,096 characters).
ROOMY = replace(DEFAULT_LIMITS, tag_length=16_384)
LONG = ["9" * 30, "1" + "0" * 29, "7" * 5_000]

TWO_D6 = ruleset("checks/two-d6.json")
EXWOD = ruleset("checks/exwod.json")
CROWS = ruleset("sheets/crows.json")
BRAM = snapshot({"Bram": {"abilities": {"grit": 3}, "skills": {"climb": "trained"}}})
WARDER = snapshot(
    {"Bram": {"abilities": {"sinew": 2, "nerve": 3, "warmth": 2}, "skills": {"ward": "rating_1"}}}
)
VEX = snapshot({"Vex": {"abilities": {"hunt": 2, "study": 1, "skirmish": 0, "finesse": 4}}})


def tag(**written: str) -> ParsedTag:
    """A `[skill_check:]` tag with these attributes, built without the scanner's length bound."""
    return ParsedTag("skill_check", tuple(Attr(key, value) for key, value in written.items()), "")


def check(rules: Ruleset, text: str, state: Snapshot, dice: Iterable[int]) -> dict[str, str | None]:
    """Apply one check tag with scripted dice, tags up to 16,384 characters long."""
    (span,) = list(find_spans(text, ROOMY))
    parsed = parse_span(text, span, ENGINE_ATTRS["skill_check"])
    context = Context(rules, Scripted(dice), ROOMY)
    return attrs(apply_skill_check(parsed, state, context).receipt)


class TestParseInt:
    def test_too_long_is_none_without_saturate(self) -> None:
        """SPEC §8: a number longer than the bound is not read (sheet and clock commands)."""
        assert parse_int("9" * 5_000, DIGITS) is None

    @pytest.mark.parametrize("digits", LONG)
    @pytest.mark.parametrize("sign", ["", "+", "-"])
    def test_saturate_reads_the_largest_of_its_length(self, digits: str, sign: str) -> None:
        """000: a number too long to read clamps like any too big, to ±(10**digits − 1)."""
        expected = -LARGEST if sign == "-" else LARGEST
        assert parse_int(f" {sign}{digits} ", DIGITS, saturate=True) == expected

    def test_leading_zeros_do_not_count(self) -> None:
        """The length is the number's own digits: 5,000 zeros then 7 is 7, never converted whole."""
        assert parse_int("0" * 5_000 + "7", DIGITS) == 7
        assert parse_int("-" + "0" * 5_000, DIGITS, saturate=True) == 0

    def test_not_a_number_stays_none(self) -> None:
        """Saturating reads only numbers: words and empty values are still ignored."""
        assert parse_int("lots", DIGITS, saturate=True) is None
        assert parse_int("", DIGITS, saturate=True) is None


class TestReadRequest:
    @pytest.mark.parametrize("digits", LONG)
    @pytest.mark.parametrize("sign", ["", "-"])
    def test_every_number_saturates(self, digits: str, sign: str) -> None:
        """Every number a check reads (dc, bonus, threshold, …) keeps its sign, never dropped."""
        value = f"{sign}{digits}"
        keys = ("dc", "bonus", "threshold", "explode", "double", "dark", "upgrade", "setback")
        request = read_request(tag(skill="Climb", **dict.fromkeys(keys, value)), DIGITS)
        assert request is not None
        expected = -LARGEST if sign else LARGEST
        assert [getattr(request, key) for key in keys] == [expected] * len(keys)

    @pytest.mark.parametrize("digits", LONG)
    def test_reads_like_the_largest_number_it_can(self, digits: str) -> None:
        """A 30- or 5,000-digit dc is the request a dc of 999999999 makes."""
        assert read_request(tag(skill="Climb", dc=digits), DIGITS) == read_request(
            tag(skill="Climb", dc=str(LARGEST)), DIGITS
        )


class TestOutOfRangeClamps:
    @pytest.mark.parametrize("digits", ["9" * 30, "9" * 5_000])
    @pytest.mark.parametrize(("sign", "bound"), [("", "1000"), ("-", "-100")])
    def test_long_dc_clamps_to_the_range_bound(self, digits: str, sign: str, bound: str) -> None:
        """000: a dice-sum dc of 30 or 5,000 digits clamps to −100..1000 like dc="5000" does."""
        rolled = check(TWO_D6, f'[skill_check: skill="Climb" dc="{sign}{digits}"]', BRAM, [6, 6])
        in_range = check(TWO_D6, f'[skill_check: skill="Climb" dc="{sign}5000"]', BRAM, [6, 6])
        assert rolled["dc"] == in_range["dc"] == bound
        assert rolled == in_range

    @pytest.mark.parametrize("digits", ["9" * 30, "9" * 5_000])
    @pytest.mark.parametrize(("sign", "bound", "dice"), [("+", "+3", 7), ("-", "-3", 1)])
    def test_long_pool_bonus_clamps(self, digits: str, sign: str, bound: str, dice: int) -> None:
        """000: a dice-pool bonus of 30 or 5,000 digits clamps to situationalDice (−3..+3)."""
        text = '[skill_check: skill="Ward" dc="2" bonus="{}"]'
        rolled = check(EXWOD, text.format(sign + digits), WARDER, [2] * dice)
        in_range = check(EXWOD, text.format(sign + "9"), WARDER, [2] * dice)
        assert rolled["bonus"] == in_range["bonus"] == bound
        assert rolled == in_range

    @pytest.mark.parametrize("digits", ["9" * 30, "9" * 5_000])
    @pytest.mark.parametrize(("sign", "bound"), [("+", "+2"), ("-", "-1")])
    def test_long_highest_bonus_clamps(self, digits: str, sign: str, bound: str) -> None:
        """000: a dice-highest bonus of 30 or 5,000 digits clamps to situationalDice (−1..+2)."""
        text = '[skill_check: ability="Study" bonus="{}"]'
        faces = [1, 2, 3]
        rolled = check(CROWS, text.format(sign + digits), VEX, faces)
        in_range = check(CROWS, text.format(sign + "5"), VEX, faces)
        assert rolled["bonus"] == in_range["bonus"] == bound
        assert rolled == in_range


def _every_option(tag: ParsedTag, digits: int) -> CheckRequest | None:
    """The request read option by option, every one looked up (the reader's first form)."""
    written = {attr.key.lower(): attr.value for attr in tag.attrs}
    name_key = next(
        (k for k in ("skill", "save", "ability") if (written.get(k) or "").strip()), None
    )
    if name_key is None:
        return None

    def number(key: str) -> int | None:
        return parse_int(written.get(key), digits, saturate=True)

    def text(key: str) -> str | None:
        value = written.get(key)
        return value.strip() or None if value is not None else None

    # SPEC §2.1: a dc written that is no number is kept as written, for the engine to read.
    dc_text = (written["dc"] or "").strip() if "dc" in written and number("dc") is None else None
    return CheckRequest(
        name=(written.get(name_key) or "").strip(), name_key=name_key, who=text("who"),
        dc=number("dc"), dc_text=dc_text, difficulty=text("difficulty"), with_=text("with"),
        bonus=number("bonus"), mode=(text("mode") or "").lower() or None,
        threshold=number("threshold"), explode=number("explode"), double=number("double"),
        reroll=text("reroll"), spend=text("spend"), use=text("use"), apply=text("apply"),
        dark=number("dark"), upgrade=number("upgrade"), setback=number("setback"),
        upgrade_own=number("upgradeown"),
    )  # fmt: skip


_KEYS = st.sampled_from(
    [
        "skill", "Save", "ABILITY", "who", "dc", "DC", "difficulty", "with", "bonus", "mode",
        "Mode", "threshold", "explode", "double", "reroll", "spend", "use", "apply", "dark",
        "upgrade", "setback", "upgradeOwn", "unknown", "clear",
    ]
)  # fmt: skip
_VALUES = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "15", " -3 ", "+007", "1" * 20, "x", " Advantage ", "Ada", "1.5"]),
    st.text(max_size=6),
)


class TestReadsOnlyWhatIsWritten:
    @settings(max_examples=500, deadline=None)
    @given(pairs=st.dictionaries(_KEYS, _VALUES, max_size=8), digits=st.integers(1, 12))
    def test_same_request_as_every_option_looked_up(
        self, pairs: dict[str, str | None], digits: int
    ) -> None:
        """Reading only the options a tag wrote gives the request reading every one gives."""
        seen: set[str] = set()
        attrs = []
        for key, value in pairs.items():
            if key.lower() not in seen:  # a tag never holds one key twice (it is malformed)
                seen.add(key.lower())
                attrs.append(Attr(key, value))
        tag = ParsedTag("skill_check", tuple(attrs), "[skill_check:]")
        assert read_request(tag, digits) == _every_option(tag, digits)
