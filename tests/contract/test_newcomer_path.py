"""The README's way to add an analysis tool, followed as a newcomer would, in a copy of the house:
(1) a pure function of the case in its domain's folder, (2) registered once in `TOOLS`. Then the
analysis team chooses it by its words and answers with it, the registry still holds one entry per
name, and the import rules still hold. If the README's steps stop being enough, this fails."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.contract

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

# Step 1: a pure function of the case, returning a StepResult, in its domain's folder.
TOY_MODULE = '''"""평수 환산: an area said in ㎡, in 평."""

import re

from contracts.results import Figure, StepResult
from services.analysis.case import Case
from services.housing.area import pyeong


def area_in_pyeong(case: Case) -> StepResult:
    found = re.search(r"(\\d+(?:\\.\\d+)?)\\s*㎡", case.query)
    if not found:
        return StepResult(headline="면적(㎡)을 알려 주시면 평으로 바꿔 드립니다.")
    m2 = float(found[1])
    return StepResult(
        headline=f"{m2:g}㎡는 {pyeong(m2):.1f}평입니다.",
        figures=[Figure(label="평수", value=round(pyeong(m2), 1), unit="평", basis=f"{m2:g}㎡ ÷ 3.3058")],
    )
'''
# Step 2: one entry in TOOLS.
TOY_ENTRY = """    AnalysisTool(
        name="area_in_pyeong",
        description="㎡ 면적을 평으로 환산",
        focuses=(),
        words=re.compile(r"평으로|평수\\s*환산"),
        run=lambda case, lib: area_in_pyeong(case),
    ),
"""
TOY_IMPORT = "from services.analysis.deal.area_in_pyeong import area_in_pyeong\n"

ASK = """
import asyncio
from contracts.steps import StepInputs
from services.analysis.bootstrap import load_library
from services.analysis.handlers import analyse
from services.analysis.tools import BY_NAME
from services.platform.team import StepWork

step = StepWork("run-1", "a1", "분석", StepInputs(query="84㎡면 평으로 얼마예요?"), {}, 1)
out = asyncio.run(analyse(step, load_library()))
print(sorted(BY_NAME).count("area_in_pyeong"), out.result.headline)
"""


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of what the steps touch and what runs them."""
    copy = tmp_path_factory.mktemp("newcomer")
    for part in ("services", "contracts", "infra"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in (".importlinter", "pyproject.toml"):
        shutil.copy(ROOT / name, copy / name)
    return copy


def test_the_readme_names_the_steps_this_test_follows() -> None:
    steps = README[README.index("**An analysis tool.**") :]
    assert "in its domain's folder of `services/analysis/`" in steps
    assert "Register it once in `TOOLS` in `services/analysis/tools.py`" in steps


def test_a_tool_added_by_the_readmes_steps_is_chosen_and_answers(house: Path) -> None:
    (house / "services/analysis/deal/area_in_pyeong.py").write_text(TOY_MODULE, encoding="utf-8")
    tools = house / "services/analysis/tools.py"
    source = tools.read_text(encoding="utf-8")
    source = re.sub(r"(?m)^(from services\.analysis\.deal\.market import .*\n)", rf"\1{TOY_IMPORT}", source)
    source = source.replace(
        "TOOLS: tuple[AnalysisTool, ...] = (\n", "TOOLS: tuple[AnalysisTool, ...] = (\n" + TOY_ENTRY
    )
    tools.write_text(source, encoding="utf-8")

    asked = subprocess.run(
        [sys.executable, "-c", ASK], cwd=house, capture_output=True, text=True, check=False, timeout=120
    )
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.strip().splitlines()[-1] == "1 84㎡는 25.4평입니다."

    rules = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=house, capture_output=True, text=True, check=False
    )
    assert rules.returncode == 0 and "0 broken" in rules.stdout, rules.stdout + rules.stderr
