"""A game plays its active layers (SPEC §4 `rulesetLayers`, `--layers`) in every stage.

`process`, `StreamProcessor` and `gm_instructions` read the ruleset the
snapshot's layers make (`gmtags.ruleset.played.effective_ruleset`); every
command that starts a game takes `--layers`. The fixture `layers.json` narrows
its Watch enum (night goes, dawn is the new default), replaces the ladder,
hides the charm that costs Grit and adds guidance; the reference rulesets'
own layers are played too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Ruleset, Snapshot, StreamProcessor, load_ruleset, process
from gmtags.cli import main
from gmtags.commands import serve as server_cli
from gmtags.commands.transcript import transcript as transcript_group
from gmtags.prompt import gm_instructions
from gmtags.ruleset.played import effective_ruleset
from gmtags.server.config import ServerConfig
from tests.conftest import FIXTURES, REFERENCE_RULESETS, Ran, invoke
from tests.test_process import REPLIES

LAYERS_PATH = FIXTURES / "rulesets" / "layers.json"
EMBER_PATH = REFERENCE_RULESETS / "ember-roads.json"

MARA: dict[str, Any] = {
    "abilities": {"wits": 1},
    "fields": {"watch": "night"},
    "picks": ["charms/quick-hands", "charms/ember-ward"],
    "lists": {"tricks": [{"name": "Warding Sign", "bonus": 1, "_catalog": "charms/ember-ward"}]},
}
"""A warden of the night watch who picked both charms; Ember Ward wrote her Warding Sign row."""


def game(*layers: str, **cards: Any) -> Snapshot:
    """A snapshot with Mara's card (or `cards`) and `layers` active."""
    data: dict[str, Any] = {"gameCharacterCards": cards or {"Mara": MARA}}
    if layers:
        data["rulesetLayers"] = list(layers)
    return Snapshot.model_validate(data)


def attrs(receipt_text: str) -> dict[str, str]:
    """The `key="value"` attributes of one receipt."""
    body = receipt_text.strip()[1:-1].split(":", 1)[1]
    pairs = [part.split("=", 1) for part in body.split('" ') if "=" in part]
    return {key.strip(): value.strip().strip('"') for key, value in pairs}


def one(text: str, ruleset: Ruleset, snapshot: Snapshot, seed: int = 3) -> dict[str, str]:
    """The attributes of the one receipt `text` gives."""
    receipts = process(text, ruleset, snapshot, seed).receipts
    assert len(receipts) == 1
    return attrs(receipts[0].render())


def gmtags(*args: str | Path, stdin: str = "") -> Ran:
    """`gmtags ARGS` run in this process."""
    return invoke(main, *args, stdin=stdin)


@pytest.fixture(scope="module")
def watch() -> Ruleset:
    """The fixture ruleset with layers."""
    return load_ruleset(LAYERS_PATH)


@pytest.fixture(scope="module")
def ember() -> Ruleset:
    """Ember Roads, whose Hard winter layer has a harsher ladder and hides the Grit knacks."""
    return load_ruleset(EMBER_PATH)


# ---------------------------------------------------------------------------
# process


class TestLadder:
    def test_difficulty_reads_the_layer_ladder(self, ember: Ruleset) -> None:
        """SCHEMA-NOTES §12: the layer's ladder REPLACES the base one, so `difficulty=` names
        its rung (Ember Roads: Risky is 8, under Hard winter 9)."""
        check = '[skill_check: skill="Sneak" difficulty="Risky" who="Mara"]'
        juno = {"Mara": {"skills": {"sneak": "trained"}}}
        assert one(check, ember, game(**juno))["dc"] == "8"
        assert one(check, ember, game("hard_winter", **juno))["dc"] == "9"

    def test_a_pool_ladder_in_its_own_shape(self) -> None:
        """Gravewatch's Long night replaces successes and per-step targets (the reference
        file: "a pool ruleset swaps counts of successes and per-step targets")."""
        gravewatch = load_ruleset(REFERENCE_RULESETS / "gravewatch.json")
        check = '[skill_check: skill="Ward" difficulty="Grim" who="Bram"]'
        base = one(check, gravewatch, game(Bram={}))
        night = one(check, gravewatch, game("long_night", Bram={}))
        assert (base["dc"], base["threshold"]) == ("3", "8")
        assert (night["dc"], night["threshold"]) == ("4", "9")

    def test_the_fixture_ladder(self, watch: Ruleset) -> None:
        """The long day's Risky is 10 where the file's is 8."""
        check = '[skill_check: skill="Ward" difficulty="Risky"]'
        assert one(check, watch, game())["dc"] == "8"
        assert one(check, watch, game("long_day"))["dc"] == "10"


class TestRemovedEnumValue:
    def test_reads_the_new_default_in_a_check(self, watch: Ruleset) -> None:
        """002: a removed value reads as the field's default ("Esa fila nunca se lee mientras
        la capa está activa"): night's +2 row is not read, dawn has none, so no adjust."""
        check = '[skill_check: skill="Ward" dc="8"]'
        base = one(check, watch, game())
        day = one(check, watch, game("long_day"))
        assert (base["adjust"], base["modifier"]) == ("+2", "3")
        assert "adjust" not in day and day["modifier"] == "1"

    def test_reads_the_new_default_in_hide_when(self, watch: Ruleset) -> None:
        """002, hideWhen: "un valor enum que el conjunto ya no ofrece es el predeterminado del
        campo": night reads as dawn, so the oil pool hidden at dawn is not on the sheet."""
        spend = '[sheet: op="spend" pool="Lantern oil" amount="1"]'
        assert one(spend, watch, game())["result"] == "ok"
        day = one(spend, watch, game("long_day"))
        assert (day["result"], day["reason"]) == ("refused", "unknown-pool")

    def test_the_card_is_never_rewritten(self, watch: Ruleset) -> None:
        """Reading a removed value as the default changes nothing stored."""
        after = process('[sheet: op="spend" pool="Grit" amount="1"]', watch, game("long_day"), 1)
        assert after.snapshot.game_character_cards["Mara"].fields == {"watch": "night"}
        assert after.snapshot.ruleset_layers == ("long_day",)

    def test_the_reference_low_magic(self) -> None:
        """The 5e draft's Low magic takes int and cha off the spellcasting enum: a wizard's
        stored int reads as none, which hides the spell slots (hideWhen equals none)."""
        five = load_ruleset(REFERENCE_RULESETS / "ruleset-5e-2014.example.json")
        wizard = {"Ilse": {"fields": {"spellcasting_ability": "int", "slots_max_1": 2}}}
        spend = '[sheet: op="spend" pool="1st-level slots" amount="1"]'
        assert one(spend, five, game(**wizard))["result"] == "ok"
        assert one(spend, five, game("low_magic", **wizard))["reason"] == "unknown-pool"


class TestHiddenEntries:
    def test_use_does_not_offer_a_hidden_entry(self, watch: Ruleset) -> None:
        """SPEC §4: an entry a layer hides is not offered to `use=`, even when picked."""
        use = '[sheet: op="use" name="Ember Ward"]'
        assert one(use, watch, game())["now"] == "Ember Ward: Grit 2/3"
        day = one(use, watch, game("long_day"))
        assert (day["result"], day["reason"]) == ("refused", "unknown-entry")

    def test_apply_does_not_offer_a_hidden_entry(self, watch: Ruleset) -> None:
        """SPEC §4: `apply=` leaves a hidden entry out; the row it wrote when picked keeps
        what it gave (004: "sigue contando por lo que dio") and still applies."""
        check = '[skill_check: skill="Ward" dc="8" apply="Ember Ward; Warding Sign"]'
        base = one(check, watch, game())
        day = one(check, watch, game("long_day"))
        assert (base["from"], base["effects"]) == ("Ember Ward; Warding Sign", "+3")
        assert (day["from"], day["effects"]) == ("Warding Sign", "+1")

    def test_a_shown_entry_is_still_offered(self, watch: Ruleset) -> None:
        """Hiding reaches only the entries its filter matches: Quick Hands (cost 0) applies."""
        check = '[skill_check: skill="Ward" dc="8" apply="Quick Hands"]'
        assert one(check, watch, game("long_day"))["from"] == "Quick Hands"

    def test_the_reference_hard_winter(self, ember: Ruleset) -> None:
        """Ember Roads' Hard winter hides the knacks that cost Grit: Last Ember cannot be
        used, while the trick row it wrote keeps its uses (what the pick gave)."""
        juno = {
            "lists": {
                "knacks": [{"name": "Last Ember", "_catalog": "knacks/last-ember"}],
                "tricks": [
                    {
                        "name": "Last Ember",
                        "uses": 2,
                        "recharge": "camp",
                        "_catalog": "knacks/last-ember",
                    }
                ],
            }
        }
        use = '[sheet: op="use" name="Last Ember"]'
        assert one(use, ember, game(Juno=juno))["result"] == "ok"
        assert one(use, ember, game("hard_winter", Juno=juno))["reason"] == "unknown-entry"
        spend = '[sheet: op="spend" pool="Last Ember" amount="1"]'
        assert one(spend, ember, game("hard_winter", Juno=juno))["now"] == "1/2"


class TestStream:
    @pytest.mark.parametrize("size", [1, 3, 17])
    def test_stream_plays_the_layers_as_process_does(self, watch: Ruleset, size: int) -> None:
        """`StreamProcessor` reads the same effective ruleset, so any chunking equals
        `process()` (SPEC §1) with layers active."""
        text = (
            'On watch. [skill_check: skill="Ward" difficulty="Risky" apply="Ember Ward"] '
            '[sheet: op="use" name="Ember Ward"] [sheet: op="spend" pool="Lantern oil" amount="1"]'
        )
        snapshot = game("long_day")
        whole = process(text, watch, snapshot, seed=5)
        stream = StreamProcessor(watch, snapshot, seed=5)
        out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
        out += stream.close()
        assert out == whole.text and stream.result.snapshot == whole.snapshot
        assert 'dc="10"' in out and 'reason="unknown-entry"' in out


# ---------------------------------------------------------------------------
# The GM text


class TestPrompt:
    def test_layer_text_follows_the_base_text(self, watch: Ruleset) -> None:
        """SCHEMA-NOTES §12: "Layer guidance is added after the base text, not in place of
        it": the check paragraph, then each active layer's guidance in the file's order."""
        system = gm_instructions(watch, game("hushed", "long_day")).system
        paragraph = (
            "Call for a check when a risky action on the watch is in doubt. "
            "The long day is on. Use the harsher ladder; nobody keeps the night watch. "
            "Hushed is on. Speak softly."
        )
        assert paragraph in system.split("\n\n")
        assert "The long day is on" not in gm_instructions(watch, game()).system

    def test_after_the_built_in_paragraph(self, watch: Ruleset) -> None:
        """Without `gm.checkGuidance` the built-in check paragraph is the base text the
        layers follow (never replaced by them)."""
        data = json.loads(LAYERS_PATH.read_text())
        data["gm"].pop("checkGuidance")
        bare = load_ruleset(data)
        system = gm_instructions(bare, game("hushed")).system
        assert "narrate the result the engine gives. Hushed is on. Speak softly." in system

    def test_the_reminder_teaches_the_layer_ladder(self, watch: Ruleset) -> None:
        """The turn reminder lists the rungs the game plays."""
        reminder = gm_instructions(watch, game("long_day")).reminder
        assert "Easy (7), Risky (10)" in reminder
        assert "Easy (6), Risky (8)" in gm_instructions(watch, game()).reminder

    def test_prompt_command_prints_the_order(self) -> None:
        """`gmtags prompt --layers` prints the base text, then the layers' text."""
        out = gmtags("prompt", "--ruleset", LAYERS_PATH, "--layers", "hushed,long_day")
        assert out.returncode == 0, out.stderr
        base = out.stdout.index("Call for a check when a risky action")
        day = out.stdout.index("The long day is on.")
        hushed = out.stdout.index("Hushed is on.")
        assert base < day < hushed < out.stdout.index("=== Turn reminder ===")


# ---------------------------------------------------------------------------
# The snapshot


class TestSnapshotLayers:
    def test_round_trip(self) -> None:
        """SPEC §4: `rulesetLayers` is stored under that name and reads back the same."""
        snapshot = Snapshot.model_validate({"rulesetLayers": ["long_day", "hushed"]})
        assert snapshot.ruleset_layers == ("long_day", "hushed")
        text = snapshot.to_json()
        assert json.loads(text) == {"rulesetLayers": ["long_day", "hushed"]}
        assert Snapshot.model_validate(json.loads(text)) == snapshot

    def test_absent_is_none_and_left_out(self) -> None:
        """SPEC §4: absent means no layer; an empty list is not written, like any default."""
        assert Snapshot().ruleset_layers == ()
        assert "rulesetLayers" not in Snapshot.model_validate({"rulesetLayers": []}).to_json()

    def test_ids_are_strings(self) -> None:
        """A layer id is a string of 1–40 characters."""
        from gmtags.errors import SnapshotError
        from gmtags.state.snapshot import load_snapshot

        with pytest.raises(SnapshotError) as caught:
            load_snapshot({"rulesetLayers": ["ok", 3, ""]})
        assert [p.path for p in caught.value.problems] == ["rulesetLayers.1", "rulesetLayers.2"]

    def test_unknown_ids_are_kept_and_ignored(self, watch: Ruleset) -> None:
        """An id the ruleset has no layer for is kept in the snapshot and plays nothing (a
        game stays playable when its ruleset drops a layer)."""
        result = process('[skill_check: skill="Ward" difficulty="Risky"]', watch, game("gone"), 1)
        assert 'dc="8"' in result.text and result.snapshot.ruleset_layers == ("gone",)


# ---------------------------------------------------------------------------
# --layers on every command that starts a game


class TestLayersOption:
    CHECK = '[skill_check: skill="Ward" difficulty="Risky" who="Mara"]'

    def state(self, tmp_path: Path, **extra: Any) -> Path:
        path = tmp_path / "state.json"
        path.write_text(json.dumps({"gameCharacterCards": {"Mara": MARA}, **extra}))
        return path

    def test_process(self, tmp_path: Path) -> None:
        """`gmtags process --layers` plays them and writes them into `--state-out`."""
        out = tmp_path / "out.json"
        args = ["process", "--ruleset", LAYERS_PATH, "--state", self.state(tmp_path)]
        ran = gmtags(*args, "--layers", "long_day", "--state-out", out, stdin=self.CHECK)
        assert ran.returncode == 0, ran.stderr
        assert 'dc="10"' in ran.stdout
        assert json.loads(out.read_text())["rulesetLayers"] == ["long_day"]
        assert 'dc="8"' in gmtags(*args, stdin=self.CHECK).stdout

    def test_stream(self, tmp_path: Path) -> None:
        """`gmtags stream --layers` plays them."""
        args = ("stream", "--ruleset", LAYERS_PATH, "--layers", "long_day", "--seed", "1")
        ran = gmtags(*args, stdin=self.CHECK)
        assert ran.returncode == 0, ran.stderr
        assert 'dc="10"' in ran.stdout

    def test_prompt(self) -> None:
        """`gmtags prompt --layers` teaches the layer ladder."""
        ran = gmtags("prompt", "--ruleset", LAYERS_PATH, "--layers", "long_day")
        assert ran.returncode == 0 and "Risky (10)" in ran.stdout

    def test_unknown_id_is_one_line_and_exit_1(self) -> None:
        """An id the ruleset has no layer for is bad input: one line naming it, exit 1."""
        for command in ("process", "stream", "prompt"):
            ran = gmtags(command, "--ruleset", LAYERS_PATH, "--layers", "ghost", stdin="x")
            assert ran.returncode == 1
            assert ran.stderr == (
                "gmtags: --layers: ruleset 'layers' has no layer 'ghost' "
                "(its layers: long_day, endless_night, hushed)\n"
            )

    def test_conflicting_layers_exit_1(self) -> None:
        """Two layers in conflict do not start a game."""
        ran = gmtags("prompt", "--ruleset", LAYERS_PATH, "--layers", "long_day,endless_night")
        assert ran.returncode == 1 and "conflict" in ran.stderr

    def test_a_state_with_layers(self, tmp_path: Path) -> None:
        """A state that already names layers keeps them: the same ones are accepted, others
        exit 1 (the layers were chosen when that game was created)."""
        state = self.state(tmp_path, rulesetLayers=["long_day"])
        args = ("process", "--ruleset", LAYERS_PATH, "--state", state)
        same = gmtags(*args, "--layers", "long_day", stdin=self.CHECK)
        assert same.returncode == 0 and 'dc="10"' in same.stdout
        other = gmtags(*args, "--layers", "hushed", stdin=self.CHECK)
        assert other.returncode == 1 and "already plays the layers long_day" in other.stderr
        played = gmtags(*args, stdin=self.CHECK)
        assert 'dc="10"' in played.stdout

    def chat(self, tmp_path: Path, reply: str = CHECK) -> Path:
        """A SillyTavern chat of one assistant message: `reply` after a spend of Grit."""
        spend = '[sheet: who="Mara" op="spend" pool="Grit" amount="1"]'
        lines = [
            {"user_name": "Mara", "character_name": "GM", "chat_metadata": {"chat_id": "watch-1"}},
            {"name": "Mara", "is_user": True, "mes": "I keep watch."},
            {"name": "GM", "is_user": False, "mes": f"{spend} {reply}"},
        ]
        path = tmp_path / "chat.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return path

    def test_transcript_reprocess(self, tmp_path: Path) -> None:
        """`gmtags transcript reprocess --layers` plays them from the chat's start."""
        out = tmp_path / "out.jsonl"
        args = [
            *("reprocess", self.chat(tmp_path), "--ruleset", LAYERS_PATH),
            *("--state", self.state(tmp_path), "--layers", "long_day", "--out", out),
        ]
        ran = invoke(transcript_group, *args)
        assert ran.returncode == 0, ran.stderr
        assert 'dc=\\"10\\"' in out.read_text()
        state = invoke(transcript_group, "state", out)
        assert json.loads(state.stdout)["rulesetLayers"] == ["long_day"]

    def test_transcript_rebuild(self, tmp_path: Path) -> None:
        """`gmtags transcript rebuild --layers` starts the rebuilt history with them."""
        chat = self.chat(tmp_path, reply="The night is quiet.")
        done = tmp_path / "done.jsonl"
        start = ("--ruleset", LAYERS_PATH, "--state", self.state(tmp_path))
        reprocessed = invoke(transcript_group, "reprocess", chat, *start, "--out", done)
        assert reprocessed.returncode == 0, reprocessed.stderr
        out = tmp_path / "rebuilt.jsonl"
        ran = invoke(
            transcript_group, "rebuild", done, *start, "--layers", "long_day", "--out", out
        )
        assert ran.returncode == 0, ran.stderr
        state = json.loads(invoke(transcript_group, "state", out).stdout)
        assert state["rulesetLayers"] == ["long_day"]
        assert state["rulesetLive"]["mara"]["pools"]["grit"] == 2

    def test_transcript_unknown_id(self, tmp_path: Path) -> None:
        """An unknown id exits 1 before any chat runs."""
        chat = self.chat(tmp_path)
        ran = invoke(
            transcript_group, "reprocess", chat, "--ruleset", LAYERS_PATH, "--layers", "ghost"
        )
        assert ran.returncode == 1 and "has no layer 'ghost'" in ran.stderr and not ran.stdout

    def test_serve(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """`gmtags serve --layers` starts every new chat with them; an unknown id exits 1."""
        seen: dict[str, ServerConfig] = {}

        def create_app(config: ServerConfig) -> str:
            seen["config"] = config
            return "app"

        monkeypatch.setattr(server_cli, "create_app", create_app)
        monkeypatch.setattr(server_cli, "settle", lambda config: None)  # gc.freeze: not here
        monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: None)
        args = [
            *("--ruleset", str(LAYERS_PATH), "--upstream", "http://127.0.0.1:9/v1"),
            *("--db", str(tmp_path / "h.db"), "--layers", "long_day"),
        ]
        result = CliRunner().invoke(server_cli.serve_command, args)
        assert result.exit_code == 0, result.output
        assert seen["config"].start.ruleset_layers == ("long_day",)
        bad = CliRunner().invoke(server_cli.serve_command, [*args[:-1], "ghost"])
        assert bad.exit_code == 1 and "has no layer 'ghost'" in bad.output


# ---------------------------------------------------------------------------
# The property: no layer active, nothing changes


LAYER_FREE = st.lists(st.sampled_from(["ghost", "gone", "hard-winter", "Long_day"]), max_size=3)
"""Layer ids no fixture ruleset declares: a game naming only these plays no layer."""

TAGS = st.sampled_from(
    [
        '[skill_check: skill="Ward" difficulty="Risky" apply="Ember Ward; Warding Sign"]',
        '[skill_check: skill="Ward" dc="8"]',
        '[sheet: op="use" name="Ember Ward"]',
        '[sheet: op="spend" pool="Lantern oil" amount="1"]',
        '[sheet: op="spend" pool="Grit" amount="2"]',
    ]
)


class TestNoLayerChangesNothing:
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        reply=st.lists(st.one_of(REPLIES, TAGS), max_size=6).map(" ".join),
        ids=LAYER_FREE,
        seed=st.integers(0, 2**32),
    )
    def test_outputs_are_the_file_rulesets(
        self, watch: Ruleset, reply: str, ids: list[str], seed: int
    ) -> None:
        """With no layer active (none named, or only ids the file lacks), `effective_ruleset`
        is the ruleset itself and every output (text, display, receipts, snapshot, GM
        instructions) is what the file's ruleset gives."""
        assert effective_ruleset(watch, ids) is watch
        plain, named = game(), game(*ids)
        before = process(reply, watch, plain, seed)
        after = process(reply, watch, named, seed)
        assert (after.text, after.display, after.cards) == (
            before.text,
            before.display,
            before.cards,
        )
        assert after.receipts == before.receipts
        assert after.snapshot.model_copy(update={"ruleset_layers": ()}) == before.snapshot
        assert gm_instructions(watch, named) == gm_instructions(watch, plain)
