"""What one `gmtags serve` runs with (SPEC §7)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gmtags.ruleset.model import Ruleset
from gmtags.state.snapshot import Snapshot

DISPLAYS = ("receipts", "cards", "hidden")
"""SPEC §7.3: what the player sees, the values of `--display`."""

MAX_BODY = 1024 * 1024
"""The largest request body accepted (bytes); a larger one gets 413."""
PROMPT_MARKER = "{{gmtags}}"
"""Where a text prompt takes the GM instructions (else they open the prompt)."""
TURN_MARKER = "{{gmtags_turn}}"
"""Where a text prompt takes the per-turn reminder (else it follows the instructions)."""
UPSTREAM_TIMEOUT = 300.0
"""Seconds to wait for the upstream to connect, answer, or send the next piece of a stream."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """The ruleset, the upstream and the history file of one proxy."""

    ruleset: Ruleset
    upstream: str
    """The upstream's base URL including `/v1`."""
    db: str
    """The SQLite history file (`:memory:` keeps it in memory)."""
    start: Snapshot = field(default_factory=Snapshot)
    """The snapshot a new chat starts from (`--state`)."""
    display: str = "receipts"
    """SPEC §7.3 `--display`: what the client receives where a command stood: its receipt
    (`receipts`), a one-line card (`cards`), or nothing (`hidden`: the narration alone)."""
    merge_instructions: bool = False
    """Always append the turn reminder to the last user message (`--merge-instructions`)."""
    token: str | None = None
    """`--token`: what every `/gmtags/` route and the proxy require (`gmtags.server.auth`)."""
    host: str = "127.0.0.1"
    """`--host`: the address listened on, a name the server answers to (`gmtags.server.guard`)."""
    public_hosts: tuple[str, ...] = ()
    """`--public-host`: more names the server answers to (behind a reverse proxy, a LAN name)."""
    allow_origins: tuple[str, ...] = ()
    """`--allow-origin`: web origins whose pages may call the server (CORS)."""
    max_body: int = MAX_BODY
    upstream_timeout: float = UPSTREAM_TIMEOUT
    upstream_key: str | None = None
    """The upstream's API key kept on the server (`--upstream-key-env NAME` reads it from that
    environment variable): gmtags sets the upstream's own auth header with it, and the
    client's `Authorization: Bearer` (or `x-api-key`) may then carry the token instead."""
    prompt_marker: str = PROMPT_MARKER
    """`--prompt-marker`: where a text prompt takes the GM instructions."""
    turn_marker: str = TURN_MARKER
    """`--turn-marker`: where a text prompt takes the per-turn reminder."""
