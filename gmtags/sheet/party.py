"""The shared party sheet's values: its fields, the fields read from members, its pools.

002, "Ficha de grupo: una banda, una nave o Story Points compartidos": party
fields use the schema of `sheet.fields` and are stored once in
`gamePartySheet.fields`; party pools use that of `sheet.live.pools` and live in
`rulesetLive["$party"]`, with the same current/maximum arithmetic and defaults
as a character's. A pool's `max` reads a constant or a party number field, and
`hideWhen` names party fields: party formulas read only party values.

"Creación compartida del grupo": a `fromMembers` field is worked out from the
characters as they are at every read (`count: true`: how many there are;
`sum`: what one of their number fields adds up to), so a character joining or
leaving changes it at once. It is never stored and never advanced.
"""

from __future__ import annotations

from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.party import Party
from gmtags.ruleset.refs import RulesetValueRef
from gmtags.ruleset.sheet import HideWhen, NumberField
from gmtags.sheet.live import MAX_LIVE_NUMBER, PoolSpec
from gmtags.sheet.values import Scalar, SheetValues, read_value, whole
from gmtags.state.characters import party_members
from gmtags.state.names import PARTY_KEY
from gmtags.state.snapshot import EMPTY_LIVE, Snapshot


def _same(shown: object, wanted: object) -> bool:
    """hideWhen compares numbers by value and never a boolean with a number."""
    if isinstance(shown, bool) or isinstance(wanted, bool):
        return shown is wanted
    return shown == wanted


class PartyValues:
    """The party sheet of one snapshot, read as the rules say (never raising on stored data)."""

    def __init__(self, ruleset: Ruleset, party: Party, snapshot: Snapshot) -> None:
        self.ruleset = ruleset
        self.party = party
        self.snapshot = snapshot
        self.stored = snapshot.game_party_sheet.fields if snapshot.game_party_sheet else {}
        self.live = snapshot.ruleset_live.get(PARTY_KEY) or EMPTY_LIVE
        self.fields = {field.id: field for field in party.fields}
        self.members = {member.field: member for member in party.from_members}
        self._memo: dict[str, Scalar] = {}

    def from_members(self, field_id: str) -> bool:
        """True for a `fromMembers` field (002 "Creación compartida…"): never stored or advanced."""
        return field_id in self.members

    def field(self, field_id: str) -> Scalar:
        """A party field as shown (002 "Ficha de grupo…"): stored, default, or from members."""
        if field_id in self._memo:
            return self._memo[field_id]
        shape = self.fields.get(field_id)
        value: Scalar
        if shape is None:
            value = 0
        elif field_id in self.members:
            value = read_value(shape, self._member_total(field_id))
        else:
            value = read_value(shape, self.stored.get(field_id))
        self._memo[field_id] = value
        return value

    def _member_total(self, field_id: str) -> float:
        """`count`: how many characters there are; `sum`: their number field added up."""
        rule = self.members[field_id]
        members = party_members(self.snapshot)
        if rule.count:
            return len(members)
        total: float = 0
        for member in members:
            values = SheetValues(
                self.ruleset, member.card, self.snapshot.ruleset_live.get(member.key)
            )
            total += values.field_number(rule.sum or "")
        return total

    def field_number(self, field_id: str) -> float:
        """A party number field's value (002 "Ficha de grupo…"; 0 for anything else)."""
        value = self.field(field_id)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return 0
        return value

    def hidden(self, rule: HideWhen | None) -> bool:
        """Whether a party `hideWhen` hides an element (002: it names only party fields)."""
        if rule is None:
            return False
        shown = self.field(rule.field)
        if rule.in_ is not None:
            return any(_same(shown, item) for item in rule.in_)
        if rule.not_equals is not None:
            return not _same(shown, rule.not_equals)
        return _same(shown, rule.equals)

    def value(self, ref: RulesetValueRef) -> float:
        """A party formula (002: a constant or a party number field; anything else reads 0)."""
        if ref.const is not None:
            return ref.const
        if ref.field is not None and isinstance(self.fields.get(ref.field), NumberField):
            return self.field_number(ref.field)
        return 0

    def pools(self) -> tuple[PoolSpec, ...]:
        """The party's pools now: not hidden, maximum above 0 (ENGINE-NOTES §8)."""
        pools: list[PoolSpec] = []
        for pool in self.party.pools:
            if self.hidden(pool.hide_when):
                continue
            top = min(whole(self.value(pool.max)), MAX_LIVE_NUMBER)
            if top <= 0:
                continue
            if pool.start_from is not None:
                start = min(max(whole(self.value(pool.start_from)), 0), top)
            else:
                start = 0 if pool.starts_empty else top
            pools.append(
                PoolSpec(
                    key=pool.id,
                    label=pool.label,
                    max=top,
                    start=start,
                    allow_temp=pool.allow_temp,
                    group=pool.group,
                )
            )
        return tuple(pools)
