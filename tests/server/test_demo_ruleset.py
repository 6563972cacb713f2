"""gmtags/server/demo.py and `gmtags demo --serve --ruleset PATH`: the demo serving another
ruleset (to try the builder page on one with a builder)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from gmtags import load_ruleset
from gmtags.cli import main
from gmtags.server.demo import demo_config
from gmtags.state.snapshot import Snapshot

FIVE_E = (
    Path(__file__).resolve().parents[2] / "fixtures" / "rulesets" / "builder" / "5e-builder.json"
)


class TestDemoRuleset:
    def test_another_ruleset_starts_its_chats_empty(self) -> None:
        """The bundled state belongs to the bundled ruleset: another one starts empty."""
        ruleset = load_ruleset(FIVE_E)
        config = demo_config("http://127.0.0.1:1/v1", ruleset)
        assert config.ruleset is ruleset
        assert config.start == Snapshot()
        assert demo_config("http://127.0.0.1:1/v1").start != Snapshot()

    def test_ruleset_goes_with_serve(self) -> None:
        """`--ruleset` without `--serve` is a usage error (exit 2)."""
        result = CliRunner().invoke(main, ["demo", "--ruleset", str(FIVE_E)])
        assert result.exit_code == 2
        assert "--ruleset goes with --serve" in result.output

    def test_a_bad_ruleset_exits_1(self, tmp_path: Path) -> None:
        """A ruleset that does not load exits 1 naming it, before anything is served."""
        bad = tmp_path / "bad.json"
        bad.write_text("{}", encoding="utf-8")
        result = CliRunner().invoke(main, ["demo", "--serve", "--ruleset", str(bad)])
        assert result.exit_code == 1
