"""gmtags/commands/transcript.py: `gmtags transcript reprocess|rebuild|state` (SPEC §6)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
from pathlib import Path

from gmtags import Ruleset, Snapshot
from gmtags.commands.transcript import transcript as transcript_group
from gmtags.transcript.tasks import FULL_PASS_NEVER, Task, no_full_collections, run_file
from tests.conftest import Ran, invoke
from tests.transcript.conftest import CROWS, GOLDEN, GROUP, HEIST, PLAIN, START, copy_to


def transcript(*args: str | Path) -> Ran:
    """`gmtags transcript ARGS` run in this process."""
    return invoke(transcript_group, *args)


def reprocessed(tmp_path: Path) -> Path:
    """The heist chat reprocessed into `tmp_path/done.jsonl`."""
    out = tmp_path / "done.jsonl"
    result = transcript("reprocess", HEIST, "--ruleset", CROWS, "--state", START, "--out", out)
    assert result.returncode == 0, result.stderr
    return out


class TestReprocessCommand:
    def test_writes_stdout_without_out(self) -> None:
        """With one chat and no --out the reprocessed chat goes to stdout."""
        result = transcript("reprocess", HEIST, "--ruleset", CROWS, "--state", START)
        assert result.returncode == 0
        assert 'result=\\"ok\\" now=\\"2/8\\"' in result.stdout
        assert result.stdout.count("\n") == HEIST.read_text().count("\n")

    def test_out_file_matches_stdout(self, tmp_path: Path) -> None:
        """--out writes the same bytes stdout would carry."""
        out = reprocessed(tmp_path)
        result = transcript("reprocess", HEIST, "--ruleset", CROWS, "--state", START)
        assert out.read_text(encoding="utf-8") == result.stdout

    def test_a_folder_with_jobs(self, tmp_path: Path) -> None:
        """A folder of chats over two processes writes each under --out, with a summary."""
        folder = tmp_path / "chats"
        folder.mkdir()
        for source in (HEIST, GROUP, PLAIN):
            copy_to(folder, source)
        out = tmp_path / "out"
        result = transcript(
            "reprocess", folder, "--ruleset", CROWS, "--state", START, "--out", out, "--jobs", "2"
        )
        assert result.returncode == 0, result.stderr
        assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in folder.iterdir())
        assert "reprocess: 3 chats, 9 assistant messages" in result.stderr
        single = transcript("reprocess", HEIST, "--ruleset", CROWS, "--state", START)
        assert (out / HEIST.name).read_text(encoding="utf-8") == single.stdout

    def test_jobs_do_not_change_a_byte(self, tmp_path: Path) -> None:
        """Issue 16: a folder reprocessed with one, two or more processes than chats writes the
        same files, and the summary counts the same chats, messages and swipes."""
        folder = tmp_path / "chats"
        (folder / "deeper").mkdir(parents=True)
        for source in (HEIST, GROUP, PLAIN, GOLDEN / "generated.jsonl"):
            copy_to(folder, source)
        copy_to(folder / "deeper", GOLDEN / "odd.jsonl")
        written: dict[str, dict[str, bytes]] = {}
        summaries: dict[str, str] = {}
        for jobs in ("1", "2", "7"):
            out = tmp_path / f"out-{jobs}"
            args = ("--ruleset", CROWS, "--state", START, "--out", out, "--jobs", jobs)
            result = transcript("reprocess", folder, *args)
            assert result.returncode == 0, result.stderr
            written[jobs] = {
                str(path.relative_to(out)): path.read_bytes() for path in out.rglob("*.jsonl")
            }
            summaries[jobs] = result.stderr.rsplit(" in ", 1)[0]
        assert written["1"] == written["2"] == written["7"]
        assert sorted(written["1"]) == sorted(
            str(path.relative_to(folder)) for path in folder.rglob("*.jsonl")
        )
        assert summaries["1"] == summaries["2"] == summaries["7"]
        assert summaries["1"].startswith("reprocess: 5 chats, 74 assistant messages")

    def test_failures_are_reported_in_the_order_of_the_chats(self, tmp_path: Path) -> None:
        """With several processes (the largest chat started first) the errors still come in
        the chats' order, and every good chat is written."""
        folder = tmp_path / "chats"
        folder.mkdir()
        (folder / "a-bad.jsonl").write_text('{"chat_metadata":{}}\n{oops\n', encoding="utf-8")
        copy_to(folder, HEIST)
        (folder / "z-bad.jsonl").write_text("[1]\n", encoding="utf-8")
        out = tmp_path / "out"
        args = ("--ruleset", CROWS, "--state", START, "--out", out, "--jobs", "2")
        result = transcript("reprocess", folder, *args)
        assert result.returncode == 1
        lines = result.stderr.splitlines()
        assert lines[0].startswith(f"gmtags: {folder / 'a-bad.jsonl'}, line 2: not valid JSON")
        bad = folder / "z-bad.jsonl"
        assert lines[1] == f"gmtags: {bad}, line 1: a chat line must be a JSON object"
        assert lines[2].startswith("reprocess: 1 chat, 4 assistant messages")
        assert lines[2].endswith(", 2 failed in " + lines[2].split(" in ")[1])
        assert [path.name for path in out.iterdir()] == [HEIST.name]

    def test_several_chats_need_out(self) -> None:
        """Several chats without --out is a usage error (exit 2)."""
        result = transcript("reprocess", HEIST, GROUP, "--ruleset", CROWS)
        assert result.returncode == 2
        assert "--out" in result.stderr

    def test_missing_file(self) -> None:
        """A missing chat exits 1 with one clear line and no traceback."""
        result = transcript("reprocess", "nope.jsonl", "--ruleset", CROWS)
        assert result.returncode == 1
        assert result.stderr == "gmtags: chat file not found: nope.jsonl\n"

    def test_bad_json_line(self, tmp_path: Path) -> None:
        """A bad JSON line exits 1 naming its line number."""
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"chat_metadata":{}}\n{"name":"GM","is_user":false,"mes":"x"}\n{oops\n')
        result = transcript("reprocess", bad, "--ruleset", CROWS)
        assert result.returncode == 1
        assert "line 3: not valid JSON" in result.stderr
        assert "Traceback" not in result.stderr

    def test_bad_ruleset(self, tmp_path: Path) -> None:
        """A ruleset that does not exist exits 1 through gmtags.cli's loader."""
        result = transcript("reprocess", HEIST, "--ruleset", tmp_path / "none.json")
        assert result.returncode == 1
        assert "ruleset file not found" in result.stderr


class TestNoFullCollections:
    def test_no_full_pass_comes_due_while_a_chat_runs(
        self, tmp_path: Path, crows: Ruleset, start: Snapshot
    ) -> None:
        """Issue 16: while a chat runs the collector's full-pass threshold is out of reach,
        and it is put back when the chat is done, whether it ran or failed."""
        before = gc.get_threshold()
        with no_full_collections():
            assert gc.get_threshold() == (*before[:2], FULL_PASS_NEVER)
        assert gc.get_threshold() == before
        good = Task("reprocess", str(HEIST), str(tmp_path / "out.jsonl"))
        assert run_file(good, crows, start).messages == 4
        assert gc.get_threshold() == before
        bad = Task("reprocess", str(tmp_path / "none.jsonl"), None)
        assert run_file(bad, crows, start).error is not None
        assert gc.get_threshold() == before

    def test_overlapping_chats_put_it_back_once_the_last_is_done(self) -> None:
        """Chats running at once in threads (a Dask worker's) keep the threshold raised until
        the last of them ends, and the thresholds from before come back then."""
        before = gc.get_threshold()
        first_in, second_out = threading.Event(), threading.Event()
        seen: list[tuple[int, int, int]] = []

        def first() -> None:
            with no_full_collections():
                first_in.set()
                second_out.wait(5)
                seen.append(gc.get_threshold())

        thread = threading.Thread(target=first)
        thread.start()
        first_in.wait(5)
        with no_full_collections():
            pass
        second_out.set()
        thread.join(5)
        assert seen == [(*before[:2], FULL_PASS_NEVER)]
        assert gc.get_threshold() == before


class TestRebuildCommand:
    def test_honest_chat_exits_0(self, tmp_path: Path) -> None:
        """A chat whose receipts the rules confirm rebuilds to the same file, exit 0."""
        done = reprocessed(tmp_path)
        result = transcript("rebuild", done, "--ruleset", CROWS, "--out", tmp_path / "again.jsonl")
        assert result.returncode == 0, result.stderr
        assert (tmp_path / "again.jsonl").read_bytes() == done.read_bytes()

    def test_forged_receipt_exits_1_with_a_report(self, tmp_path: Path) -> None:
        """A forged clock is reported by message, swipe and tag, exit 1."""
        done = reprocessed(tmp_path)
        text = done.read_text(encoding="utf-8")
        done.write_text(text.replace('now=\\"2/8\\"', 'now=\\"7/8\\"'), encoding="utf-8")
        result = transcript("rebuild", done, "--ruleset", CROWS, "--out", tmp_path / "r.jsonl")
        assert result.returncode == 1
        assert (
            f"{done}: message 0, swipe 0, tag 1: now='7/8' but the rules give now='2/8'"
            in result.stderr
        )


class TestStateCommand:
    def test_last_message(self, tmp_path: Path) -> None:
        """Without --message: the state after the last message, as JSON."""
        result = transcript("state", reprocessed(tmp_path))
        assert result.returncode == 0
        assert json.loads(result.stdout)["rulesetLive"]["$party"] == {"pools": {"coin": 5}}

    def test_message_and_swipe(self, tmp_path: Path) -> None:
        """--message 2 --swipe 2 prints that swipe's clocks."""
        result = transcript("state", reprocessed(tmp_path), "--message", "2", "--swipe", "2")
        assert json.loads(result.stdout)["rulesetClocks"] == [
            {"name": "Patrol", "size": 8, "filled": 3}
        ]

    def test_not_processed(self) -> None:
        """A chat with no stored history exits 1 and says to reprocess it."""
        result = transcript("state", HEIST)
        assert result.returncode == 1
        assert "reprocess" in result.stderr
        assert "Traceback" not in result.stderr

    def test_swipe_of_a_user_message(self, tmp_path: Path) -> None:
        """A swipe of a message that has none exits 1."""
        result = transcript("state", reprocessed(tmp_path), "--message", "1", "--swipe", "0")
        assert result.returncode == 1
        assert "not an assistant message" in result.stderr


def without_stored_history(source: Path, target: Path) -> Path:
    """A copy of a reprocessed chat with gmtags' metadata taken out, as a chat played through
    the proxy looks (receipts in the messages, snapshots only in the proxy's store)."""
    lines = source.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    del header["chat_metadata"]["gmtags"]
    target.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return target


class TestDbOption:
    def test_reprocess_saves_the_replies_in_the_store(self, tmp_path: Path, db: str) -> None:
        """--db keeps each chat's replies in the store (SQLite or PostgreSQL), a plain chat's
        included, and `state --db` finds every message's snapshot there by fingerprint."""
        out = tmp_path / "out"
        args = ("--ruleset", CROWS, "--state", START, "--out", out, "--db", db)
        result = transcript("reprocess", HEIST, PLAIN, *args)
        assert result.returncode == 0, result.stderr
        again = transcript("reprocess", HEIST, PLAIN, *args)  # saving twice adds nothing
        assert again.returncode == 0, again.stderr
        from gmtags.history.store import HistoryStore
        from gmtags.transcript import read_chat, state
        from gmtags.transcript.stored import stored_state

        done = read_chat(out / HEIST.name)
        with HistoryStore(db) as store:
            assert store.chats() == ["crows-heist-0001", "plain-crows"]
            assert len(store.nodes("crows-heist-0001")) == 7  # one a swipe
            told = {node.excerpt for node in store.nodes("crows-heist-0001")}
            assert all(said and "[" not in said for said in told)  # each named by its words
            assert store.current("crows-heist-0001") == state(done)
            for message in range(len(done.messages)):
                assert stored_state(done, store, message) == state(done, message)
        from_file = transcript("state", out / HEIST.name, "--message", "5")
        from_db = transcript("state", out / HEIST.name, "--message", "5", "--db", db)
        assert from_db.returncode == 0, from_db.stderr
        assert json.loads(from_db.stdout) == json.loads(from_file.stdout)
        plain = transcript("state", out / PLAIN.name, "--db", db)
        assert json.loads(plain.stdout)["rulesetClocks"][0]["filled"] == 2

    def test_state_names_the_message_it_cannot_answer(self, tmp_path: Path, db: str) -> None:
        """A reply whose receipts match nothing stored leaves the state unknown, said by message."""
        done = tmp_path / "done.jsonl"
        args = ("--ruleset", CROWS, "--state", START, "--out", done, "--db", db)
        assert transcript("reprocess", HEIST, *args).returncode == 0
        lines = done.read_text(encoding="utf-8").splitlines()
        message = json.loads(lines[3])  # message 2, after the metadata line
        forged_text = message["mes"].replace('result="', 'result="forged-', 1)
        message["mes"] = message["swipes"][message["swipe_id"]] = forged_text
        lines[3] = json.dumps(message)
        forged = tmp_path / "forged.jsonl"
        forged.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = transcript("state", forged, "--db", db, "--message", "3")
        assert result.returncode == 1
        assert "message 2" in result.stderr and "match no reply" in result.stderr

    def test_rebuild_starts_from_the_stored_start(self, tmp_path: Path, db: str) -> None:
        """A chat whose snapshots live only in the store (SQLite or PostgreSQL) rebuilds clean
        from its stored start, where the empty start contradicts its receipts."""
        done = tmp_path / "done.jsonl"
        args = ("--ruleset", CROWS, "--state", START, "--out", done, "--db", db)
        assert transcript("reprocess", HEIST, *args).returncode == 0
        played = without_stored_history(done, tmp_path / "played.jsonl")
        blind = transcript("rebuild", played, "--ruleset", CROWS)
        assert blind.returncode == 1 and "message" in blind.stderr
        rebuilt = transcript("rebuild", played, "--ruleset", CROWS, "--db", db)
        assert rebuilt.returncode == 0, rebuilt.stderr
        named = transcript("rebuild", played, "--ruleset", CROWS, "--db", db, "--chat", "nope")
        assert named.returncode == 1 and "'nope' is not in" in named.stderr

    def test_chat_needs_db_and_db_must_exist(self, tmp_path: Path) -> None:
        """--chat without --db is a usage error; a missing store is named."""
        assert transcript("state", HEIST, "--chat", "x").returncode == 2
        missing = transcript("state", HEIST, "--db", tmp_path / "none.sqlite")
        assert missing.returncode == 1 and "history store not found" in missing.stderr


class TestChatId:
    def test_renaming_the_file_keeps_the_dice(self, tmp_path: Path) -> None:
        """The chat id is written into the chat, so a renamed file rolls the same dice."""
        plain_named = tmp_path / "first-name.jsonl"
        lines = HEIST.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        del header["chat_metadata"]["chat_id"]
        plain_named.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
        once = tmp_path / "once.jsonl"
        args = ("--ruleset", CROWS, "--state", START)
        assert transcript("reprocess", plain_named, *args, "--out", once).returncode == 0
        assert (
            json.loads(once.read_text().splitlines()[0])["chat_metadata"]["gmtags"]["chatId"]
            == "first-name"
        )
        renamed = tmp_path / "other-name.jsonl"
        once.rename(renamed)
        twice = transcript("reprocess", renamed, *args)
        assert twice.stdout == renamed.read_text(encoding="utf-8")

    def test_rewriting_keeps_the_file_mode(self, tmp_path: Path) -> None:
        """A chat file written over keeps its permissions (another user may need to read it)."""
        target = copy_to(tmp_path, HEIST)
        target.chmod(0o644)
        args = ("--ruleset", CROWS, "--state", START, "--out", target)
        assert transcript("reprocess", target, *args).returncode == 0
        assert target.stat().st_mode & 0o777 == 0o644
        target.chmod(0o660)
        assert transcript("reprocess", target, *args).returncode == 0
        assert target.stat().st_mode & 0o777 == 0o660


class TestRegistration:
    def test_runs_under_the_main_group(self, tmp_path: Path) -> None:
        """The group works once added to `gmtags.cli.main`, as the lead registers it."""
        code = (
            "from gmtags.cli import main; from gmtags.commands.transcript import transcript; "
            "main.add_command(transcript); main()"
        )
        done = reprocessed(tmp_path)
        result = subprocess.run(
            [sys.executable, "-c", code, "transcript", "state", str(done), "--message", "0"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["rulesetLive"]["$party"] == {"pools": {"coin": 2}}
