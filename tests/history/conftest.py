"""History tests share the transcript fixtures."""

from tests.transcript.conftest import crows, heist, heist_done, start

__all__ = ["crows", "heist", "heist_done", "start"]
