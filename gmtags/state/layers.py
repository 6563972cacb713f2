"""A new game's start snapshot with the layers chosen for it (`--layers`, SPEC §4)."""

from __future__ import annotations

from collections.abc import Sequence

from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.played import LayerChoiceError, chosen_layers
from gmtags.state.snapshot import Snapshot


def start_layers(snapshot: Snapshot, layer_ids: Sequence[str]) -> Snapshot:
    """The snapshot a new game starts from with `layer_ids` (`--layers`, SPEC §4).

    A snapshot naming no layers gets them; one that names the same layers is
    kept; one that names others is an existing game whose layers were chosen
    when it was created, so `LayerChoiceError` says so rather than change the
    rules under it.
    """
    if not layer_ids:
        return snapshot
    if not snapshot.ruleset_layers:
        # `model_copy` does not validate: the ids are plain strings `chosen_layers` checked.
        return snapshot.model_copy(update={"ruleset_layers": tuple(layer_ids)})
    if set(snapshot.ruleset_layers) == set(layer_ids):
        return snapshot
    given = ",".join(snapshot.ruleset_layers)
    raise LayerChoiceError(
        f"--layers: the state already plays the layers {given}; "
        "--layers only sets them for a new game"
    )


def layered_start(ruleset: Ruleset, snapshot: Snapshot, written: str | None) -> Snapshot:
    """`--layers` (None: not given) applied to the start `snapshot` of a new game: the ids
    checked by `chosen_layers`, then set by `start_layers`; `LayerChoiceError` says why not."""
    if written is None:
        return snapshot
    return start_layers(snapshot, chosen_layers(ruleset, written))


__all__ = ["layered_start", "start_layers"]
