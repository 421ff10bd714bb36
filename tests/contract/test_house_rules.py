"""The rules of the house (DESIGN.md section 1), checked by import-linter against `.importlinter`:
services never import each other, the domain package imports only contracts, the platform imports
no service, contracts import nothing of services, and no module circles back to itself through the
modules of its own service; and no module grows past 500 lines unless it is named below with why.
`make lint` runs this file."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.contract

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
SHARED_PACKAGES = {"platform", "housing"}  # what every service may import, beside contracts


def test_the_import_contracts_hold() -> None:
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


def test_every_service_folder_is_bound_by_the_independence_contract() -> None:
    """A new service folder must be listed, or it could import any other service unnoticed."""
    services = {
        f"services.{p.name}" for p in (ROOT / "services").iterdir() if (p / "__init__.py").exists()
    } - {f"services.{name}" for name in SHARED_PACKAGES}
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    independent = set(config["importlinter:contract:services-independent"]["modules"].split())
    assert independent == services


def test_every_service_folder_is_bound_by_the_no_circles_contract() -> None:
    """A new service folder must be listed, or a circle between its modules would pass unnoticed."""
    packages = {f"services.{p.name}" for p in (ROOT / "services").iterdir() if (p / "__init__.py").exists()}
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    ancestors = set(config["importlinter:contract:no-import-circles"]["ancestors"].split())
    assert packages <= ancestors


# Modules over the house's 500 lines, each with why it stays whole; any other is refused.
LONG_MODULES = {
    "services/platform/llm.py": "the one LLM client: settings, calls, retries, structured output, recording",
    "services/search/listings.py": "listing search's filters, SQL and wording: ListingFilters is read by all",
    "services/planner/intents.py": "most of it is the SIGNALS table, the classifier's vocabulary",
    "tests/integration/test_hostile_input.py": "one hostile input per case against a real gateway",
    "tests/integration/test_projector.py": "the projections' rebuild and catch-up cases on a real store",
    "tests/chaos/run.py": "the chaos driver: processes, faults and the verdict in one script",
    "tests/bench/compare.py": "the LangGraph comparison harness, both sides measured in one run",
}
MAX_LINES = 500


def test_no_module_is_longer_than_the_house_allows() -> None:
    modules = [p for top in ("services", "contracts", "tests") for p in (ROOT / top).rglob("*.py")]
    lines = {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in modules}
    too_long = {path: n for path, n in lines.items() if n > MAX_LINES and path not in LONG_MODULES}
    assert not too_long, f"over {MAX_LINES} lines: {too_long}"
    assert all(lines.get(path, 0) > MAX_LINES for path in LONG_MODULES), "an exception no longer needed"
