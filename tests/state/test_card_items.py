"""The card's `items` in the snapshot (SPEC §4): the shape of a line, its refusals, round trips."""

from __future__ import annotations

import json

import pytest

from gmtags.errors import SnapshotError
from gmtags.state.snapshot import CharacterCard, Snapshot, load_snapshot


def card(*items: object) -> CharacterCard:
    """A card holding `items`."""
    return CharacterCard.model_validate({"items": list(items)})


def snapshot_problems(*items: object) -> list[str]:
    """The paths a snapshot whose card Bram holds `items` is refused at."""
    with pytest.raises(SnapshotError) as caught:
        load_snapshot({"gameCharacterCards": {"Bram": {"items": list(items)}}})
    return [problem.path for problem in caught.value.problems]


class TestCardItems:
    def test_spec_shape_round_trips_byte_for_byte(self) -> None:
        """A ref line with every key, and a free-form line, are written back as read."""
        text = json.dumps(
            {
                "gameCharacterCards": {
                    "Bram": {
                        "items": [
                            {"ref": "kit/leather-coat", "count": 1, "worn": False, "slot": "body"},
                            {"ref": "kit/arrows", "count": 20},
                            {"name": "Odd stone", "stats": {"guard": 1}, "worn": True},
                        ]
                    }
                }
            },
            ensure_ascii=False,
        )
        snapshot = load_snapshot(json.loads(text))
        assert snapshot.to_json() == text
        assert load_snapshot(json.loads(snapshot.to_json())) == snapshot

    def test_defaults(self) -> None:
        """`count` defaults to 1, `worn` to false, `slot` to none."""
        line = card({"ref": "kit/arrows"}).items[0]
        assert (line.count, line.worn, line.slot) == (1, False, None)

    def test_unknown_keys_are_kept(self) -> None:
        """A key gmtags does not read on an item line survives a round trip."""
        data = {
            "gameCharacterCards": {"A": {"items": [{"ref": "kit/arrows", "fletched": "goose"}]}}
        }
        assert Snapshot.model_validate(data).to_json_dict() == data

    def test_count_zero_is_kept(self) -> None:
        """A line with no copy left stays on the card."""
        assert card({"ref": "kit/arrows", "count": 0}).items[0].count == 0

    @pytest.mark.parametrize("count", [-1, 1.5, "2", True, None, 1_000_001])
    def test_bad_count_is_refused_at_its_path(self, count: object) -> None:
        """A count that is no whole number of copies names its JSON path."""
        problems = snapshot_problems(
            {"ref": "kit/a"}, {"ref": "kit/b"}, {"ref": "kit/c", "count": count}
        )
        assert problems == ["gameCharacterCards.Bram.items.2.count"]

    @pytest.mark.parametrize(
        ("item", "path"),
        [
            ({"ref": "kit/a", "name": "Axe"}, "gameCharacterCards.Bram.items.0"),
            ({"count": 2}, "gameCharacterCards.Bram.items.0"),
            ({"ref": "kit/a", "stats": {"guard": 1}}, "gameCharacterCards.Bram.items.0"),
            ({"ref": "Leather coat"}, "gameCharacterCards.Bram.items.0.ref"),
            ({"ref": "kit/a", "worn": "yes"}, "gameCharacterCards.Bram.items.0.worn"),
            ({"ref": "kit/a", "slot": 3}, "gameCharacterCards.Bram.items.0.slot"),
            ({"name": ""}, "gameCharacterCards.Bram.items.0.name"),
            (
                {"name": "Stone", "stats": {"guard": [1]}},
                "gameCharacterCards.Bram.items.0.stats.guard",
            ),
            ("rope", "gameCharacterCards.Bram.items.0"),
        ],
    )
    def test_wrong_shapes_are_refused_at_their_path(self, item: object, path: str) -> None:
        """A line of the wrong shape is a `SnapshotError` at the line's or the key's path."""
        assert path in snapshot_problems(item)
