"""The token estimate of `gmtags prompt --tokens` (SPEC §2.1: "within 10%").

The estimate is held against Tekken, Mistral's byte-pair tokenizer, which
mistral-common ships with its vocabulary (a test dependency: nothing is
downloaded). The calibration against the other common tokenizers is in
`gmtags/prompt/tokens.py` and scripts/token_calibration.py.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable

import pytest

from gmtags.prompt.tokens import estimate_tokens
from gmtags.testing import GoldenCase, read_cases
from tests.conftest import FIXTURES

PROMPTS = sorted((FIXTURES / "prompts").rglob("*.md"))
"""Every golden prompt, today's and the baseline before issue 28."""


@pytest.fixture(scope="module")
def tekken() -> Callable[[str], int]:
    """Tekken's token count (the newest vocabulary the installed mistral-common ships)."""
    import mistral_common
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    data = pathlib.Path(mistral_common.__file__).parent / "data"
    tokenizer = Tekkenizer.from_file(sorted(data.glob("tekken_*.json"))[-1])
    return lambda text: len(tokenizer.encode(text, bos=False, eos=False))


def _case(path: pathlib.Path) -> GoldenCase:
    (case,) = read_cases(path)
    return case


class TestEstimate:
    def test_empty(self) -> None:
        """Nothing is no tokens."""
        assert estimate_tokens("") == 0

    def test_plain_words(self) -> None:
        """Common words are about a token each."""
        assert 9 <= estimate_tokens("The lock is older than it looks, and colder.") <= 12

    def test_long_words_cost_more(self) -> None:
        """A long, rare word is split into several tokens."""
        assert estimate_tokens("incomprehensibilities") > estimate_tokens("lock")

    def test_letters_outside_ascii_cost_more(self) -> None:
        """Hangul and other letters outside ASCII are about a token each."""
        assert estimate_tokens("규칙 집합 판정") >= 6

    def test_grows_with_the_text(self) -> None:
        """Twice the text is about twice the tokens."""
        text = 'Check: [skill_check: skill="Scrap" dc="8" who="Mara"] '
        assert abs(estimate_tokens(text * 2) - 2 * estimate_tokens(text)) <= 1


@pytest.mark.parametrize("path", PROMPTS, ids=[str(p.relative_to(FIXTURES)) for p in PROMPTS])
def test_within_ten_percent_of_a_real_tokenizer(
    path: pathlib.Path, tekken: Callable[[str], int]
) -> None:
    """SPEC §2.1: on every fixture prompt, each part and the whole are within 10% of Tekken."""
    case = _case(path)
    system, reminder = case.sections["system"], case.sections["reminder"]
    for text in (system, reminder, f"{system}\n{reminder}"):
        real = tekken(text)
        assert abs(estimate_tokens(text) - real) <= 0.10 * real, (path.name, text[:60])
