"""The JSON Schema of the ruleset file, generated from the models (`gmtags schema`, SPEC §1).

An author's editor checks the file against it as it is typed. It holds what
the models say of each key on its own: the keys an object takes (the camelCase
names the file uses, `additionalProperties: false` where the model is strict),
types, lengths, numeric bounds and patterns. The rules between keys (a face a
rule names must be on the die, an id must exist, min ≤ max, …) stay in the
models' validators and in `gmtags.ruleset.validate`: `gmtags validate` is still
the one complete check.

The schema is sound: every file `load_ruleset` accepts validates against it.
Where a model reads a key through a custom validator pydantic cannot describe,
`_REFINE` gives that validator's JSON Schema; a validator of a whole model is a
rule between keys and keeps pydantic's schema of the model. A validator found
in neither table is an error, so a new one cannot quietly weaken (or wrongly
tighten) the schema.

Sections the models keep as raw JSON objects (`items`, `battle`, `combat`,
`layers`, an override's `set`) get a
permissive object schema for now; since the schema is read from the models,
a typed model for one of them fills it in with no change here. `resolution`,
`gm` and `catalogs` are raw JSON that `Ruleset` validates with typed models
(`parse_resolution`, `GmText`, `parse_catalogs`): the schema uses those models.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import regex
from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import CoreSchema

from gmtags.ruleset.builder import BUILDER
from gmtags.ruleset.catalogs import CATALOGS
from gmtags.ruleset.combat import BATTLE, COMBAT
from gmtags.ruleset.gm import GmText
from gmtags.ruleset.items import ITEMS
from gmtags.ruleset.layers import LAYERS
from gmtags.ruleset.model import Ruleset
from gmtags.ruleset.resolution import LOCKED_KEYS, MODELS, Resolution
from gmtags.ruleset.sheet import tagged

DRAFT = "https://json-schema.org/draft/2020-12/schema"
"""The JSON Schema dialect the ruleset schema is written in."""

SCHEMA_ID = "urn:gmtags:ruleset:schema-version-1"
"""The schema's `$id`: it describes ruleset files with `"schemaVersion": 1`."""

COMMENT_DEF = "Comment"
"""The `$defs` entry every object's `$comment` key refers to."""

# SCHEMA-NOTES §1, as `gmtags.text.prompt_safe_problem` checks it: not empty, one line,
# no control characters (U+0000–U+001F, U+007F, U+0085, U+2028, U+2029), no square
# brackets and no macro braces. Written for both ECMA-262 (editors) and Python `re`.
_UNSAFE_CHARS = r"\x00-\x1f\x7f\x85\u2028\u2029\[\]"
PROMPT_SAFE_PATTERN = rf"^(?!.*\{{\{{)(?!.*\}}\}})[^{_UNSAFE_CHARS}]+$"
"""Prompt-safe text (SCHEMA-NOTES §1)."""
STATE_VALUE_PATTERN = rf'^(?!.*\{{\{{)(?!.*\}}\}})[^{_UNSAFE_CHARS}"]+$'
"""A live state's value (002, "Estados vivos"): prompt-safe and without a double quote."""

_NUMBER: JsonSchemaValue = {"type": "number"}

Refine = Callable[["_Generator", Callable[..., Any], JsonSchemaValue], JsonSchemaValue]
"""Gives a validator's JSON Schema from the validator and the schema pydantic made for it."""


def _bounded(schema: JsonSchemaValue, kind: str, **limits: int | float | bool) -> JsonSchemaValue:
    """`schema` with `limits` added to its branch (or itself) of JSON type `kind`."""
    if "anyOf" in schema:
        return {**schema, "anyOf": [_bounded(branch, kind, **limits) for branch in schema["anyOf"]]}
    return {**schema, **limits} if schema.get("type") == kind else schema


def _between(_: _Generator, function: Callable[..., Any], schema: JsonSchemaValue) -> Any:
    """`refs.number_between(low, high)`: the bounds live in the validator's closure."""
    bounds = inspect.getclosurevars(function).nonlocals
    return {**schema, "minimum": bounds["low"], "maximum": bounds["high"]}


def _tagged(generator: _Generator, function: Callable[..., Any], _: JsonSchemaValue) -> Any:
    """`sheet.tagged(tag, models)`: the model the tag names, and an unknown tag refused at the tag.

    Like the validator (and unlike an `anyOf`), a problem inside the chosen
    model is reported at its own path, so an editor underlines the right key.
    """
    found = inspect.getclosurevars(function).nonlocals
    tag: str = found["tag"]
    models: Mapping[str, type[BaseModel]] = found["models"]
    return {
        "type": "object",
        "required": [tag],
        "properties": {tag: {"enum": list(models)}},
        "allOf": [
            {
                "if": {"required": [tag], "properties": {tag: {"const": name}}},
                "then": generator.generate_inner(model.__pydantic_core_schema__),
            }
            for name, model in models.items()
        ],
    }


def _resolution() -> CoreSchema:
    """`resolution` as `parse_resolution` reads it: the model its `kind` names (000)."""
    adapter: TypeAdapter[Resolution] = TypeAdapter(
        Annotated[Resolution, tagged("kind", dict(MODELS))]
    )
    return adapter.core_schema


def _typed(model: Callable[[], CoreSchema]) -> Refine:
    """The raw object a field validator checks with a typed model: that model's schema."""

    def refine(generator: _Generator, _: Callable[..., Any], __: JsonSchemaValue) -> Any:
        return generator.generate_inner(model())

    return refine


_REFINE: dict[str, Refine] = {
    # refs.Number (SCHEMA-NOTES §4 `const`): a finite JSON number, never a boolean.
    "_finite_number": lambda _g, _f, _s: dict(_NUMBER),
    "number_between.<locals>.check": _between,
    # refs.Scalar: a text of at most 80 characters, a number or a boolean.
    "_scalar": lambda _g, _f, _s: {"type": ["string", "number", "boolean"], "maxLength": 80},
    # refs.StepRow (SCHEMA-NOTES §4): a `[threshold, value]` pair of numbers.
    "_step_row": lambda _g, _f, _s: {
        "type": "array",
        "prefixItems": [_NUMBER, _NUMBER],
        "minItems": 2,
        "maxItems": 2,
    },
    # resolution NoSpend (000, "Gastar…"): only dice-pool, dice-highest and symbol-pool spend.
    "_no_spend": lambda _g, _f, _s: {
        "type": "null",
        "description": "This kind cannot spend (only dice-pool, dice-highest and symbol-pool can).",
    },
    # sheet.tagged: fields and columns by `type`, derived values by `op`, resolution by `kind`.
    "tagged.<locals>.validate": _tagged,
    "check_prompt_safe": lambda _g, _f, s: {**s, "minLength": 1, "pattern": PROMPT_SAFE_PATTERN},
    "_prompt_safe": lambda _g, _f, s: {**s, "minLength": 1, "pattern": PROMPT_SAFE_PATTERN},
    "_state_value": lambda _g, _f, s: {**s, "minLength": 1, "pattern": STATE_VALUE_PATTERN},
    # 004, the builder's lists ("Hasta 32 pasos"): the ceiling lives in the validator's closure.
    "at_most.<locals>.validate": lambda _g, f, s: {
        **s,
        "maxItems": inspect.getclosurevars(f).nonlocals["limit"],
    },
    # Values that must not repeat: enum and state values, clock sizes.
    "unique": lambda _g, _f, s: {**s, "uniqueItems": True},
    "ClocksConfig._distinct": lambda _g, _f, s: {**s, "uniqueItems": True},
    # 000, "Pruebas que tiran a su manera": keys an override's `set` may not change.
    "_no_locked_keys": lambda _g, _f, s: {
        **s,
        "propertyNames": {"not": {"enum": sorted(LOCKED_KEYS)}},
    },
    # 000, "Gastar…": `perCheck` is 1–10, a value reference or "pool".
    "_per_check": lambda _g, _f, s: _bounded(s, "integer", minimum=1, maximum=10),
    # 002, "La ficha": a rolled column's `sides` is 2–1000, `{column}` or a value reference.
    "_roll_sides": lambda _g, _f, s: _bounded(s, "integer", minimum=2, maximum=1000),
    # 002, "Descansos": `to` is a whole number or a word of 1–80 characters.
    "_rest_to": lambda _g, _f, s: _bounded(s, "string", minLength=1, maxLength=80),
    "Ruleset._gm_text": _typed(lambda: GmText.__pydantic_core_schema__),
    "Ruleset._resolution_rules": _typed(_resolution),
    "Ruleset._catalog_models": _typed(lambda: CATALOGS.core_schema),
    "Ruleset._layer_models": _typed(lambda: LAYERS.core_schema),
    "Ruleset._items_model": _typed(lambda: ITEMS.core_schema),
    "Ruleset._combat_model": _typed(lambda: COMBAT.core_schema),
    "Ruleset._battle_model": _typed(lambda: BATTLE.core_schema),
    "WithBuilder._builder_model": _typed(lambda: BUILDER.core_schema),
}
"""Validators pydantic cannot describe, by qualified name (not module: models move files)."""

_KEEP: dict[str, str] = {
    "ascending_steps": "thresholds strictly ascending: a rule between a table's rows",
    "_int_or_ref": "pydantic's union: an integer or a value reference",
    "_untrained": "pydantic's union: one of the words, or {by}",
    "by_json_type.<locals>.validate": "pydantic's union: the branch the value's JSON type picks",
}
"""Validators whose schema pydantic already gets right, each with the reason."""


def _validates_model(schema: Mapping[str, Any]) -> bool:
    """True for a validator of a whole model (through any other validators around it)."""
    inner = schema.get("schema")
    while isinstance(inner, Mapping) and str(inner.get("type", "")).startswith("function-"):
        inner = inner.get("schema")
    return isinstance(inner, Mapping) and inner.get("type") == "model"


class _Generator(GenerateJsonSchema):
    """Pydantic's generator with the ruleset's custom validators described."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        """No `title` per key: pydantic's ("Penaltyfrom") only repeat the key."""
        return False

    def function_plain_schema(self, schema: Any) -> JsonSchemaValue:
        return self._refined(schema, super().function_plain_schema(schema))

    def function_before_schema(self, schema: Any) -> JsonSchemaValue:
        return self._refined(schema, super().function_before_schema(schema))

    def function_after_schema(self, schema: Any) -> JsonSchemaValue:
        return self._refined(schema, super().function_after_schema(schema))

    def function_wrap_schema(self, schema: Any) -> JsonSchemaValue:
        return self._refined(schema, super().function_wrap_schema(schema))

    def _refined(self, schema: Mapping[str, Any], made: JsonSchemaValue) -> JsonSchemaValue:
        function = schema["function"]["function"]
        name = getattr(function, "__qualname__", repr(function))
        if name in _KEEP or _validates_model(schema):
            return made
        refine = _REFINE.get(name)
        if refine is None:
            raise TypeError(
                f"validator {name} has no JSON Schema: describe it in gmtags/ruleset/schema.py"
            )
        return refine(self, function, made)


_SCHEMA_KEYS = ("additionalProperties", "items", "not", "propertyNames", "if", "then", "else")
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs")


def _allow_comments(schema: JsonSchemaValue) -> None:
    """Let every object take `$comment`, which the loader removes at any depth (SCHEMA-NOTES §2).

    A comment is not counted by `minProperties`/`maxProperties`, so an object
    with either counts one more when it holds a comment.
    """
    for key in _SCHEMA_KEYS:
        if isinstance(schema.get(key), dict):
            _allow_comments(schema[key])
    for key in _SCHEMA_LISTS:
        for branch in schema.get(key, []):
            _allow_comments(branch)
    for key in _SCHEMA_MAPS:
        for branch in schema.get(key, {}).values():
            _allow_comments(branch)
    if schema.get("type") != "object":
        return
    schema.setdefault("properties", {})["$comment"] = {"$ref": f"#/$defs/{COMMENT_DEF}"}
    counts = {key: schema.pop(key) for key in ("minProperties", "maxProperties") if key in schema}
    if counts:
        assert not {"if", "then", "else"} & schema.keys(), "a count rule would be overwritten"
        schema["if"] = {"required": ["$comment"]}
        schema["then"] = {key: count + 1 for key, count in counts.items()}
        schema["else"] = counts


_SEED = regex.compile(r"""\b00[0-4](?:'s)?(?:\s*,?\s*"[^"]*")?\s*[:,]?[ \t]*""")
_NOTES = regex.compile(r"(?:SCHEMA-NOTES|ENGINE-NOTES|BUILDER|SPEC)\s*§[\d.]+[ \t]*[:,]?[ \t]*")
_SECTION = regex.compile(r"§[\d.]+[ \t]*[:,]?[ \t]*")
_ITEMS = regex.compile(r"[ \t]*\((?:\d\.\d+[ \t]*,?[ \t]*)+\)")
_LEFT = regex.compile(r"[ \t]*\([ \t,]*\)")


def plain_description(text: str) -> str:
    """A model's description as an author reads it: without the references to gmtags'
    design documents its docstring keeps for developers (the seed numbers `004, `, the notes'
    sections `SCHEMA-NOTES §9`, the builder inventory's items `(1.87)`)."""
    text = _SECTION.sub("", _NOTES.sub("", _SEED.sub("", text)))
    text = _LEFT.sub("", _ITEMS.sub("", text)).lstrip(" \t\n:,;.")
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def _plain(value: Any) -> Any:
    """`value` with every description made plain (`plain_description`)."""
    if isinstance(value, dict):
        return {
            key: plain_description(item)
            if key == "description" and isinstance(item, str)
            else _plain(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _sorted(value: Any) -> Any:
    """`value` with every object's keys sorted (lists keep their order: it can mean something)."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def ruleset_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a ruleset file as an author writes it.

    Keys are the file's (`abilityModifier`, not `ability_modifier`); `$comment`
    is accepted in every object and `$schema` at the root, where `load_ruleset`
    removes them (SCHEMA-NOTES §2). The output is the same on every call, keys sorted.
    """
    schema = Ruleset.model_json_schema(
        by_alias=True, mode="validation", schema_generator=_Generator
    )
    definitions = schema.setdefault("$defs", {})
    assert COMMENT_DEF not in definitions, f"a model is named {COMMENT_DEF}"
    _allow_comments(schema)
    definitions[COMMENT_DEF] = {
        "description": "A note for people; gmtags removes every $comment before reading the file."
    }
    schema["properties"]["$schema"] = {
        "description": "The schema an editor checks this file with; gmtags ignores it."
    }
    schema.update(
        {
            "$schema": DRAFT,
            "$id": SCHEMA_ID,
            "title": "gmtags ruleset",
            "description": (
                "A gmtags ruleset file: the shapes and limits of each key. The rules between "
                "keys are checked by `gmtags validate`."
            ),
        }
    )
    result: dict[str, Any] = _sorted(_plain(schema))
    return result


def ruleset_schema_json() -> str:
    """`ruleset_schema()` as the text `gmtags schema` prints: indented JSON and a line break."""
    return json.dumps(ruleset_schema(), indent=2) + "\n"
