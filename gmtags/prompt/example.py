"""The worked exchange of the GM instructions: a check tag and its receipt (SPEC §2.1).

"The GM instructions show, for the ruleset's own check kind, one worked
exchange: a tag as the model writes it and the receipt the player's client
receives". The receipt is never typed by hand: the tag is applied by the
engine itself (`gmtags.process.process`, a fixed seed) to a sample character
built from the ruleset, so the example is always what the engine writes for
this ruleset, kind, ladder and receipt layout (SPEC §3).

The tag names things the ruleset declares: its first skill (else save, else
ability) by label, which the sample character has at the middle tier (a
trained one, 000), and the `dc` the engine reads for the middle rung of the
ladder (without a ladder, the dc it reads when none is written). Roll-against
keeps `difficulty=` (there `dc` moves the sheet's target; 000, "Tirar contra").

Layering: the engine never imports `gmtags.prompt` (tests/prompt prove it), so
the instructions may use the engine and the arrows keep pointing down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gmtags.process import process
from gmtags.prompt.text import one_line
from gmtags.ruleset.memo import per_ruleset
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot
from gmtags.tags.receipt import Receipt

SAMPLE_NAME = "Mara"
"""The sample character's name in the example (one word, so no `who` ambiguity)."""

SEED = 7
"""The fixed seed the example is rolled with, so the instructions are the same every time."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """One worked exchange: the tag the GM writes and the receipt the player's client receives."""

    tag: str
    receipt: str


def _target(ruleset: Ruleset) -> tuple[str, dict[str, Any]] | None:
    """(label, sample card) for the first skill, else save, else ability: the card has the
    skill or save at the middle tier (a trained one), the ability at a rating of at least 1."""
    sheet = ruleset.sheet
    tiers = [tier.id for tier in ruleset.resolution_common.proficiency_tiers]
    if sheet.skills:
        skill = sheet.skills[0]
        return skill.label, {"skills": {skill.id: tiers[len(tiers) // 2]}}
    if sheet.saves:
        save = sheet.saves[0]
        save_tiers = sheet.save_tiers or tiers
        return save.label, {"saves": {save.id: {"tier": save_tiers[len(save_tiers) // 2]}}}
    if sheet.abilities:
        ability = sheet.abilities[0]
        score = max(ability.default, ability.min + 1) if ability.max > ability.min else ability.min
        return ability.label, {"abilities": {ability.id: score}}
    return None


def _apply(ruleset: Ruleset, tag: str, card: dict[str, Any]) -> Receipt | None:
    """The receipt the engine writes for `tag` against the sample card (None if refused)."""
    snapshot = Snapshot.model_validate({"gameCharacterCards": {SAMPLE_NAME: card}})
    receipts = process(tag, ruleset, snapshot, seed=SEED).receipts
    if len(receipts) != 1 or dict(receipts[0].outputs).get("result") == "refused":
        return None
    return receipts[0]


@per_ruleset
def worked_exchange(ruleset: Ruleset) -> Exchange | None:
    """The example check for `ruleset` and the engine's receipt for it, made once per
    ruleset object (None only for a ruleset with no skill, save or ability to name)."""
    target = _target(ruleset)
    if target is None:
        return None
    label, card = target
    head, who = f'[skill_check: skill="{one_line(label)}"', f'who="{SAMPLE_NAME}"]'
    ladder = getattr(ruleset.resolution_rules, "difficulty_ladder", None)
    rung = f' difficulty="{one_line(ladder[(len(ladder) - 1) // 2].label)}"' if ladder else ""
    tag = f"{head}{rung} {who}"
    trial = _apply(ruleset, tag, card)
    if trial is None:
        return None
    outputs = dict(trial.outputs)
    if outputs.get("resolution") == "against" or not outputs.get("dc"):
        return Exchange(tag, trial.text)  # roll-against: dc moves the target, the rung stays
    tag = f'{head} dc="{outputs["dc"]}" {who}'
    receipt = _apply(ruleset, tag, card)
    return None if receipt is None else Exchange(tag, receipt.text)
