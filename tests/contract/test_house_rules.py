"""The rules of the house (DESIGN.md section 1), checked by import-linter against `.importlinter`:
services never import each other, the domain package imports only contracts, the platform imports
no service, contracts import nothing of services, and no module circles back to itself through the
modules of its own service."""

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
