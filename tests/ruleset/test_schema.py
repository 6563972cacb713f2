"""The ruleset JSON Schema (`gmtags schema`, SPEC §1): sound, strict, and where the loader is."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Annotated, Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from pydantic import PlainValidator, TypeAdapter

from gmtags import RulesetError, load_ruleset
from gmtags.cli import main
from gmtags.ruleset.schema import (
    DRAFT,
    PROMPT_SAFE_PATTERN,
    SCHEMA_ID,
    _Generator,
    plain_description,
    ruleset_schema,
    ruleset_schema_json,
)
from tests.conftest import FIXTURES, REFERENCE_RULESETS

RULESETS = FIXTURES / "rulesets"
FIXTURE_RULESETS = sorted(
    path for path in RULESETS.rglob("*.json") if "invalid" not in path.relative_to(RULESETS).parts
)
REFERENCE_NAMES = ["gravewatch.json", "ember-roads.json", "ruleset-5e-2014.example.json"]
BASE: dict[str, Any] = json.loads((RULESETS / "checks" / "exwod.json").read_text())


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(ruleset_schema())


def schema_paths(validator: Draft202012Validator, data: Any) -> list[str]:
    """Where the schema finds its most relevant problem, spelled as the loader spells a path.

    An unexpected key is reported at the key itself, as pydantic does.
    """
    error = best_match(validator.iter_errors(data))
    if error is None:
        return []
    where = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return [".".join(part for part in (where, key) if part) for key in extra]
    return [where or "(root)"]


def loader_paths(data: dict[str, Any]) -> list[str]:
    with pytest.raises(RulesetError) as caught:
        load_ruleset(data)
    return [problem.path for problem in caught.value.problems]


def with_comments(value: Any) -> Any:
    """`value` with a `$comment` in every object, at every depth."""
    if isinstance(value, dict):
        return {"$comment": "a note", **{key: with_comments(item) for key, item in value.items()}}
    if isinstance(value, list):
        return [with_comments(item) for item in value]
    return value


class TestRulesetSchema:
    def test_is_valid_json_schema(self) -> None:
        """The schema is itself a valid draft 2020-12 JSON Schema, with its id and title."""
        schema = ruleset_schema()
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == DRAFT
        assert schema["$id"] == SCHEMA_ID
        assert schema["title"]

    def test_deterministic(self) -> None:
        """Two calls give the same schema, every object's keys sorted."""
        first, second = ruleset_schema(), ruleset_schema()
        assert first == second
        assert json.dumps(first) == json.dumps(second, sort_keys=True)

    def test_keys_are_the_files_names(self) -> None:
        """Keys are the camelCase names an author writes, never the Python attribute names."""
        definitions = ruleset_schema()["$defs"]
        assert "abilityModifier" in definitions["DicePool"]["properties"]
        assert "penaltyFrom" in definitions["DicePool"]["properties"]
        assert "schemaVersion" in ruleset_schema()["properties"]
        text = ruleset_schema_json()
        for python_name in ('"ability_modifier"', '"penalty_from"', '"schema_version"', '"from_"'):
            assert python_name not in text

    def test_strict_models_refuse_unknown_keys(self) -> None:
        """A strict model's object refuses other keys; a key kept raw takes any value."""
        schema = ruleset_schema()
        assert schema["additionalProperties"] is False
        strict = ("Sheet", "DicePool", "GmText", "RulesetValueRef", "Party", "Items", "Combat")
        for name in (*strict, "Battle", "Layer", "CatalogItem"):
            assert schema["$defs"][name]["additionalProperties"] is False
        assert schema["properties"]["items"]["anyOf"][0] == {"$ref": "#/$defs/Items"}
        assert schema["$defs"]["Combat"]["properties"]["attackRoll"] == {"default": None}

    def test_custom_validators_get_their_limits(self) -> None:
        """Limits kept in custom validators are in the schema: bounds, patterns, uniqueness."""
        definitions = ruleset_schema()["$defs"]
        multiplier = definitions["ProficiencyTier"]["properties"]["multiplier"]
        assert (multiplier["type"], multiplier["minimum"], multiplier["maximum"]) == (
            "number",
            0,
            10,
        )
        assert ruleset_schema()["properties"]["name"]["pattern"] == PROMPT_SAFE_PATTERN
        assert definitions["ClocksConfig"]["properties"]["sizes"]["uniqueItems"] is True
        per_check = definitions["SpendEntry"]["properties"]["perCheck"]["anyOf"]
        assert {"maximum": 10, "minimum": 1, "type": "integer"} in per_check

    def test_unknown_validator_is_an_error(self) -> None:
        """A validator the generator has no schema for stops it rather than being let through."""
        adapter: TypeAdapter[int] = TypeAdapter(Annotated[int, PlainValidator(int)])
        with pytest.raises(TypeError, match="has no JSON Schema"):
            adapter.json_schema(schema_generator=_Generator)


class TestAcceptedRulesets:
    @pytest.mark.parametrize("path", FIXTURE_RULESETS, ids=lambda path: path.name)
    def test_fixture_ruleset_validates(self, validator: Draft202012Validator, path: Path) -> None:
        """Every fixture ruleset the loader accepts validates against the schema."""
        try:
            load_ruleset(path)
        except RulesetError:
            pytest.skip("the loader refuses this ruleset")
        assert list(validator.iter_errors(json.loads(path.read_text()))) == []

    @pytest.mark.parametrize("name", REFERENCE_NAMES)
    def test_reference_ruleset_validates(self, validator: Draft202012Validator, name: str) -> None:
        """The three reference rulesets validate as they are."""
        path = REFERENCE_RULESETS / name
        load_ruleset(path)
        assert path in FIXTURE_RULESETS
        assert list(validator.iter_errors(json.loads(path.read_text()))) == []

    @pytest.mark.parametrize("path", FIXTURE_RULESETS, ids=lambda path: path.name)
    def test_comment_in_every_object(self, validator: Draft202012Validator, path: Path) -> None:
        """A `$comment` in every object of an accepted ruleset is accepted, as the loader does."""
        data = with_comments(json.loads(path.read_text()))
        try:
            load_ruleset(data)
        except RulesetError:
            pytest.skip("the loader refuses this ruleset")
        assert list(validator.iter_errors(data)) == []


class TestComments:
    def test_schema_at_root_and_comments_inside(self, validator: Draft202012Validator) -> None:
        """`$schema` at the root and `$comment` inside are accepted by the schema and the loader."""
        data = copy.deepcopy(BASE)
        data["$schema"] = "./gmtags-ruleset.schema.json"
        data["$comment"] = "top"
        data["resolution"]["$comment"] = "why a d10"
        data["sheet"]["abilities"][0]["$comment"] = "strength"
        load_ruleset(data)
        assert list(validator.iter_errors(data)) == []

    def test_schema_key_below_the_root(self, validator: Draft202012Validator) -> None:
        """`$schema` below the root is an unknown key to both."""
        data = copy.deepcopy(BASE)
        data["sheet"]["$schema"] = "x"
        assert schema_paths(validator, data) == loader_paths(data) == ["sheet.$schema"]

    def test_comment_is_not_counted(self, validator: Draft202012Validator) -> None:
        """A comment does not count toward an object's key limit (an enumTable holds ≤ 40)."""
        data = copy.deepcopy(BASE)
        values = [f"v{index}" for index in range(40)]
        data["sheet"]["fields"] = [{"id": "kin", "label": "Kin", "type": "enum", "values": values}]
        table: dict[str, Any] = {value: index for index, value in enumerate(values)}
        table["$comment"] = "forty values"
        data["sheet"]["derived"] = [
            {"id": "kin_bonus", "label": "Kin", "op": "enumTable", "from": {"field": "kin"}}
        ]
        data["sheet"]["derived"][0]["table"] = table
        load_ruleset(data)
        assert schema_paths(validator, data) == []
        table["v40"] = 40
        assert schema_paths(validator, data) == loader_paths(data) == ["sheet.derived.0.table"]


class TestShapeErrors:
    @pytest.mark.parametrize(
        ("path", "value"),
        [
            ("bogus", 1),
            ("version", "1"),
            ("name", "x" * 81),
            ("name", "a [bracketed] name"),
            ("coverage.summary", 7),
            ("sheet.abilities.0.label", "x" * 81),
            ("resolution.cancel.upTo", 0),
            ("resolution.kind", "coin-flip"),
            ("gm.checkGuidance", "x" * 1501),
        ],
    )
    def test_found_where_the_loader_finds_it(
        self, validator: Draft202012Validator, path: str, value: Any
    ) -> None:
        """An unknown key, a wrong type or a value over its limit is found at the loader's path."""
        data = copy.deepcopy(BASE)
        *parents, last = path.split(".")
        target: Any = data
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[last] = value
        assert loader_paths(data) == [path]
        assert schema_paths(validator, data) == [path]


class TestSchemaCommand:
    def test_prints_the_schema(self) -> None:
        """`gmtags schema` prints the schema as indented JSON and exits 0."""
        result = CliRunner().invoke(main, ["schema"])
        assert result.exit_code == 0
        assert result.output == ruleset_schema_json()
        assert json.loads(result.output) == ruleset_schema()

    def test_out_writes_a_file(self, tmp_path: Path) -> None:
        """`--out FILE` writes the same JSON to the file and prints nothing."""
        out = tmp_path / "gmtags-ruleset.schema.json"
        result = CliRunner().invoke(main, ["schema", "--out", str(out)])
        assert result.exit_code == 0
        assert result.output == ""
        assert out.read_text(encoding="utf-8") == ruleset_schema_json()


class TestPlainDescriptions:
    """An author reads the schema's descriptions in an editor: no references to gmtags' design
    documents (seed numbers, notes' sections, the builder inventory's items)."""

    def test_none_left(self) -> None:
        text = ruleset_schema_json()
        assert not re.search(r"\b00[0-4]\b|\\u00a7|SCHEMA-NOTES|ENGINE-NOTES|BUILDER", text)
        assert not re.search(r"\(\d\.\d+\)", text)

    @pytest.mark.parametrize(
        ("written", "read"),
        [
            ("004, `abilities`: the scores", "`abilities`: the scores"),
            ('000, "Gastar para cambiar una tirada": spend', "Spend"),
            ("A column; `sum` (004, 1.210) adds others.", "A column; `sum` adds others."),
            ("§11 `slots[]`: a pool", "`slots[]`: a pool"),
            ("bonus (SCHEMA-NOTES §5: −20..0, 0..20).", "Bonus (−20..0, 0..20)."),
            ("plus 004's `from`.", "Plus `from`."),
            ("`reads` (1.160): the sheet", "`reads`: the sheet"),
        ],
    )
    def test_a_reference_goes(self, written: str, read: str) -> None:
        assert plain_description(written) == read
