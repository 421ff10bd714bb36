"""infra/CONFIGURATION.md says what the code reads: current, and naming every variable read anywhere.

The second test reads the code itself (not the settings classes the generator walks), so a variable
read some other way (os.environ, a CLI option, a settings class the generator would not find) fails it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.platform.config_reference import REFERENCE, Undescribed, render, variables_of
from services.platform.settings import REPO_ROOT

pytestmark = pytest.mark.unit
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
NAMING_KEYWORDS = {"alias", "validation_alias", "envvar", "env_prefix"}
DOCUMENTED = re.compile(r"^\| `([A-Z][A-Z0-9_*]*)` \|", re.MULTILINE)


def is_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def text_of(node: ast.expr) -> str | None:
    value = node.value if isinstance(node, ast.Constant) else None
    return value if isinstance(value, str) and ENV_NAME.match(value) else None


def names_read(tree: ast.AST) -> set[str]:
    """Variable names (and prefixes, ending in `_`) the code reads from its environment."""
    found: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in NAMING_KEYWORDS:
            found.add(text_of(node.value))
        elif isinstance(node, ast.Subscript) and is_environ(node.value):
            found.add(text_of(node.slice))
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            found.add(text_of(node.left))
        elif isinstance(node, ast.Call) and node.args and _reads_one(node.func):
            found.add(text_of(node.args[0]))
    return {name for name in found if name}


def _reads_one(func: ast.expr) -> bool:
    """os.getenv(...) or os.environ.get(...)."""
    if not isinstance(func, ast.Attribute):
        return False
    return func.attr == "getenv" or (func.attr == "get" and is_environ(func.value))


def test_the_reference_is_what_the_code_says() -> None:
    assert REFERENCE.read_text() == render(), "run `python -m services.platform.config_reference`"


def test_every_variable_the_code_reads_is_in_the_reference() -> None:
    documented = set(DOCUMENTED.findall(REFERENCE.read_text()))
    read = {
        name
        for path in (REPO_ROOT / "services").rglob("*.py")
        for name in names_read(ast.parse(path.read_text(), str(path)))
    }

    missing = {
        name
        for name in read
        if not (name in documented or (name.endswith("_") and any(d.startswith(name) for d in documented)))
    }

    assert {"DATABASE_URL", "JIPSA_LOG_LEVEL", "JIPSA_DB_POOL_MAX", "NO_COLOR"} <= read  # the scan sees
    assert not missing, f"read by the code, absent from {REFERENCE.name}: {sorted(missing)}"


def test_a_setting_nobody_explains_stops_the_generation() -> None:
    class Unexplained(BaseSettings):
        model_config = SettingsConfigDict(env_prefix="JIPSA_TEST_")

        said: int = Field(default=1, description="explained")
        unsaid: int = 2

    with pytest.raises(Undescribed, match="Unexplained.unsaid"):
        variables_of(Unexplained)


def test_a_variable_reads_as_an_operator_writes_it() -> None:
    class Sample(BaseSettings):
        model_config = SettingsConfigDict(env_prefix="JIPSA_SAMPLE_")

        data: Path = Field(default=REPO_ROOT / ".data", description="where")
        limit: int = Field(default=5, ge=1, le=9, description="how many")
        url: str | None = Field(default=None, alias="SAMPLE_URL", description="which")

    rows = {v.name: (v.type, v.default) for v in variables_of(Sample)}

    assert rows == {
        "JIPSA_SAMPLE_DATA": ("path", "`.data`"),
        "JIPSA_SAMPLE_LIMIT": ("int ≥ 1 ≤ 9", "`5`"),
        "SAMPLE_URL": ("str", "unset"),
    }
