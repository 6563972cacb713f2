"""Logging: one structlog event per applied command, with its receipt.

gmtags logs through `structlog.get_logger("gmtags")`. An application that
configures structlog decides where events go. When nothing has configured it,
importing gmtags sets a quiet default (warnings and errors, to stderr) so a
library call never prints to stdout; the CLI's `--verbose` turns events on.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog


def configure(level: int = logging.WARNING) -> None:
    """Send events at `level` and above to stderr as one key=value line each."""
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.KeyValueRenderer(key_order=["event", "level"]),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )


if not structlog.is_configured():
    configure()


def get_logger(**context: Any) -> Any:
    """The gmtags logger. It stays lazy: the configuration in force at each call is used."""
    return structlog.get_logger("gmtags", **context)


_bound: tuple[tuple[object, ...], Any] | None = None


def command_logger() -> Any:
    """The gmtags logger bound for the configuration in force now (one event per command).

    Issue 16: the lazy logger binds itself again at every event (a few µs, on every tag);
    this one is bound once and bound again only when structlog is configured anew.
    """
    global _bound
    config = structlog.get_config()
    key = (
        config["processors"],
        config["context_class"],
        config["wrapper_class"],
        config["logger_factory"],
    )
    held = _bound
    if held is not None and all(a is b for a, b in zip(held[0], key, strict=True)):
        return held[1]
    logger = structlog.get_logger("gmtags").bind()
    _bound = (key, logger)
    return logger
