"""The GM instructions stay within 110% of their size before issue 28, for the three
reference rulesets (issue 28: "measure the size before and after for the three
reference rulesets and keep it within 10% of today's").

The baseline is `gmtags prompt --ruleset R.json` (empty state) at commit
957fc19, before the worked exchange and the refusal reasons were added: the
text itself is kept in fixtures/prompts/baseline/ so it can be measured again
with any tokenizer, and its sizes are recorded below. Characters are
`len(system) + len(reminder)`; tokens are `gmtags prompt --tokens`' estimate.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from gmtags import load_ruleset
from gmtags.prompt import gm_instructions
from gmtags.prompt.tokens import estimate_tokens
from gmtags.testing import read_cases
from tests.conftest import FIXTURES, REFERENCE_RULESETS

BASELINE_TEXT = FIXTURES / "prompts" / "baseline"
GROWTH = 1.10
"""The most the instructions may grow over the baseline."""


class Size(NamedTuple):
    """The size of the GM instructions with an empty state."""

    chars: int
    tokens: int


BASELINE = {
    "ember-roads": Size(chars=810 + 1162, tokens=186 + 339),
    "gravewatch": Size(chars=1321 + 1575, tokens=299 + 451),
    "ruleset-5e-2014.example": Size(chars=1297 + 1491, tokens=305 + 440),
}
"""`gmtags prompt` at 957fc19: (system + reminder) characters and estimated tokens."""


def _size(system: str, reminder: str) -> Size:
    return Size(len(system) + len(reminder), estimate_tokens(system) + estimate_tokens(reminder))


@pytest.mark.parametrize("name", sorted(BASELINE))
def test_the_recorded_baseline_is_the_kept_text(name: str) -> None:
    """The recorded numbers are the kept baseline text measured now (so a change to the
    estimator shows here first, and the numbers are measured again, never guessed)."""
    (case,) = read_cases(BASELINE_TEXT / f"{name}.md")
    assert _size(case.sections["system"], case.sections["reminder"]) == BASELINE[name]


@pytest.mark.parametrize("name", sorted(BASELINE))
def test_within_ten_percent_of_the_baseline(name: str) -> None:
    """Issue 28: the instructions with the worked exchange and the refusal reasons are at most
    110% of the baseline, in characters and in tokens."""
    instructions = gm_instructions(load_ruleset(REFERENCE_RULESETS / f"{name}.json"))
    now, before = _size(instructions.system, instructions.reminder), BASELINE[name]
    assert now.chars <= GROWTH * before.chars, (now, before)
    assert now.tokens <= GROWTH * before.tokens, (now, before)
