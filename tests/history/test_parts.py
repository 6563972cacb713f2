"""gmtags/history/parts.py: snapshots cut into shared parts and put back together."""

from __future__ import annotations

import copy
import json
import tempfile
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gmtags import Snapshot, build_character, load_ruleset
from gmtags.history.fingerprint import fingerprint
from gmtags.history.forms import INLINE_BELOW
from gmtags.history.parts import (
    assemble,
    manifest,
    part_ids,
    read_manifest,
    split,
)
from gmtags.history.snapshots import canonical_json, snapshot_hash
from gmtags.history.store import HistoryStore
from gmtags.state.names import normalize_name
from gmtags.state.snapshot import load_snapshot
from tests.conftest import FIXTURES


@cache
def built_card() -> dict[str, Any]:
    """The 5e builder sample's half-elf wizard: a full card of about 3.7 KB."""
    ruleset = load_ruleset(FIXTURES / "rulesets" / "builder" / "5e-builder.json")
    answers = json.loads((FIXTURES / "answers" / "5e-half-elf-wizard.json").read_text())
    return build_character(ruleset, answers).card


@cache
def fixture_snapshots() -> tuple[dict[str, Any], ...]:
    """Snapshots from the fixtures: empty, the crows chat's start, a party of built cards."""
    crows = load_snapshot(FIXTURES / "transcripts" / "crows-state.json").to_json_dict()
    party = {
        "gameCharacterCards": {"Ada": built_card(), "Bram the Quiet": built_card()},
        "gamePartySheet": {"fields": {"heat": 2}, "lists": {"contacts": [{"name": "Lyra"}]}},
        "rulesetLive": {"ada": {"pools": {"hp": 3}}, "$party": {"pools": {"coin": 4}}},
        "rulesetClocks": [{"name": "Alarm raised", "size": 6, "filled": 4}],
        "gamePartySheetRevision": 3,
        "rulesetLayers": ["grim"],
    }
    return ({}, crows, party)


NAMES = st.one_of(
    st.sampled_from(["Ada", "Élise", "Bram the Quiet"]),
    st.text(st.sampled_from([*"AbZé ß-'", "🎲", "\u00a0"]), min_size=1, max_size=8),
)
SCALARS = st.one_of(
    st.integers(-5, 10**6), st.booleans(), st.none(), st.text(max_size=12), st.floats(-9, 9)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


def _card(data: dict[str, Any], name: str) -> dict[str, Any]:
    cards = data.setdefault("gameCharacterCards", {})
    return cards.setdefault(name, {})  # type: ignore[no-any-return]


EDITS = st.one_of(
    st.tuples(st.just("ability"), NAMES, st.sampled_from(["str", "hunt", "é"]), st.integers(0, 20)),
    st.tuples(st.just("field"), NAMES, st.sampled_from(["level", "note"]), SCALARS),
    st.tuples(st.just("card"), NAMES, st.sampled_from(["full", "empty"])),
    st.tuples(st.just("drop"), NAMES),
    st.tuples(st.just("track"), NAMES, st.sampled_from(["stress", "harm"]), st.integers(0, 9)),
    st.tuples(st.just("party"), st.sampled_from(["heat", "lair"]), SCALARS),
    st.tuples(st.just("clock"), st.sampled_from(["Alarm", "Dawn", "Élan"]), st.integers(0, 4)),
    st.tuples(st.just("revision"), st.integers(0, 50)),
    st.tuples(st.just("layers"), st.lists(st.sampled_from(["grim", "lite"]), max_size=2)),
    st.tuples(st.just("extra"), st.sampled_from(["uiNotes", "zz"]), JSON),
)


def edited(base: dict[str, Any], edits: list[tuple[Any, ...]]) -> Snapshot:
    """A fixture snapshot with random edits applied to its JSON data."""
    data = copy.deepcopy(base)
    for edit in edits:
        kind, *args = edit
        if kind == "ability":
            _card(data, args[0]).setdefault("abilities", {})[args[1]] = args[2]
        elif kind == "field":
            _card(data, args[0]).setdefault("fields", {})[args[1]] = args[2]
        elif kind == "card":
            data.setdefault("gameCharacterCards", {})[args[0]] = (
                copy.deepcopy(built_card()) if args[1] == "full" else {}
            )
        elif kind == "drop":
            data.get("gameCharacterCards", {}).pop(args[0], None)
        elif kind == "track" and normalize_name(args[0]):
            live = data.setdefault("rulesetLive", {})
            entry = live.setdefault(normalize_name(args[0]), {})
            entry.setdefault("tracks", {})[args[1]] = args[2]
        elif kind == "party":
            data.setdefault("gamePartySheet", {}).setdefault("fields", {})[args[0]] = args[1]
        elif kind == "clock":
            clocks = [c for c in data.get("rulesetClocks", []) if c["name"] != args[0]]
            data["rulesetClocks"] = [*clocks, {"name": args[0], "size": 4, "filled": args[1]}]
        elif kind == "revision":
            data["gamePartySheetRevision"] = args[0]
        elif kind == "layers":
            data["rulesetLayers"] = sorted(set(args[0]))
        elif kind == "extra":
            data[args[0]] = args[1]
    return Snapshot.model_validate(data)


SNAPSHOTS = st.builds(
    edited,
    st.sampled_from(range(3)).map(lambda index: fixture_snapshots()[index]),
    st.lists(EDITS, max_size=6),
)


def _read_full(snapshot: Snapshot) -> Snapshot:
    """The snapshot a full canonical JSON body reads back as (layout 1: today's reading)."""
    return Snapshot.model_validate(json.loads(canonical_json(snapshot.to_json_dict())))


def _numbered(parts: dict[str, str]) -> tuple[dict[str, int], dict[int, Any]]:
    ids = {digest: number for number, digest in enumerate(sorted(parts), start=1)}
    return ids, {ids[digest]: json.loads(text) for digest, text in parts.items()}


class TestSplit:
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(SNAPSHOTS)
    def test_assembled_data_is_the_canonical_json(self, snapshot: Snapshot) -> None:
        """A split snapshot keeps its name (the sha256 of its canonical JSON), and its manifest
        and parts give back exactly that JSON, key order included."""
        data = snapshot.to_json_dict()
        cut = split(data)
        assert cut.name == snapshot_hash(snapshot)
        ids, parts = _numbered(cut.parts)
        slots = read_manifest(manifest(cut, ids))
        assert part_ids(slots) == set(parts)
        back = assemble(slots, parts)
        expected = json.loads(canonical_json(data))
        assert json.dumps(back, ensure_ascii=False) == json.dumps(expected, ensure_ascii=False)

    def test_a_full_card_is_a_shared_part(self) -> None:
        """Two snapshots that differ only in one character's stress share every part but that
        character's live values: both cards, the party sheet."""
        party = fixture_snapshots()[2]
        one = split(edited(party, [("track", "Ada", "stress", 1)]).to_json_dict())
        two = split(edited(party, [("track", "Ada", "stress", 2)]).to_json_dict())
        assert one.name != two.name
        assert len(set(one.parts) - set(two.parts)) == 1
        cards = one.slots["gameCharacterCards"]
        assert cards == two.slots["gameCharacterCards"]
        assert isinstance(cards, dict) and all(isinstance(s, str) for s in cards.values())
        assert one.slots["gamePartySheet"] == two.slots["gamePartySheet"]

    def test_short_values_are_written_inline(self) -> None:
        """A value shorter than the inline limit is in the manifest itself, not a part."""
        cut = split({"gamePartySheetRevision": 3, "rulesetLayers": ["grim"]})
        assert cut.parts == {}
        assert manifest(cut, {}) == '{"gamePartySheetRevision":[3],"rulesetLayers":[["grim"]]}'
        long = {"rulesetLayers": ["x" * INLINE_BELOW]}
        assert len(split(long).parts) == 1


class TestStoredParts:
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(SNAPSHOTS, min_size=1, max_size=4))
    def test_a_stored_snapshot_reads_back_as_a_full_body_did(
        self, snapshots: list[Snapshot]
    ) -> None:
        """Snapshots stored as parts (sharing some) read back, from a store opened again, equal
        to what their full canonical JSON reads as, down to the text they write."""
        with tempfile.TemporaryDirectory() as folder:
            self._round_trip(Path(folder) / "round.sqlite", snapshots)

    def _round_trip(self, path: Path, snapshots: list[Snapshot]) -> None:
        with HistoryStore(path) as store:
            store.ensure_chat("c", snapshots[0])
            parent = None
            for number, (before, after) in enumerate(pairwise(snapshots)):
                print_ = fingerprint(f"reply {number}")
                parent = store.add_node("c", parent, before, after, print_, None, current=True).id
        with HistoryStore(path) as store:
            for snapshot in snapshots:
                read = store.snapshot(snapshot_hash(snapshot))
                assert read == snapshot
                assert read.to_json() == _read_full(snapshot).to_json()
