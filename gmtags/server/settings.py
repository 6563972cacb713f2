"""`gmtags serve`'s settings (SPEC §14): from flags, the environment, a TOML file, defaults.

Every setting is a `gmtags serve` flag and has three other names: the field
here (the flag's name in snake_case, the key of the `--config` TOML file:
`upstream_key_env`), and the environment variable `GMTAGS_` + the flag's name
in capitals with `-` as `_` (`GMTAGS_UPSTREAM_KEY_ENV`). A flag wins over the
environment, which wins over the file, which wins over the default.

pydantic-settings reads the environment (`EnvSettingsSource`) and the file
(`TomlConfigSettingsSource`); `load_settings` asks each source itself, in
order, so it knows where every value came from: `--print-config` shows it,
and an error names it (`GMTAGS_PORT: …`, `port in gmtags.toml: …`). The model
validates the merged values once, so a value is checked the same way whatever
brought it. A list setting (`public_host`, `allow_origin`, `rulesets`) is a
TOML array, or in the environment a comma-separated list. An empty variable is
an unset one (`GMTAGS_ALLOW_ORIGIN=` in an `.env` file sets nothing).

Secrets are never shown: the token and the upstream's key are masked in the
report and left out of every error. The key itself is never a setting, only
the name of the variable that holds it (a flag's value shows in `ps`).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from gmtags.server.auth import needs_token
from gmtags.server.config import MAX_BODY, PROMPT_MARKER, TURN_MARKER, UPSTREAM_TIMEOUT
from gmtags.server.guard import origin_problem

ENV_PREFIX = "GMTAGS_"
DEFAULT_DB = "gmtags-history.sqlite3"
MAX_WORKERS = 64

Origin = Literal["flag", "environment", "file", "default"]
"""Where a setting's value came from, strongest first."""

SECRETS = frozenset({"token"})
"""Settings whose values are masked in the report and never quoted in an error."""
UNQUOTED = SECRETS | {"upstream_key_env"}
"""Settings whose values an error never quotes (`upstream_key_env` may hold a key by mistake)."""

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")
MASK = "********"

Text = Annotated[str, Field(min_length=1, max_length=4096)]
Many = Annotated[tuple[Text, ...], NoDecode]
"""A repeatable flag's values: a TOML array, or a comma-separated environment variable."""


class ServeSettings(BaseSettings):
    """The settings of one `gmtags serve`, each named as its flag (module doc)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_ignore_empty=True, extra="forbid", frozen=True
    )

    ruleset: Text
    """`--ruleset`: the ruleset JSON file."""
    upstream: Text
    """`--upstream`: the model server's base URL, with or without `/v1`."""
    host: Text = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8787
    db: Text = DEFAULT_DB
    state: Text | None = None
    display: Literal["receipts", "cards", "hidden"] = "receipts"
    token: SecretStr | None = None
    public_host: Many = ()
    allow_origin: Many = ()
    layers: Text | None = None
    rulesets: Many = ()
    merge_instructions: bool = False
    workers: Annotated[int, Field(ge=1, le=MAX_WORKERS)] = 1
    upstream_key_env: str | None = None
    """The name of the environment variable holding the upstream's API key."""
    prompt_marker: Text = PROMPT_MARKER
    turn_marker: Text = TURN_MARKER
    max_body: Annotated[int, Field(ge=1024, le=1024**3)] = MAX_BODY
    """The largest request body accepted, in bytes."""
    upstream_timeout: Annotated[float, Field(gt=0, le=86_400)] = UPSTREAM_TIMEOUT
    """Seconds to wait for the upstream to connect, answer or send more of a stream."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The values given alone: `load_settings` merges the sources (module doc)."""
        return (init_settings,)

    @field_validator("public_host", "allow_origin", "rulesets", mode="before")
    @classmethod
    def _many(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("upstream")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @field_validator("token")
    @classmethod
    def _token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("allow_origin")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for origin in value:
            problem = origin_problem(origin)
            if problem is not None:
                raise ValueError(f"{origin!r} {problem}")
        return value

    @field_validator("rulesets")
    @classmethod
    def _folders(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for folder in value:
            if not Path(folder).is_dir():
                raise ValueError(f"{folder!r} is not a folder")
        return value

    @field_validator("upstream_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.fullmatch(value):
            raise ValueError(
                "must be the name of an environment variable (letters, digits and _) that"
                " holds the key, never the key itself"
            )
        return value

    @property
    def token_text(self) -> str | None:
        """The token as the server compares it."""
        return None if self.token is None else self.token.get_secret_value()

    def upstream_key(self) -> str | None:
        """The upstream's key, read from the variable `upstream_key_env` names (None without
        one; `load_settings` has checked that it is set)."""
        if self.upstream_key_env is None:
            return None
        return os.environ.get(self.upstream_key_env) or None


FIELDS = tuple(ServeSettings.model_fields)
"""Every setting, in the order the report lists them."""


def flag_of(name: str) -> str:
    """The flag of a setting: `upstream_key_env` → `--upstream-key-env`."""
    return "--" + name.replace("_", "-")


def env_of(name: str) -> str:
    """The environment variable of a setting: `upstream_key_env` → `GMTAGS_UPSTREAM_KEY_ENV`."""
    return ENV_PREFIX + name.upper()


class SettingsError(Exception):
    """Settings `gmtags serve` cannot run with: `exit_code` 2 for a bad or missing value
    (usage), 1 for a config file that cannot be read."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class LoadedSettings:
    """The settings in force, where each came from, and the config file read (if any)."""

    settings: ServeSettings
    origins: Mapping[str, Origin]
    config_file: str | None = None

    def where(self, name: str) -> str:
        """Where setting `name` came from, as a user would write it: `--port`,
        `GMTAGS_PORT`, `port in gmtags.toml`, or `the default port`."""
        return _where(name, self.origins.get(name, "default"), self.config_file)

    def report(self) -> str:
        """`--print-config`: each setting, its value (secrets masked) and where it came from."""
        rows = [
            (name, _shown(name, getattr(self.settings, name)), self._source(name))
            for name in FIELDS
        ]
        key_env = self.settings.upstream_key_env
        if key_env is not None:
            rows.append(("upstream key", MASK, f"environment {key_env}"))
        width = max(len(name) for name, _, _ in rows)
        value_width = min(48, max(len(value) for _, value, _ in rows))
        lines = [
            "gmtags serve settings (a flag wins over the environment, which wins over the file)",
            f"config file: {self.config_file or '(none)'}",
        ]
        lines += [
            f"  {name:<{width}}  {value:<{value_width}}  {source}" for name, value, source in rows
        ]
        return "\n".join(lines)

    def _source(self, name: str) -> str:
        origin = self.origins.get(name, "default")
        if origin == "flag":
            return f"flag {flag_of(name)}"
        if origin == "environment":
            return f"environment {env_of(name)}"
        if origin == "file":
            return f"file {self.config_file}"
        return "default"


def _where(name: str, origin: Origin, config_file: str | None) -> str:
    if origin == "flag":
        return flag_of(name)
    if origin == "environment":
        return env_of(name)
    if origin == "file":
        return f"{name} in {config_file}"
    return f"the default {name}"


def _shown(name: str, value: Any) -> str:
    if value is None:
        return "(none)"
    if name in SECRETS:
        return MASK
    if name in ("upstream", "db"):
        return masked_url(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(value) if value else "(none)"
    return str(value)


def masked_url(url: str) -> str:
    """`url` with the password of its user part masked (`postgresql://gm:********@db/gm`)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if not password:
        return url
    user, _, place = parts.netloc.rpartition("@")
    name = user.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{name}:{MASK}@{place}"))


def load_settings(flags: Mapping[str, Any], config_file: str | None = None) -> LoadedSettings:
    """The settings from `flags` (the flags given on the command line, by setting name), the
    environment, the TOML file `config_file` and the defaults, checked (module doc).

    Raises `SettingsError` naming where a bad value came from.
    """
    unknown = sorted(set(flags) - set(FIELDS))
    if unknown:
        raise TypeError(f"not settings: {', '.join(unknown)}")  # a programming error
    layers: list[tuple[Origin, Mapping[str, Any]]] = [
        ("file", _read_file(config_file) if config_file is not None else {}),
        ("environment", _read_environment()),
        ("flag", flags),
    ]
    values: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    for origin, given in layers:
        for name, value in given.items():
            values[name], origins[name] = value, origin
    try:
        settings = ServeSettings(**values)
    except ValidationError as error:
        lines = [_problem(e, origins, config_file) for e in error.errors(include_url=False)]
        raise SettingsError("\n".join(dict.fromkeys(lines))) from None
    loaded = LoadedSettings(settings, origins, config_file)
    _check_together(loaded)
    return loaded


def _read_environment() -> dict[str, Any]:
    """The `GMTAGS_*` variables that name a setting (others, such as the workers' own
    `GMTAGS_SERVE_OPTIONS`, are not settings and are left alone)."""
    return dict(EnvSettingsSource(ServeSettings)())


def _read_file(path: str) -> dict[str, Any]:
    """The settings in the TOML file `path`: a file that is missing or does not parse is
    invalid input (exit 1, with the line); a key that names no setting is a usage error."""
    file = Path(path)
    if not file.is_file():
        what = "is a folder, not a file" if file.is_dir() else "not found"
        raise SettingsError(f"config file {what}: {path}", exit_code=1)
    try:
        found = dict(TomlConfigSettingsSource(ServeSettings, toml_file=file)())
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        at = _TOML_LINE.search(message)
        if at is not None:
            message = message[: at.start()].strip()
            place = f"{path}, line {at[1]}, column {at[2]}"
        else:
            place = path
        raise SettingsError(f"config file {place}: {message}", exit_code=1) from None
    except UnicodeDecodeError:
        raise SettingsError(f"config file is not UTF-8 text: {path}", exit_code=1) from None
    except OSError as error:
        raise SettingsError(f"cannot read config file {path}: {error.strerror}", 1) from None
    unknown = sorted(set(found) - set(FIELDS))
    if unknown:
        hints = [
            f"{key} (did you mean {key.replace('-', '_')}?)"
            if key.replace("-", "_") in FIELDS
            else key
            for key in unknown
        ]
        raise SettingsError(
            f"{path}: unknown settings: {', '.join(hints)}; the settings are " + ", ".join(FIELDS)
        )
    return found


def _problem(error: Any, origins: Mapping[str, Origin], config_file: str | None) -> str:
    """One validation error as a line naming where the value came from."""
    name = str(error["loc"][0]) if error["loc"] else ""
    if error["type"] == "missing":
        return (
            f"no {name}: give {flag_of(name)}, set {env_of(name)}, or write {name} in a"
            " --config file"
        )
    where = _where(name, origins.get(name, "default"), config_file)
    message = str(error["msg"])
    message = message.removeprefix("Value error, ")
    if name in UNQUOTED or error["type"] == "value_error":
        return f"{where}: {message}"
    return f"{where}: {message} (got {error['input']!r})"


def _check_together(loaded: LoadedSettings) -> None:
    """The rules between settings: a token beyond loopback, a file for several workers,
    two distinct markers, and a set variable for the upstream's key."""
    settings, where = loaded.settings, loaded.where
    problems = []
    if settings.token is None and needs_token(settings.host):
        problems.append(
            f"{where('host')} {settings.host} lets other machines in: give a token"
            f" ({flag_of('token')} T, {env_of('token')}, or token in a --config file)"
        )
    if settings.workers > 1 and settings.db == ":memory:":
        problems.append(
            f"{where('workers')} {settings.workers}: several workers share a history file,"
            f" not {where('db')} :memory:"
        )
    if settings.prompt_marker == settings.turn_marker:
        problems.append(
            f"{where('prompt_marker')} and {where('turn_marker')} are the same marker:"
            " the instructions and the turn reminder need one each"
        )
    name = settings.upstream_key_env
    if name is not None:
        state = "not set" if name not in os.environ else "empty" if not os.environ[name] else ""
        if state:
            problems.append(
                f"{where('upstream_key_env')} names the environment variable {name},"
                f" which is {state}: set it to the upstream's API key"
            )
    if problems:
        raise SettingsError("\n".join(problems))


__all__ = [
    "DEFAULT_DB",
    "FIELDS",
    "LoadedSettings",
    "ServeSettings",
    "SettingsError",
    "env_of",
    "flag_of",
    "load_settings",
    "masked_url",
]
