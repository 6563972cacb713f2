"""gmtags/transcript/audit.py: what a check receipt proves about itself."""

from __future__ import annotations

from gmtags import Ruleset, load_ruleset
from gmtags.transcript.audit import audit_check
from tests.conftest import FIXTURES

HIGHEST = {
    "skill": "Hunt", "dc": "4", "rolls": "2|3|1", "used": "3", "modifier": "0", "total": "3",
    "result": "failure", "resolution": "sum", "dice": "3d6", "pool": "3", "highest": "1",
}  # fmt: skip


def sum_ruleset() -> Ruleset:
    """A dice-sum ruleset of two six-sided dice."""
    return load_ruleset(FIXTURES / "rulesets" / "checks" / "two-d6.json")


class TestAuditCheck:
    def test_a_true_receipt_passes(self, crows: Ruleset) -> None:
        """An engine-written dice-highest receipt has nothing wrong with it."""
        assert audit_check(HIGHEST, crows) == []

    def test_face_outside_the_die(self, crows: Ruleset) -> None:
        """A 7 on a d6 cannot show."""
        problems = audit_check({**HIGHEST, "rolls": "2|7|1", "used": "7", "total": "7"}, crows)
        assert problems == ["face 7 cannot show on a d6"]

    def test_highest_not_read(self, crows: Ruleset) -> None:
        """A dice-highest `used` must be the highest face."""
        problems = audit_check({**HIGHEST, "used": "2", "total": "2"}, crows)
        assert problems == ["used 2 is not the dice read (3)"]

    def test_zero_dice_reads_the_lower(self, crows: Ruleset) -> None:
        """With zeroDice the lower of two dice is read."""
        attrs = {
            **HIGHEST,
            "rolls": "6|4",
            "dice": "2d6",
            "used": "4",
            "total": "4",
            "zeroDice": "true",
        }
        assert audit_check(attrs, crows) == []

    def test_sum_total_must_add_up(self) -> None:
        """dice-sum: total = used + modifier, and used is the dice's sum."""
        ruleset = sum_ruleset()
        attrs = {"rolls": "3|4", "used": "7", "modifier": "2", "total": "9", "result": "success",
                 "resolution": "sum", "dice": "2d6", "mode": "normal"}  # fmt: skip
        assert audit_check(attrs, ruleset) == []
        assert audit_check({**attrs, "total": "12"}, ruleset) == [
            "total 12 is not used 7 + modifier 2"
        ]
        assert audit_check({**attrs, "used": "8", "total": "10"}, ruleset) == [
            "used 8 is not the dice read (7)"
        ]

    def test_refused_checks_are_not_audited(self, crows: Ruleset) -> None:
        """A refused check threw no dice."""
        assert (
            audit_check({"skill": "Hunt", "result": "refused", "reason": "untrained"}, crows) == []
        )

    def test_rolls_must_be_numbers(self, crows: Ruleset) -> None:
        """Rolls that are not integers are reported."""
        assert audit_check({**HIGHEST, "rolls": "two|1"}, crows) == [
            "rolls 'two|1' are not whole numbers"
        ]
