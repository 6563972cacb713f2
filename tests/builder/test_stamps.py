"""A catalog step's `stamp` and the rows a pick writes, between builds (004, `stamp`, 1.108 and
1.130; BUILDER B7, B37): the 5e sample's cantrips step, `within` the class step and stamping
the spells' `notes` column, and `gmtags.builder.card.Writer.picked_row`."""

from __future__ import annotations

import copy
from typing import Any

from gmtags import Ruleset, load_ruleset
from gmtags.builder.build import BuildResult, build_character
from tests.builder import samples

EDIT = "Wizard, taught by my mentor"


def sample(stamp: dict[str, Any] | None = None) -> Ruleset:
    """The 5e sample; `stamp` replaces the cantrips step's own (`notes` ← the class's label)."""
    data = samples.five_e()
    if stamp is not None:
        samples.step(data, "cantrips")["stamp"] = stamp
    return load_ruleset(data)


def answers(cls: str, *cantrips: str) -> dict[str, Any]:
    return {
        "v": 1,
        "seed": 5,
        "steps": {"class": {"picks": [cls]}, "cantrips": {"picks": [*cantrips]}},
    }


def notes(result: BuildResult) -> dict[str, Any]:
    """Each spell row's notes, by the spell's name."""
    return {row["name"]: row.get("notes") for row in result.card["lists"]["spells"]}


def edited(result: BuildResult, name: str, value: str, column: str = "notes") -> dict[str, Any]:
    """The card with `column` of the spell row `name` changed by hand, as in All fields."""
    card = copy.deepcopy(result.card)
    for row in card["lists"]["spells"]:
        if row["name"] == name:
            row[column] = value
    return card


class TestAnEditOfAStampedColumn:
    def test_stays_the_players_while_the_pick_stays(self) -> None:
        """004's `"stamp": { "class": "wizard" }`: "El sello sustituye al valor inicial del
        catálogo. Las filas existentes y las ediciones posteriores en All fields siguen siendo
        del jugador": a stamped cell edited by hand is not stamped again, build after build."""
        ruleset = sample({"notes": "wizard"})
        first = build_character(ruleset, answers("wizard", "fire-bolt", "light"))
        assert notes(first) == {"Fire Bolt": "wizard", "Light": "wizard"}
        again = build_character(
            ruleset, answers("wizard", "fire-bolt", "light"), edited(first, "Light", EDIT)
        )
        assert notes(again) == {"Fire Bolt": "wizard", "Light": EDIT}
        more = answers("wizard", "fire-bolt", "light")
        more["steps"]["level"] = {"fields": {"level": 3}}
        later = build_character(ruleset, more, again.card)
        assert notes(later) == {"Fire Bolt": "wizard", "Light": EDIT}
        assert later.card["lists"]["spells"][1]["_catalog"] == "spells/light"

    def test_until_the_pick_changes_then_the_new_picks_row_is_stamped(self) -> None:
        """004: the stamp is written "en cada fila que añade": Mage Hand picked in place of the
        edited Light gets the step's stamp, and Light picked again is a new row, stamped
        again; the untouched Fire Bolt row stays as it was."""
        ruleset = sample({"notes": "wizard"})
        first = build_character(ruleset, answers("wizard", "fire-bolt", "light"))
        card = edited(first, "Light", EDIT)
        swapped = build_character(ruleset, answers("wizard", "fire-bolt", "mage-hand"), card)
        assert notes(swapped) == {"Fire Bolt": "wizard", "Mage Hand": "wizard"}
        back = build_character(ruleset, answers("wizard", "fire-bolt", "light"), swapped.card)
        assert notes(back) == {"Fire Bolt": "wizard", "Light": "wizard"}

    def test_any_cell_of_the_row_stays_the_players(self) -> None:
        """004: "una edición hecha en All fields se mantiene hasta que cambie la propia
        respuesta del creador para ese valor": an unstamped cell of a pick's row too."""
        ruleset = sample()
        first = build_character(ruleset, answers("wizard", "light"))
        card = edited(first, "Light", "Light (on my staff)", column="name")
        again = build_character(ruleset, answers("wizard", "light"), card)
        assert notes(again) == {"Light (on my staff)": "Wizard"}


class TestFromWithin:
    def test_written_once_when_the_row_is_added(self) -> None:
        """004 (1.130): fromWithin "escribe una cadena o un número una sola vez al añadir la
        fila": Light stays picked when the class changes from wizard to cleric, so its row keeps
        "Wizard"; a build with no card adds the row under the cleric."""
        ruleset = sample()
        wizard = build_character(ruleset, answers("wizard", "light"))
        assert notes(wizard) == {"Light": "Wizard"}
        cleric = build_character(ruleset, answers("cleric", "light"), wizard.card)
        assert notes(cleric) == {"Light": "Wizard"}
        assert notes(build_character(ruleset, answers("cleric", "light"))) == {"Light": "Cleric"}

    def test_an_edit_survives_the_parent_changing(self) -> None:
        """The hand edit of the stamped cell stays while the cantrip's pick stays, whatever the
        class step now holds."""
        ruleset = sample()
        wizard = build_character(ruleset, answers("wizard", "light"))
        card = edited(wizard, "Light", EDIT)
        cleric = build_character(ruleset, answers("cleric", "light"), card)
        assert notes(cleric) == {"Light": EDIT}


class TestRowsOfAPick:
    def test_the_players_own_rows_are_never_stamped(self) -> None:
        """004: "Las filas existentes … siguen siendo del jugador": a spell row the player
        wrote is not stamped by picks in the same list."""
        ruleset = sample({"notes": "wizard"})
        card = {"lists": {"spells": [{"name": "Friends", "level": 0}]}}
        given = {**answers("wizard", "light"), "described": False}  # not described (H1)
        result = build_character(ruleset, given, card)
        assert notes(result) == {"Friends": None, "Light": "wizard"}

    def test_two_rows_of_one_pick_keep_their_own_cells(self) -> None:
        """A pick's rows in one list are told apart by their order among that pick's rows: an
        edit of the second stays on the second."""
        data = samples.five_e()
        samples.step(data, "cantrips")["stamp"] = {"notes": "wizard"}
        spells = next(c for c in data["catalogs"] if c["id"] == "spells")
        bolt = next(e for e in spells["entries"] if e["id"] == "fire-bolt")
        bolt["rows"].append({"list": "spells", "values": {"name": "Fire Bolt (cantrip scaling)"}})
        ruleset = load_ruleset(data)
        first = build_character(ruleset, answers("wizard", "fire-bolt"))
        card = edited(first, "Fire Bolt (cantrip scaling)", "2d10 at 5th level")
        again = build_character(ruleset, answers("wizard", "fire-bolt"), card)
        assert notes(again) == {
            "Fire Bolt": "wizard",
            "Fire Bolt (cantrip scaling)": "2d10 at 5th level",
        }

    def test_an_entry_choices_row_stays_edited_while_chosen(self, five_e: Ruleset) -> None:
        """The half-elf's language, chosen in the choices step, writes its row; an All-fields
        edit of it stays while the choice stays, and a new choice writes its own row."""
        ans: dict[str, Any] = {"v": 1, "seed": 5, "steps": {"race": {"picks": ["half-elf"]}}}
        ans["choices"] = {"race/half-elf/entries.0": ["elvish"]}
        first = build_character(five_e, ans)
        card = copy.deepcopy(first.card)
        (row,) = card["lists"]["proficiencies"]
        row["name"] = "Elvish (Sindarin)"
        kept = build_character(five_e, ans, card)
        assert [r["name"] for r in kept.card["lists"]["proficiencies"]] == ["Elvish (Sindarin)"]
        ans["choices"] = {"race/half-elf/entries.0": ["orc"]}
        changed = build_character(five_e, ans, kept.card)
        assert [r["name"] for r in changed.card["lists"]["proficiencies"]] == ["Orc"]
