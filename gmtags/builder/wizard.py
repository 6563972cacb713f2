"""`gmtags character new`: the builder's terminal wizard (SPEC §10, BUILDER §2.6).

The wizard keeps only the answers (SPEC §10) and rebuilds the card with
`build_character` after every change, so Back/Next, undo and redo are exact by
construction: the card is a pure function of the ruleset, the answers and the
card the wizard started on. `Wizard` is the whole loop as a core that takes one
input line and returns the text to show (`feed`), so it is tested without a
terminal; the command reads the lines with click prompts.

The screen: a top line of the shown steps with their badges
(`[race✓] subrace✓ class(1) level(1) scores(27 left) …`; a step over its own budget
`scores(1, 2 over)`; the current step in brackets); the step's body, which is its view
(`gmtags.builder.view`, the same the builder page draws), every control in it numbered
(`gmtags.builder.wizard_view`); the character so far (`character_block`, the GM's sheet
block, and the pools). Keys:

    n / b          next / back (they never block: a badge is a reminder)
    g <step>       go to a step (its id, label or place in the top line)
    N              pick or unpick option N (an entry, a kit, a method, a choice); press
                   button N ([Set], [Roll … again], [Add a row]); flip a yes/no; for a
                   value, ask for it and each value after it
    N <value>      value N (`-` clears it); a count or a point-buy score takes `N +`, `N -`
    i N            option N's summary
    <name> <value> the value whose label starts with <name> (`int 15`: Intelligence)
    done           a described character's "Done: let picks change the sheet"
    = <key> <json> any key of the step's answer, as JSON (`= dots {"ability/str": 2}`);
                   `= <key>` drops it
    u / r          undo / redo an answer
    w              write the card to --out (even with badges pending: they are listed)
    q              quit without writing (a card written before stays as written)
    ?              this help

Decisions where BUILDER §2.6 is silent:
- A catalog step that takes one entry (`max` 1, no `countFrom`), and a choice slot of count
  1, replace the earlier answer when another is picked; the others add and remove.
- A number not on the list, an unknown step, a score that is not a number or an answer key
  that does not fit the answers document is said and ignored: the answers do not change.
- Going to a rows step marks it `visited` (BUILDER §3.14), as the web page's `goto` does;
  that mark is not an undo step of its own.
- `w` does not quit: the player may write, go on and write again; `q` never writes.
- `a`ll-fields (the card's own values) is the web page's; here `--card` gives them.
- A card opened described (filled, no builder record: `gmtags.builder.described`) says so
  above the steps; `done` builds on from the described card, so what the described picks
  stood for is taken back as they change. Undoing past `done` opens it described again.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gmtags.builder import wizard_view
from gmtags.builder.answers import read_answers
from gmtags.builder.build import build_character
from gmtags.builder.controls import Choose, Control, Flag, Number, Pick, Text, Visit, change
from gmtags.builder.view import step_view
from gmtags.errors import AnswersError
from gmtags.jsonfile import dumps
from gmtags.prompt.reminder import character_block
from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot

HELP = __doc__.split("Keys:\n\n", 1)[1].split("\n\nDecisions", 1)[0] if __doc__ else ""
"""The keys, as the module doc lists them."""

MAX_HISTORY = 200
"""Undo steps kept (the oldest go first)."""


@dataclass(frozen=True)
class Item:
    """One numbered thing in a step's body: what a number picks or unpicks."""

    kind: str  # "pick" (an option of the step's view), "choice", "method" or "control"
    value: str
    slot: str = ""
    """A choice option's slot key."""


class Wizard:
    """The wizard's loop over one character's answers (module doc)."""

    def __init__(
        self,
        ruleset: Ruleset,
        *,
        answers: dict[str, Any] | None = None,
        card: dict[str, Any] | None = None,
        seed: int | None = None,
        out: str | Path | None = None,
        name: str = "Character",
    ) -> None:
        model = ruleset.sheet.builder_model
        if model is None:
            raise ValueError("this ruleset has no builder")
        self.ruleset = ruleset
        self.model = model
        self.card = card
        self.out = Path(out) if out is not None else None
        self.name = name
        start = copy.deepcopy(answers) if answers is not None else {"v": 1}
        if seed is not None:
            start["seed"] = seed
        self.result = build_character(ruleset, start, card)
        self.history: list[dict[str, Any]] = [self.result.answers]
        self.place = 0
        self.at = 0
        self.asking: list[wizard_view.Typed] = []
        self.done = False
        self.labels = _labels(ruleset)
        self._mark_visited()

    # -- the loop -------------------------------------------------------------

    @property
    def answers(self) -> dict[str, Any]:
        return self.history[self.place]

    @property
    def step_id(self) -> str:
        return self.model.steps[self.at].id

    @property
    def prompt(self) -> str:
        """What the command prompts with: a value's label while asking for it."""
        if self.asking:
            asked = self.asking[0]
            now = wizard_view.shown(asked, self.answers)
            return f"{asked.label}{wizard_view.hint(asked)} [{now}]: "
        return f"{self.step_id}> "

    def start(self) -> str:
        return self.screen()

    def feed(self, line: str) -> str:
        """One input line → the text to show (a message, then the screen)."""
        if self.done:
            return ""
        if self.asking:
            return self._answer_asked(line)
        words = line.strip().split(maxsplit=1)
        if not words:
            return self.screen()
        key, rest = words[0], words[1] if len(words) > 1 else ""
        command = self._commands().get(key.lower())
        if command is not None:
            return command(rest.strip())
        if key.isdigit():
            return self._number(int(key), rest.strip())
        return self._by_name(key, rest.strip())

    def _commands(self) -> dict[str, Callable[[str], str]]:
        return {
            "n": lambda _: self._go(self._shown_after(1), edge=True),
            "b": lambda _: self._go(self._shown_after(-1), edge=True),
            "g": self._goto,
            "u": lambda _: self._undo(-1),
            "r": lambda _: self._undo(1),
            "w": lambda _: self.write(),
            "q": lambda _: self.quit(),
            "?": lambda _: HELP,
            "h": lambda _: HELP,
            "i": self._info,
            "done": lambda _: self._done(),
            "=": self._edit_key,
        }

    # -- navigation -----------------------------------------------------------

    def _shown(self) -> list[int]:
        shown = {s["id"] for s in self.result.steps if s["shown"]}
        return [n for n, s in enumerate(self.model.steps) if s.id in shown]

    def _shown_after(self, by: int) -> int:
        order = self._shown() or [self.at]
        later = [n for n in order if (n > self.at if by > 0 else n < self.at)]
        if not later:
            return self.at
        return later[0] if by > 0 else later[-1]

    def _go(self, at: int, edge: bool = False) -> str:
        moved, note = at != self.at, ""
        self.at = at
        self._mark_visited()
        if edge and not moved:
            note = "(the first step)" if at == (self._shown() or [at])[0] else "(the last step)"
        return self.screen(note)

    def _goto(self, where: str) -> str:
        where = where.strip()
        order = self._shown()
        if where.isdigit() and 1 <= int(where) <= len(order):
            return self._go(order[int(where) - 1])
        for n, step in enumerate(self.model.steps):
            if where.lower() in (step.id.lower(), step.label.lower()):
                return self._go(n)
        names = ", ".join(self.model.steps[n].id for n in order)
        return f"no step {where!r} (the steps: {names})"

    def _mark_visited(self) -> None:
        """What opening the step writes (its view's `Visit`s), not an undo step of its own."""
        visits = [c for c in self.view() if isinstance(c, Visit)]
        if not visits:
            return
        answers = copy.deepcopy(self.answers)
        for visit in visits:
            change(answers, visit, None)
        self.result = build_character(self.ruleset, answers, self.card)
        self.history[self.place] = self.result.answers

    # -- changes and history ----------------------------------------------------

    def _change(self, edit: Callable[[dict[str, Any]], None], note: str = "") -> str:
        answers = copy.deepcopy(self.answers)
        edit(answers)
        _prune(answers)
        try:
            read_answers(answers)
        except AnswersError as error:
            problems = "; ".join(str(p) for p in error.problems)
            return f"not taken (the answers would not fit: {problems})\n" + self.screen()
        self.result = build_character(self.ruleset, answers, self.card)
        del self.history[self.place + 1 :]
        self.history.append(self.result.answers)
        if len(self.history) > MAX_HISTORY:
            del self.history[0]
        self.place = len(self.history) - 1
        return self.screen(note)

    def _undo(self, by: int) -> str:
        place = self.place + by
        if not 0 <= place < len(self.history):
            return "nothing to " + ("undo" if by < 0 else "redo")
        self.place = place
        self.result = build_character(self.ruleset, self.answers, self.card)
        return self.screen("undone" if by < 0 else "redone")

    def _done(self) -> str:
        """004 "Done: let picks change the sheet": build on from the described card."""
        if self.answers.get("described") is not True:
            return "this character is not described: its picks already change the sheet"
        if (self.card or {}).get("builder") is None:
            self.card = self.result.card  # the described card, its record saying so
        return self._change(lambda answers: answers.update(described=False), "done")

    def _step_answer(self, answers: dict[str, Any]) -> dict[str, Any]:
        step: dict[str, Any] = answers.setdefault("steps", {}).setdefault(self.step_id, {})
        return step

    # -- writing and quitting -------------------------------------------------

    def pending_badges(self) -> list[str]:
        return [
            f"{s['id']}({s['pending']})" for s in self.result.steps if s["shown"] and s["pending"]
        ]

    def card_text(self) -> str:
        return dumps(self.result.card, indent=2) + "\n"

    def write(self) -> str:
        if self.out is None:
            return "no --out file to write to"
        try:
            self.out.write_text(self.card_text(), encoding="utf-8")
        except OSError as error:
            return f"cannot write card file {self.out}: {error.strerror}"
        pending = self.pending_badges()
        if pending:
            return f"wrote {self.out}; warning: still pending: " + " ".join(pending)
        return f"wrote {self.out}; every step done"

    def quit(self) -> str:
        self.done = True
        return "quit without writing"

    # -- the screen -----------------------------------------------------------

    def entry(self, step_id: str | None = None) -> Mapping[str, Any]:
        wanted = step_id or self.step_id
        for step in self.result.steps:
            if step["id"] == wanted:
                return step
        return {"id": wanted, "shown": False, "pending": 0, "choices": [], "offered": []}

    def top_line(self) -> str:
        parts = []
        for n in self._shown():
            step = self.model.steps[n]
            badge = self._badge(step.id)
            parts.append(f"[{step.id}{badge}]" if n == self.at else f"{step.id}{badge}")
        return " ".join(parts)

    def _badge(self, step_id: str) -> str:
        """The count the step waits for, and its own budget: points left, or over it."""
        pending = self.entry(step_id)["pending"]
        pool = self.result.pools.get(step_id)
        left = pool["remaining"] if pool else 0
        notes = [str(pending)] if pending else []
        if left > 0:
            notes.append(f"{left} left")
        elif left < 0:
            notes.append(f"{-left} over")
        return f"({', '.join(notes)})" if notes else "✓"

    def screen(self, note: str = "") -> str:
        step = self.model.steps[self.at]
        entry = self.entry()
        lines = [note] if note else []
        if self.answers.get("described") is True:
            lines.append(
                "Described: the picks record what this character already is and change"
                " nothing; `done` lets them change the sheet."
            )
        lines += [self.top_line(), "", f"{step.label} ({step.kind})"]
        if not entry["shown"]:
            lines.append("  (not shown for this character: its answers are kept, unused)")
        elif entry.get("required") is False:
            lines.append("  (not required for this character: what it still asks is not counted)")
        lines += self.body()
        lines += ["", *self.character(), "", "keys: n b g u r w q ?  (N picks, i N shows)"]
        return "\n".join(lines)

    def character(self) -> list[str]:
        snapshot = Snapshot.model_validate({"gameCharacterCards": {self.name: self.result.card}})
        lines = character_block(self.ruleset, snapshot, self.name)
        fields = self.result.card.get("fields") or {}
        written = [f"{self.labels.get(k, k)} {v}" for k, v in fields.items() if v not in ("", None)]
        if written:
            lines.insert(1, "  Fields: " + ", ".join(written))
        for pool_id, pool in self.result.pools.items():
            lines.append(
                f"  Pool {pool_id}: {pool['spent']} of {pool['budget']} spent, "
                f"{pool['remaining']} left"
            )
        return lines

    def items(self) -> list[Item]:
        """What each number of the step's body uses, in order (`gmtags.builder.wizard_view`)."""
        return [_item(use) for use in wizard_view.numbered(self.view())]

    def view(self) -> list[Control]:
        """The step's view (`gmtags.builder.view`): what the body shows and numbers."""
        controls = step_view(self.ruleset, self.model, self.result, self.step_id)
        return controls if controls is not None else []

    def body(self) -> list[str]:
        return wizard_view.lines(self.view(), self.answers) or ["  (nothing to choose here)"]

    def _number(self, number: int, rest: str) -> str:
        return self._use(wizard_view.numbered(self.view()), number, rest)

    def _use(self, uses: list[wizard_view.Use], number: int, rest: str) -> str:
        """Number `number` of a step drawn from its view (`gmtags.builder.wizard_view`): a
        value typed alone asks for it and the values after it."""
        if not 1 <= number <= len(uses):
            span = f"1-{len(uses)}" if uses else "none here"
            return f"no entry {number} here ({span}); nothing changed"
        control, value = uses[number - 1]
        if not rest and value is None and isinstance(control, Number | Text | Pick):
            typed = [c for c, _ in uses if isinstance(c, Number | Text | Pick | Flag)]
            self.asking = typed[typed.index(control) :]
            return "enter a value; empty keeps it, - clears it"
        return self._apply(uses[number - 1], rest)

    def _apply(self, use: wizard_view.Use, rest: str) -> str:
        taken, value, note = wizard_view.value_of(use, rest, self.answers)
        if not taken:
            return note
        return self._change(lambda answers: change(answers, use[0], value), note)

    def _answer_asked(self, line: str) -> str:
        asked = self.asking[0]
        text = line.strip()
        note = self._apply((asked, None), text) if text else ""
        if note.endswith("nothing changed"):
            return note  # the same value is asked again
        self.asking.pop(0)
        if self.asking:
            return note.split("\n", 1)[0] if note else ""
        return note or self.screen()

    def _by_name(self, key: str, rest: str) -> str:
        """`<name> <value>`: the value a control of the step's view takes, found by the last
        word of its name or the start of its label (`int 15`: Intelligence's score)."""
        uses = wizard_view.numbered(self.view())
        word = key.casefold()
        for place, (control, value) in enumerate(uses, 1):
            name = str(getattr(control, "name", "")).casefold()
            label = str(getattr(control, "label", "")).casefold()
            if value is None and rest and (name.endswith("-" + word) or label.startswith(word)):
                return self._use(uses, place, rest)
        return f"unknown key {key!r}; ? lists the keys"

    def _info(self, rest: str) -> str:
        uses = wizard_view.numbered(self.view())
        if not rest.isdigit() or not 1 <= int(rest) <= len(uses):
            return f"no entry {rest or '?'} here; i N shows entry N"
        control, value = uses[int(rest) - 1]
        option = next((o for o in getattr(control, "options", ()) if o.value == value), None)
        if option is None:
            return f"{getattr(control, 'label', '')}: (no summary)"
        about = option.summary or ", ".join(option.details)
        return f"{option.label}: {about or '(no summary)'}"

    def _edit_key(self, rest: str) -> str:
        words = rest.split(maxsplit=1)
        if not words:
            return "= <key> <json>: set a key of this step's answer (no JSON drops it)"
        key = words[0]
        value: Any = None
        if len(words) > 1:
            try:
                value = json.loads(words[1])
            except ValueError as error:
                return f"= {key}: not JSON ({error}); nothing changed"

        def edit(answers: dict[str, Any]) -> None:
            answer = self._step_answer(answers)
            if value is None:
                answer.pop(key, None)
            else:
                answer[key] = value

        return self._change(edit, f"{key} = {json.dumps(value)}")


def _item(use: wizard_view.Use) -> Item:
    """A numbered thing of a view as an `Item`: an option (of an entry choice's slot, or of
    the step), else a control by its label."""
    control, value = use
    if isinstance(control, Choose) and control.path[:1] == ("choices",):
        return Item("choice", value, str(control.path[1]))
    if value is not None:
        return Item("pick", value)
    return Item("control", getattr(control, "label", ""))


def _prune(answers: dict[str, Any]) -> None:
    """Empty step answers and choice slots are left out (the document stays as a script
    would write it)."""
    for name in ("steps", "choices"):
        holder = answers.get(name, {})
        for value in holder.values():
            if isinstance(value, dict):
                for inner in [k for k, v in value.items() if v in ([], {})]:
                    del value[inner]
        for key in [k for k, v in holder.items() if v in ({}, [])]:
            del holder[key]


def _labels(ruleset: Ruleset) -> dict[str, str]:
    """Labels for the ids a step lists: catalog entries, then sheet skills, saves,
    abilities and fields (the sheet's win a clash)."""
    labels: dict[str, str] = {}
    for catalog in ruleset.catalog_models:
        for entry in catalog.entries or ():
            labels.setdefault(entry.id, entry.label)
    sheet = ruleset.sheet
    for group in (sheet.skills, sheet.saves, sheet.abilities, sheet.fields):
        for thing in group:
            labels[thing.id] = getattr(thing, "label", None) or thing.id
    return labels


__all__ = ["HELP", "Item", "Wizard"]
