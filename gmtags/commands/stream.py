"""`gmtags stream`: the stream filter on stdin and stdout (SPEC §1).

Reads stdin as it arrives (whatever one read returns, never waiting for a
line), decodes UTF-8 incrementally (a character cut between reads waits for
its other bytes) and writes, then flushes, what can be shown after each read.
"""

from __future__ import annotations

import codecs
import io
import sys
from typing import BinaryIO

import click

from gmtags.commands.common import fail as _fail
from gmtags.commands.common import layers_option, rulesets_option, with_layers
from gmtags.commands.common import read_ruleset as _ruleset
from gmtags.commands.common import read_snapshot as _snapshot
from gmtags.commands.common import write_state as _write_state
from gmtags.stream.processor import StreamProcessor

READ_SIZE = 4096


def _read_piece(stream: BinaryIO) -> bytes:
    """Whatever is available now (at least one byte), up to READ_SIZE; b"" at the end."""
    if isinstance(stream, io.BufferedIOBase):
        return stream.read1(READ_SIZE)
    return stream.read(READ_SIZE)


def _show(text: str) -> None:
    if text:
        click.echo(text, nl=False)  # click.echo flushes


@click.command("stream")
@click.option("--ruleset", "ruleset_path", required=True, help="The ruleset JSON file.")
@click.option("--state", "state_path", help="The snapshot JSON to start from (default: empty).")
@click.option("--seed", type=int, help="Seed for the dice (default: a fresh one).")
@click.option("--state-out", "state_out", help="Write the snapshot after the reply here.")
@click.option("--display", is_flag=True, help="Print the narration with tags hidden.")
@click.option("--cards", is_flag=True, help="Print the narration with a card per tag.")
@layers_option
@rulesets_option
def stream_command(
    ruleset_path: str,
    state_path: str | None,
    seed: int | None,
    state_out: str | None,
    display: bool,
    cards: bool,
    layers: str | None,
    rulesets: tuple[str, ...],
) -> None:
    """Process a model reply from stdin as it streams, flushing output as it goes."""
    if display and cards:
        raise click.UsageError("--display and --cards are two views: choose one")
    ruleset = _ruleset(ruleset_path, rulesets)
    snapshot = with_layers(ruleset, _snapshot(state_path), layers)
    processor = StreamProcessor(ruleset, snapshot, seed, display=display, cards=cards)
    stdin = sys.stdin.buffer
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        while piece := _read_piece(stdin):
            _show(processor.feed(decoder.decode(piece)))
        _show(processor.feed(decoder.decode(b"", final=True)))
    except UnicodeDecodeError:
        _fail("input is not UTF-8 text")
    _show(processor.close())
    if state_out:
        _write_state(state_out, processor.result.snapshot)
