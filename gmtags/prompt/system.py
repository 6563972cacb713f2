"""The stable system part of the GM instructions (002, "Texto del Game Master" and
"Referencia completa de reglas para el GM").

It is the same on every turn of a game: who the GM is playing for, how to ask
for checks (`gm.checkGuidance`, which replaces the built-in paragraph), how
commands work (`commands_paragraph`, SPEC §2.1: a result arrives after its tag,
so the GM ends the beat there and narrates from the receipt; what each refusal
reason asks of the GM; the worked exchange itself is the turn reminder's check
line), how to read the sheets (`gm.sheetGuidance`), and the full rules
reference (`gmReference`) under "Game Master rules reference". `worldGuidance`
is read only at world setup, so it is not here.

Size (issue 28): the three reference rulesets' instructions stay within 110% of
their size before the worked exchange and the refusals were added
(tests/prompt/test_size.py), so the wording here is kept short.

Layers (SCHEMA-NOTES §12: "Layer guidance is added after the base text, not
in place of it"): each active layer's `gm.guidance` follows the check
paragraph (`gm.checkGuidance` or the built-in one), joined by a space as the
reference engine joins it, so the paragraph stays one prompt-safe line of at
most 1,500 + 12 × (4,000 + 1) characters (SCHEMA-NOTES §8).

Budget: when the system part is over `budget` characters, the rules reference
is cut first, with a marked cut; the other paragraphs are never trimmed here
(002: the reference "se acorta con un corte marcado antes de recortar las
instrucciones principales").
"""

from __future__ import annotations

from gmtags.ruleset.model import Ruleset

BUILT_IN_CHECKS = (
    "When the outcome of an action is uncertain and it matters, ask for a check: name the "
    "skill (or ability or save), the difficulty and the character, nothing more. The "
    "engine rolls the dice from the character sheet and writes the result into the "
    "tag. Never decide a roll yourself and never write rolls, totals or results; "
    "narrate the result the engine gives."
)
"""The built-in paragraph on asking for checks, used when `gm.checkGuidance` is absent."""

RESULTS_AFTER_TAGS = (
    "Commands are tags the engine applies in order, writing each result into its tag after "
    "you write it: end that beat at the tag and narrate the outcome only from the receipt."
)
"""SPEC §2.1: "the result arrives after the tag, so the model never narrates a result before it"."""

REFUSALS = (
    "Refusals: malformed (copy the form shown), placeholder (a real value, not <skill> or X), "
    "unknown-dc (a number or rung), ambiguous-who (the full name), too-many (fewer commands)."
)
"""What each refusal reason asks of the GM (SPEC §2, §2.1, §4), so it can correct itself."""

REFERENCE_HEADING = "Game Master rules reference:"
CUT_MARK = " … (the rest of the rules reference was cut to fit)"


def commands_paragraph() -> str:
    """How commands work: results come after their tags, and what each refusal asks
    (SPEC §2.1; the worked exchange is the turn reminder's check line)."""
    return f"{RESULTS_AFTER_TAGS} {REFUSALS}"


def system_prompt(ruleset: Ruleset, budget: int | None = None) -> str:
    """The stable system part for `ruleset`, at most `budget` characters when that is possible."""
    edition = f" ({ruleset.edition})" if ruleset.edition else ""
    parts = [
        f'You are the Game Master of a game played by "{ruleset.name}"{edition}.',
        ruleset.coverage.summary,
        " ".join([ruleset.gm_text.check_guidance or BUILT_IN_CHECKS, *ruleset.layer_guidance]),
        commands_paragraph(),
    ]
    sheet = ruleset.gm_text.sheet_guidance
    if sheet:
        parts.append(sheet)
    head = "\n\n".join(parts)
    reference = ruleset.gm_reference
    if not reference:
        return head
    whole = f"{head}\n\n{REFERENCE_HEADING}\n{reference}"
    if budget is None or len(whole) <= budget:
        return whole
    room = budget - len(head) - len(REFERENCE_HEADING) - len(CUT_MARK) - 3
    if room <= 0:
        return head
    return f"{head}\n\n{REFERENCE_HEADING}\n{reference[:room].rstrip()}{CUT_MARK}"
