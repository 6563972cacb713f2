"""The bundled 5e builder sample (fixtures/rulesets/builder/5e-builder.json) as a 5e player
reads it: Armor Class worked out from the armor and shield the character has, the starting
equipment or rolled starting wealth (never both), and the party's clocks in play."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gmtags import Snapshot, build_character, load_ruleset, process
from gmtags.builder.build import BuildResult
from gmtags.prompt.reminder import character_block, clock_commands
from gmtags.sheet.values import SheetValues
from gmtags.state.snapshot import CharacterCard
from tests.builder import samples

FIVE_E_PATH = samples.BUILDERS / "5e-builder.json"
FIVE_E = load_ruleset(FIVE_E_PATH)

ROGUE = {"class": {"picks": ["rogue"]}, "background": {"picks": ["criminal"]}}
FIGHTER = {"class": {"picks": ["fighter"]}, "background": {"picks": ["soldier"]}}
WEALTH = {"outfit": {"fields": {"starting_equipment": "wealth"}}}


def build(steps: dict[str, Any], dex: int, card: dict[str, Any] | None = None) -> BuildResult:
    """A build of `steps` with Dexterity `dex` (manual entry) on `card`; picks change it."""
    scores = {"scores": {"method": "manual", "scores": {"dex": dex}}}
    answers = {"v": 1, "seed": 5, "described": False, "steps": {**steps, **scores}}
    return build_character(FIVE_E, answers, card)


def values(card: dict[str, Any]) -> SheetValues:
    return SheetValues(FIVE_E, CharacterCard.model_validate(card), None)


def armor_class(card: dict[str, Any]) -> float:
    return values(card).derived("ac")


def step(result: BuildResult, step_id: str) -> dict[str, Any]:
    return next(s for s in result.steps if s["id"] == step_id)


def wearing(dex: int, *refs: str, **fields: int) -> dict[str, Any]:
    """A hand-written card: a Dexterity score, these items and these fields."""
    items = [{"ref": f"equipment/{ref}"} for ref in refs]
    return {"abilities": {"dex": dex}, "items": items, "fields": fields}


class TestArmorClass:
    def test_a_dex_17_rogue_in_leather_shows_14(self) -> None:
        """002: "itemStat lee los objetos que tiene el personaje, como la guardia de la
        armadura que lleva puesta". The rogue's kit puts leather on the card; SRD 5.1, leather
        is "11 + Dex modifier": 11 + 3, on the sheet and in the GM's sheet block."""
        result = build({**ROGUE, "gear": {"kits": ["rogue-kit"]}}, dex=17)
        assert {"ref": "equipment/leather-armor", "count": 1, "_kit": "rogue-kit"} in (
            result.card["items"]
        )
        assert armor_class(result.card) == 14
        state = Snapshot.model_validate({"gameCharacterCards": {"Vex": result.card}})
        (summary,) = [line for line in character_block(FIVE_E, state, "Vex") if "Level" in line]
        assert "Armor Class 14;" in summary

    def test_the_same_rogue_with_no_armor_shows_13(self) -> None:
        """SRD 5.1: "Without armor or a shield, your character's AC equals 10 + his or her
        Dexterity modifier". The rogue who has taken no kit has no armor yet: 10 + 3."""
        result = build(ROGUE, dex=17)
        assert "items" not in result.card
        assert armor_class(result.card) == 13

    def test_a_fighter_in_chain_mail_adds_no_dex_and_a_shield_adds_2(self) -> None:
        """SRD 5.1: chain mail is 16, heavy armor "doesn't let you add your Dexterity
        modifier"; a shield is +2. The fighter's kit holds both: 18 whatever the Dexterity."""
        for dex in (8, 14, 18):
            alone = build(FIGHTER, dex, wearing(dex, "chain-mail"))
            assert armor_class(alone.card) == 16, dex
            kit = build({**FIGHTER, "gear": {"kits": ["fighter-kit"]}}, dex)
            assert armor_class(kit.card) == 18, dex

    @pytest.mark.parametrize(
        ("armor", "dex", "ac"),
        [
            ("padded-armor", 16, 14),  # light: 11 + 3
            ("studded-leather-armor", 20, 17),  # light: 12 + 5, no limit
            ("leather-armor", 8, 10),  # light counts a negative modifier: 11 - 1
            ("hide-armor", 16, 14),  # medium: 12 + 2 (max 2), not + 3
            ("half-plate", 13, 16),  # medium: 15 + 1
            ("chain-shirt", 8, 12),  # medium counts a negative modifier: 13 - 1
            ("ring-mail", 20, 14),  # heavy: 14, no Dex
            ("plate-armor", 6, 18),  # heavy: 18, "doesn't penalize you" at -2
        ],
    )
    def test_the_srd_armor_table(self, armor: str, dex: int, ac: int) -> None:
        """SRD 5.1, Armor: light armor "11 + Dex modifier"; medium "12 + Dex modifier (max
        2)"; heavy "doesn't let you add your Dexterity modifier to your Armor Class, but it
        also doesn't penalize you if your Dexterity modifier is negative"."""
        assert armor_class(wearing(dex, armor)) == ac

    def test_one_shield_counts_and_the_other_bonus_adds(self) -> None:
        """SRD 5.1: "You can benefit from only one shield at a time"; what the armor table
        does not know (the Defense fighting style's +1) is the hand-written AC bonus."""
        assert armor_class(wearing(14, "scale-mail", "shield")) == 18  # 14 + 2 + 2
        assert armor_class(wearing(14, "scale-mail", "shield", "shield")) == 18
        assert armor_class(wearing(14, "shield")) == 14  # 10 + 2 + 2, no armor
        assert armor_class(wearing(14, "chain-mail", ac_misc=1)) == 17

    def test_a_fight_defends_with_it(self) -> None:
        """The combat block's defense reads the derived Armor Class, not a typed number."""
        defense = FIVE_E.combat_model.defense if FIVE_E.combat_model else None
        assert defense is not None and defense.derived == "ac"
        assert values(wearing(17, "leather-armor")).value(defense) == 14

    def test_the_toll_sergeant_wears_its_armor_class(self) -> None:
        """The bestiary's sheet-written creature keeps its Armor Class 17, now made by the
        ruleset's formula from the splint armor it wears rather than typed beside it."""
        data = json.loads(FIVE_E_PATH.read_text(encoding="utf-8"))
        (creatures,) = [c for c in data["catalogs"] if c["id"] == "creatures"]
        (sergeant,) = [e for e in creatures["entries"] if e["id"] == "toll-sergeant"]
        sheet = sergeant["creature"]["sheet"]
        assert "ac" not in sheet["fields"]
        assert armor_class(sheet) == 17


class TestKitOrGold:
    def test_the_kit_brings_its_gold_and_no_rolled_gold(self) -> None:
        """004: "Cualquier paso puede llevar when: Ref (mostrarlo y aplicarlo solo mientras el
        valor no vivo de la ficha sea mayor que cero)"; a kit's coins line takes "countFrom
        (una Ref que se lee de la ficha del portador)". The starting equipment is the default:
        the criminal rogue's kit hands over the pouch's 15 gp, and gold is never rolled."""
        result = build({**ROGUE, "gear": {"kits": ["rogue-kit"]}}, dex=17)
        assert result.card["builder"]["coins"] == {"gp": 15}
        assert "starting_gold" not in result.card["fields"]
        assert (step(result, "gear")["shown"], step(result, "wealth")["shown"]) == (True, False)
        assert "wealth" not in result.answers["steps"]
        assert result.pending["outfit"] == 0

    def test_rolled_wealth_brings_no_kit_and_no_kit_money(self) -> None:
        """004: "Los pasos ocultos conservan sus respuestas guardadas": a kit named in the
        answers before the player chose to roll is kept there, and gives nothing."""
        result = build({**ROGUE, **WEALTH, "gear": {"kits": ["rogue-kit"]}}, dex=17)
        assert "items" not in result.card and "coins" not in result.card["builder"]
        assert result.answers["steps"]["gear"] == {"kits": ["rogue-kit"]}
        assert step(result, "gear")["shown"] is False
        rolled = step(result, "wealth")["rolls"]["starting_gold"]
        assert len(rolled["faces"]) == 5 and rolled["total"] == 10 * sum(rolled["faces"])
        assert result.card["fields"]["starting_gold"] == rolled["total"]

    def test_taking_the_kit_again_drops_the_roll(self) -> None:
        """The roll already made stays in the answers, unused, once the player takes the kit
        after all: the card has the kit's gold and no rolled gold."""
        rolled = build({**ROGUE, **WEALTH}, dex=17).answers["steps"]["wealth"]
        kit = {"outfit": {"fields": {"starting_equipment": "kit"}}, "gear": {"kits": ["rogue-kit"]}}
        result = build({**ROGUE, **kit, "wealth": rolled}, dex=17)
        assert result.answers["steps"]["wealth"] == rolled
        assert "starting_gold" not in result.card["fields"]
        assert result.card["builder"]["coins"] == {"gp": 15}

    def test_no_background_no_pouch(self) -> None:
        """1.157: "una cantidad de 0 no añade nada": a kit taken before any background gives
        its items and no coins."""
        result = build({"class": {"picks": ["fighter"]}, "gear": {"kits": ["fighter-kit"]}}, 10)
        assert "coins" not in result.card["builder"] and len(result.card["items"]) == 5


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
