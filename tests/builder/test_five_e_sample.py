"""The bundled 5e builder sample (fixtures/rulesets/builder/5e-builder.json) as a 5e player
reads it: the party's clocks in play."""

from __future__ import annotations

from typing import Any

from gmtags import Snapshot, build_character, load_ruleset, process
from gmtags.builder.build import BuildResult
from gmtags.prompt.reminder import clock_commands
from tests.builder import samples

FIVE_E_PATH = samples.BUILDERS / "5e-builder.json"
FIVE_E = load_ruleset(FIVE_E_PATH)

ROGUE = {"class": {"picks": ["rogue"]}, "background": {"picks": ["criminal"]}}


def build(steps: dict[str, Any], dex: int, card: dict[str, Any] | None = None) -> BuildResult:
    """A build of `steps` with Dexterity `dex` (manual entry) on `card`; picks change it."""
    scores = {"scores": {"method": "manual", "scores": {"dex": dex}}}
    answers = {"v": 1, "seed": 5, "described": False, "steps": {**steps, **scores}}
    return build_character(FIVE_E, answers, card)


class TestClocks:
    def test_the_ruleset_turns_clocks_on(self) -> None:
        """002: "Capability API 1.143 añade un objeto clocks opcional de nivel superior.
        Omítelo para mantener desactivados los comandos de reloj." The sample declares it, and
        the GM is taught the commands with its sizes and what a 5e table counts down."""
        clocks = FIVE_E.clocks
        assert clocks is not None and (clocks.sizes, clocks.max) == ([4, 6, 8], 6)
        commands, text = clock_commands(FIVE_E)
        assert "(sizes 4, 6, 8; at most 6 at once)" in commands
        assert text == clocks.text and "an alarm being raised" in text

    def test_a_clock_ticks_in_play(self) -> None:
        """002: "[clock: name="Alarm raised" tick="2"] añade segmentos." A reply ticks the
        party's clock against a snapshot holding a character built from this ruleset."""
        rogue = build({**ROGUE, "gear": {"kits": ["rogue-kit"]}}, dex=17).card
        state = Snapshot.model_validate(
            {
                "gameCharacterCards": {"Vex": rogue},
                "rulesetClocks": [{"name": "Alarm raised", "size": 6, "filled": 2}],
            }
        )
        reply = 'A bell starts ringing. [clock: name="Alarm raised" tick="1"]'
        result = process(reply, FIVE_E, state, seed=1)
        (receipt,) = result.receipts
        assert (receipt.attr("result"), receipt.attr("now")) == ("ok", "3/6")
        (clock,) = result.snapshot.ruleset_clocks
        assert (clock.name, clock.size, clock.filled) == ("Alarm raised", 6, 3)

    def test_created_and_ticked_in_one_reply_and_sizes_kept(self) -> None:
        """002: "un reloj se puede crear y avanzar en la misma respuesta"; "Un tamaño no
        permitido … impide crearlo": 12 segments is not one of this ruleset's sizes."""
        reply = (
            '[clock: name="Ritual" size="8"] [clock: name="Ritual" tick="1"] '
            '[clock: name="Siege" size="12"]'
        )
        result = process(reply, FIVE_E, Snapshot(), seed=1)
        made, ticked, refused = result.receipts
        assert (made.attr("now"), ticked.attr("now")) == ("0/8", "1/8")
        assert (refused.attr("result"), refused.reason) == ("refused", "bad-size")
        assert [c.name for c in result.snapshot.ruleset_clocks] == ["Ritual"]
