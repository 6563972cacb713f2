"""The builder page and its two JSON endpoints (SPEC §10, §11; BUILDER §2.7).

- `GET /gmtags/builder?chat=…[&name=…][&party=1]`: the guided builder for the
  served ruleset (`gmtags.server.pages.builder_page`): plain HTML, the
  script and styles under `/gmtags/static/builder/`, what it needs from the
  ruleset embedded in the page. The page keeps the answers (and an undo
  stack) itself and asks the build endpoint for the card on every change.
- `POST /gmtags/api/builder/build` `{"answers", "card"?, "party"?, "chat"?}`:
  the §10 result (`BuildResult.to_json`). Stateless: with
  `party: true` the members are the characters of `chat`'s current snapshot
  (none without a chat) and `card` defaults to that snapshot's party sheet.
- `POST /gmtags/api/builder/save` `{"chat", "name", "card"}` (a character) or
  `{"chat", "party": true, "sheet", "revision"}` (the party sheet): written
  into the chat's current snapshot in one transaction
  (`HistoryStore.edit_current`), answered `{"state": snapshot}`; a stale party
  revision is 409 `{"error", "latest": snapshot}` and nothing is written. A
  save tells the chat's followers (`book.events.changed`), so the state page
  shows it at once.

Errors are 400 `{"error", "problems": [{"path", "message"}]}`, each problem at
its place in the body (`answers.steps.race.pick`, `card.abilities`, `name`).

Decisions where SPEC §11 is silent:
- A chat the proxy has not seen reads as the start snapshot (`--state`): the
  page and a party build see what its first reply would start from; a save
  into it makes it known first (with that start snapshot) and the save is
  what its first reply starts from, so a player may build before playing.
- A character save replaces the card stored under the same normalised name
  (`gmtags.state.saves.save_card`).
- A body over the proxy's `max_body` is 413, like a completion's, refused before more of it is
  read; a body that is not strict JSON (`gmtags.server.bodies`) is 400.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from gmtags.builder.build import BuildResult, build_character
from gmtags.builder.view import holds, views
from gmtags.errors import AnswersError, Problem, RulesetError, SnapshotError
from gmtags.ruleset.model import Ruleset
from gmtags.server.bodies import BodyError, read_json_body
from gmtags.server.chats import MAX_CHAT_ID, ChatBook, chat_id_problem
from gmtags.server.config import ServerConfig
from gmtags.server.errors import json_response
from gmtags.server.pages import builder_page
from gmtags.sheet.holds import card_problems_for, name_problems
from gmtags.state.saves import StaleRevision, save_card, save_party_sheet
from gmtags.state.snapshot import Snapshot, card_problems


class BadRequest(Exception):
    """A body the endpoints refuse: its status, what is wrong and where."""

    def __init__(self, status: int, error: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(error)
        self.status = status
        self.error = error
        self.problems = list(problems)

    def response(self) -> Response:
        problems = [{"path": p.path, "message": p.message} for p in self.problems]
        return json_response({"error": self.error, "problems": problems}, self.status)


async def read_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object (strict JSON, read no further than `limit` bytes: a larger
    body is refused before more of it is read), or `BadRequest`."""
    try:
        data = await read_json_body(request, limit)
    except BodyError as error:
        what = "too large" if error.status == 413 else "not strict JSON"
        problem = Problem("(body)", error.message)
        raise BadRequest(error.status, f"the body is {what}", [problem]) from None
    if not isinstance(data, dict):
        raise BadRequest(400, "the body is a JSON object", [Problem("(root)", "not an object")])
    return data


def chat_of(data: Mapping[str, Any], required: bool) -> str | None:
    """The body's `chat`: a chat id (`chat_id_problem`)."""
    chat = data.get("chat")
    if chat is None and not required:
        return None
    problem = chat_id_problem(chat) if isinstance(chat, str) else "must be text"
    if problem is not None:
        message = f"a chat id {problem}"
        raise BadRequest(
            400,
            "no chat to save into" if chat is None else "bad chat id",
            [Problem("chat", message)],
        )
    return chat


def snapshot_of(book: ChatBook, chat: str | None) -> Snapshot | None:
    """The chat's current snapshot; an unknown chat reads as the start (module doc)."""
    if chat is None:
        return None
    current = book.current(chat)
    return book.start if current is None else current


def checked_card(value: Any, where: str, party: bool) -> dict[str, Any] | None:
    """A card (or party sheet) from a body, validated as a snapshot holds it."""
    if value is None:
        return None
    problems = card_problems(value, where, party)
    if problems:
        raise BadRequest(400, f"{where} is not a {'party sheet' if party else 'card'}", problems)
    return dict(value)


def build(
    ruleset: Ruleset,
    answers: Any,
    card: dict[str, Any] | None,
    party: bool,
    members: Mapping[str, Any] | None,
) -> BuildResult:
    """`build_character`, its two errors as `BadRequest` with the places in the body."""
    try:
        return build_character(ruleset, answers, card, party=party, members=members)
    except AnswersError as error:
        problems = [
            Problem(
                p.path if p.path.startswith(("members", "card")) else _under("answers", p.path),
                p.message,
            )
            for p in error.problems
        ]
        raise BadRequest(400, "the answers or the card are invalid", problems) from None
    except RulesetError as error:
        what = "the party sheet" if party else "a character"
        raise BadRequest(400, f"the served ruleset cannot build {what}", error.problems) from None


def _under(root: str, path: str) -> str:
    return root if path in ("", "(root)") else f"{root}.{path}"


def routes(config: ServerConfig, book: ChatBook) -> list[BaseRoute]:
    """The builder page's routes (module doc)."""
    ruleset = config.ruleset

    async def page(request: Request) -> Response:
        chat = request.query_params.get("chat") or None
        name = request.query_params.get("name") or None
        party = request.query_params.get("party") in ("1", "true", "yes")
        if chat is not None and len(chat) > MAX_CHAT_ID:
            chat = None
        status, html = builder_page.render(ruleset, snapshot_of(book, chat), chat, name, party)
        return HTMLResponse(html, status_code=status)

    async def build_endpoint(request: Request) -> Response:
        try:
            data = await read_body(request, config.max_body)
            party = data.get("party") is True
            chat = chat_of(data, required=False)
            if "answers" not in data:
                raise BadRequest(400, "no answers", [Problem("answers", "required")])
            card = checked_card(data.get("card"), "card", party)
            members: dict[str, Any] | None = None
            if party:
                snapshot = snapshot_of(book, chat)
                state = snapshot.to_json_dict() if snapshot is not None else {}
                members = dict(state.get("gameCharacterCards") or {})
                if card is None and isinstance(state.get("gamePartySheet"), dict):
                    card = state["gamePartySheet"]
            answers = data["answers"]
            res = await run_in_threadpool(build, ruleset, answers, card, party, members)
        except BadRequest as bad:
            return bad.response()
        body = res.to_json()
        if data.get("view") is True:  # the page's own: the steps it draws from their views
            body["view"] = views(ruleset, res, party)
            body["holds"] = holds(ruleset, res, party)
        return json_response(body)

    async def save_endpoint(request: Request) -> Response:
        try:
            data = await read_body(request, config.max_body)
            chat = chat_of(data, required=True)
            assert chat is not None
            change, save = _change(data, ruleset)
            try:
                if book.current(chat) is None:
                    change(book.start)  # a refused save never makes the chat known
                    book.store.ensure_chat(chat, book.start)
                saved = book.store.edit_current(chat, change, save)
            except StaleRevision as stale:
                latest = stale.latest.to_json_dict()
                return json_response({"error": str(stale), "latest": latest}, 409)
            except SnapshotError as error:
                raise BadRequest(
                    400, "the save would not make a valid snapshot", error.problems
                ) from None
        except BadRequest as bad:
            return bad.response()
        book.events.changed(chat)  # the state page follows the chat live
        return json_response({"state": saved.to_json_dict()})

    return [
        Route("/gmtags/builder", page, methods=["GET"]),
        Route("/gmtags/api/builder/build", build_endpoint, methods=["POST"]),
        Route("/gmtags/api/builder/save", save_endpoint, methods=["POST"]),
    ]


def _change(
    data: Mapping[str, Any], ruleset: Ruleset
) -> tuple[Callable[[Snapshot], Snapshot], dict[str, Any]]:
    """What a save body asks to write: a change of the chat's current snapshot, and the save as
    the store keeps it (carried onto the other replies of the chat: `ChatBook`). A body
    missing what a save needs is 400; a name or card the sheet cannot hold is 422 with every
    problem and its path (`gmtags.sheet.holds`), checked before anything is stored."""
    if data.get("party") is True:
        sheet = data.get("sheet")
        if sheet is None:
            raise BadRequest(400, "no party sheet to save", [Problem("sheet", "required")])
        revision = data.get("revision")
        if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
            message = "the revision the sheet was opened on, a whole number ≥ 0"
            raise BadRequest(400, "no revision", [Problem("revision", message)])
        problems = card_problems_for(ruleset, sheet, party=True, where="sheet")
        if problems:
            raise BadRequest(422, "the party sheet cannot be saved as it is", problems)
        held = dict(sheet)
        save = {"party": True, "sheet": held}
        return (lambda snapshot: save_party_sheet(snapshot, held, revision)), save
    name, card = data.get("name"), data.get("card")
    if name is None:
        raise BadRequest(
            400, "no name to save the character as", [Problem("name", "a character name")]
        )
    if card is None:
        raise BadRequest(400, "no card to save", [Problem("card", "required")])
    problems = name_problems(name) + card_problems_for(ruleset, card, where="card")
    if problems:
        raise BadRequest(422, "the character cannot be saved as it is", problems)
    named, held = str(name).strip(), dict(card)
    save = {"name": named, "card": held}
    return (lambda snapshot: save_card(snapshot, named, held)), save


__all__ = ["routes"]
