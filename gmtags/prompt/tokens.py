"""The size of the GM instructions in tokens (SPEC §2.1: "`gmtags prompt --tokens` prints
the instructions' size in tokens (a count for the common tokenizers, within 10%)").

An estimate, not a tokenizer: the real ones cannot be had offline at run time
(tiktoken downloads its BPE files on first use, which a machine without that
host cannot do), and each model family has its own. The estimate follows how
byte-pair tokenizers cut text. The text is split into the pieces that GPT-4's
pre-tokenizer makes (cl100k's pattern: a word with its leading space or
mark, up to three digits, a run of punctuation, a run of whitespace); most
pieces are one token. What costs more: a word longer than eight ASCII
letters (rare words split, about one more token per four letters), a letter
outside ASCII (about one token each: accented, Hangul, kana, Han), and a mark
glued before a word (`="Sneak` is two). The sum is scaled by `SCALE`.

Calibration (scripts/token_calibration.py): `SCALE` was fitted on English
prose of this project (README, SPEC, the reference notes; 3,000-character
chunks) against cl100k (GPT-4), o200k (GPT-4o), Tekken (Mistral NeMo and
later), DeepSeek V3 and the legacy Claude tokenizer, which agree with each
other within about 7% on the GM instructions. On the fixtures' instructions
the estimate is within 10% of each of them; SentencePiece tokenizers of the
Llama 2 and early Mistral era count about 10% more.
tests/prompt/test_tokens.py holds the estimate to 10% of Tekken, a real
tokenizer that ships its vocabulary in a package (mistral-common).
"""

from __future__ import annotations

import regex

SCALE = 1.055
"""Tokens per estimated piece, fitted as the module docstring says."""

LONG_WORD = 8
"""ASCII letters a word may have and still count as one token."""

LETTERS_PER_EXTRA = 4
"""ASCII letters past `LONG_WORD` that cost one more token."""

_PIECES = regex.compile(
    r"(?i:'(?:s|t|re|ve|m|ll|d))"  # English contractions
    r"|[^\r\n\p{L}\p{N}]?\p{L}+"  # a word, with the space or mark before it
    r"|\p{N}{1,3}"  # digits, three at most
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*"  # a run of punctuation
    r"|\s*[\r\n]+|\s+"  # whitespace
)


def _piece_cost(piece: str) -> float:
    letters = [ch for ch in piece if ch.isalpha()]
    if not letters:
        return 1.0
    ascii_letters = sum(1 for ch in letters if ch.isascii())
    cost = float(len(letters) - ascii_letters)
    if ascii_letters:
        cost += 1 + max(0, ascii_letters - LONG_WORD) / LETTERS_PER_EXTRA
    lead = piece[0]
    if not lead.isalpha() and not lead.isspace():
        cost += 1
    return cost


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` is for the common tokenizers (within 10% on the GM
    instructions, module docstring)."""
    pieces = sum(_piece_cost(match.group()) for match in _PIECES.finditer(text))
    return round(SCALE * pieces)
