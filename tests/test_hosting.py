"""The Dockerfile, compose.yaml, .dockerignore and .env.example read right (SPEC §14).

Building and running the image needs a container engine and a registry, so `make image`
does that by hand (docs/hosting.md says what was verified); these tests read the files.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from gmtags.server.settings import FIELDS
from tests.conftest import ROOT

SECRET = re.compile(r"TOKEN|PASSWORD|SECRET|KEY$", re.IGNORECASE)


def instructions(text: str) -> list[tuple[str, str]]:
    """A Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    found = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), " ".join(rest.split())))
    return found


def final_stage(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The instructions after the last FROM: what the image is made of."""
    last = max(i for i, (keyword, _) in enumerate(steps) if keyword == "FROM")
    return steps[last:]


def env_names(args: str) -> dict[str, str]:
    """The variables one ENV instruction sets (`A=1 B=2` form)."""
    return dict(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)", args))


def gmtags_setting(name: str) -> bool:
    """Whether GMTAGS_<NAME> is a `gmtags serve` setting (GMTAGS_ + the flag in capitals)."""
    return name.startswith("GMTAGS_") and name.removeprefix("GMTAGS_").lower() in FIELDS


def example_variables() -> dict[str, str]:
    """The variables .env.example names, set or commented out, with their example values."""
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    return dict(re.findall(r"^#?([A-Z][A-Z0-9_]*)=(.*)$", text, re.MULTILINE))


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return instructions((ROOT / "Dockerfile").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    return loaded


class TestDockerfile:
    def test_builds_the_wheel_in_a_stage_of_its_own(
        self, dockerfile: list[tuple[str, str]]
    ) -> None:
        """Two stages on a Python 3.11 slim base: the wheel is built in the first, and the
        image installs it with the postgres extra."""
        froms = [args for keyword, args in dockerfile if keyword == "FROM"]
        assert froms == ["${PYTHON_IMAGE} AS build", "${PYTHON_IMAGE}"]
        assert ("ARG", "PYTHON_IMAGE=python:3.11-slim") in dockerfile
        final = final_stage(dockerfile)
        assert ("COPY", "--from=build /wheels /wheels") in final
        assert any(k == "RUN" and "[postgres]" in args for k, args in final)

    def test_runs_as_a_user_that_is_not_root(self, dockerfile: list[tuple[str, str]]) -> None:
        """The image's last USER is a numbered user other than root."""
        users = [args for keyword, args in final_stage(dockerfile) if keyword == "USER"]
        assert users
        user = users[-1].split(":")[0]
        assert user.isdigit()
        assert user not in ("0", "root")

    def test_healthcheck_reads_healthz_without_curl(
        self, dockerfile: list[tuple[str, str]]
    ) -> None:
        """HEALTHCHECK asks /healthz with Python's urllib (slim images have no curl)."""
        (check,) = [args for keyword, args in final_stage(dockerfile) if keyword == "HEALTHCHECK"]
        assert "/healthz" in check
        assert "urllib.request" in check
        assert "curl" not in check
        assert "GMTAGS_PORT" in check

    def test_store_on_a_volume_and_listens_for_the_proxy(
        self, dockerfile: list[tuple[str, str]]
    ) -> None:
        """The SQLite history lives in the /data volume; gmtags listens on 0.0.0.0:8787."""
        final = final_stage(dockerfile)
        assert ("VOLUME", '["/data"]') in final
        env: dict[str, str] = {}
        for keyword, args in final:
            if keyword == "ENV":
                env |= env_names(args)
        assert env["GMTAGS_DB"] == "/data/history.sqlite"
        assert env["GMTAGS_HOST"] == "0.0.0.0"
        assert env["GMTAGS_PORT"] == "8787"
        assert env["GMTAGS_RULESET"] == "/opt/gmtags/demo-ruleset.json"
        assert ("EXPOSE", "8787") in final
        assert all(gmtags_setting(name) for name in env if name.startswith("GMTAGS_"))

    def test_serves_with_settings_from_the_environment(
        self, dockerfile: list[tuple[str, str]]
    ) -> None:
        """The command is a bare `gmtags serve`: every setting comes from GMTAGS_*."""
        assert final_stage(dockerfile)[-1] == ("CMD", '["gmtags", "serve"]')

    def test_no_secret_in_the_image(self, dockerfile: list[tuple[str, str]]) -> None:
        """No ENV or ARG sets a token, key or password: they are given when it runs."""
        for keyword, args in dockerfile:
            if keyword in ("ENV", "ARG"):
                names = env_names(args) or {args.split("=")[0]: ""}
                assert not [name for name in names if SECRET.search(name)], args


class TestDockerignore:
    def test_lets_in_only_what_the_wheel_is_built_from(
        self, dockerfile: list[tuple[str, str]]
    ) -> None:
        """Everything is ignored but the sources the Dockerfile copies (never .env)."""
        lines = [
            line.strip()
            for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        assert lines[0] == "*"
        allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
        copied: set[str] = set()
        for keyword, args in dockerfile:
            if keyword == "COPY" and not args.startswith("--from"):
                copied |= set(args.split()[:-1])
        assert copied == allowed
        assert not any(name.startswith(".env") for name in allowed)


class TestCompose:
    def test_postgres_is_healthchecked_with_pg_isready(self, compose: dict[str, Any]) -> None:
        """PostgreSQL is the official image on a named volume, checked by pg_isready."""
        postgres = compose["services"]["postgres"]
        assert postgres["image"] == "${POSTGRES_IMAGE:-postgres:17}"
        assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
        (volume,) = postgres["volumes"]
        assert volume.split(":")[0] in compose["volumes"]
        assert postgres["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")

    def test_gmtags_waits_for_a_healthy_postgres(self, compose: dict[str, Any]) -> None:
        """gmtags starts once PostgreSQL answers, and keeps its history there."""
        gmtags = compose["services"]["gmtags"]
        assert gmtags["depends_on"] == {"postgres": {"condition": "service_healthy"}}
        db = gmtags["environment"]["GMTAGS_DB"]
        assert db.startswith("postgresql://") and "@postgres:5432/" in db
        assert ":" not in db.removeprefix("postgresql://").split("@")[0]  # no password in it
        assert gmtags["environment"]["PGPASSWORD"].startswith("${POSTGRES_PASSWORD:?")

    def test_gmtags_settings_come_from_env_file(self, compose: dict[str, Any]) -> None:
        """gmtags reads .env, is built from this folder, and is published on loopback only
        unless .env says otherwise."""
        gmtags = compose["services"]["gmtags"]
        assert gmtags["env_file"] in (".env", [".env"])
        assert gmtags["build"]["context"] == "."
        (port,) = gmtags["ports"]
        assert port.startswith("${PUBLISH_ADDRESS:-127.0.0.1}:")
        assert port.endswith(":8787")

    def test_every_interpolated_variable_is_in_env_example(self) -> None:
        """Each ${NAME} compose.yaml reads from .env is documented in .env.example."""
        text = (ROOT / "compose.yaml").read_text(encoding="utf-8")
        used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", text))
        assert used
        assert used <= set(example_variables())


class TestEnvExample:
    def test_names_the_hosting_settings(self) -> None:
        """The upstream, token, upstream key variable, public host, allowed origin and
        ruleset are all documented."""
        names = set(example_variables())
        assert {
            "GMTAGS_UPSTREAM",
            "GMTAGS_TOKEN",
            "GMTAGS_UPSTREAM_KEY_ENV",
            "GMTAGS_PUBLIC_HOST",
            "GMTAGS_ALLOW_ORIGIN",
            "GMTAGS_RULESET",
            "RULESETS_DIR",
            "POSTGRES_PASSWORD",
        } <= names

    def test_every_gmtags_variable_is_a_serve_setting(self) -> None:
        """Each GMTAGS_ name is one `gmtags serve` reads (a typo would be silently unused)."""
        names = [name for name in example_variables() if name.startswith("GMTAGS_")]
        assert [name for name in names if not gmtags_setting(name)] == []

    def test_ships_no_secret(self) -> None:
        """The token, passwords and keys are left empty in the example."""
        for name, value in example_variables().items():
            if SECRET.search(name):
                assert value == "", name
