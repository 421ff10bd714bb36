"""`make install` on a machine with Python and make only: no uv on PATH, pip refusing to install
outside a virtual environment (what PEP 668 systems such as Debian 12 and Ubuntu 24.04 do to
`pip install --user`). The project's own Makefile runs for real, in a scratch project whose lock
has no dependencies, so the bootstrap and `uv sync` are exercised without downloading the stack."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from services.platform.settings import REPO_ROOT

pytestmark = pytest.mark.integration
# Where an operator's shell finds the system Python; the project's venv is no fresh machine's.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
BASE_PATH = "/usr/bin:/bin"  # coreutils for make's recipes
NETWORK_SETTINGS = (
    "PIP_",
    "SSL_CERT",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
PROBE_PYPROJECT = """\
[project]
name = "probe"
version = "0"
requires-python = ">=3.11"
dependencies = []
"""
PROBE_LOCK = """\
version = 1
requires-python = ">=3.11"

[[package]]
name = "probe"
version = "0"
source = { virtual = "." }
"""


def only_python_and_make(bin_dir: Path) -> dict[str, str]:
    """An environment whose PATH holds the system's python3 and the base system's tools, and no uv."""
    python3 = shutil.which("python3", path=SYSTEM_PATH)
    assert python3, f"no python3 on {SYSTEM_PATH}"
    assert shutil.which("uv", path=BASE_PATH) is None, f"uv is installed in {BASE_PATH}"
    bin_dir.mkdir()
    # A wrapper, so the venv is made by the system interpreter itself, as on a fresh machine.
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec {python3} "$@"\n')
    (bin_dir / "python3").chmod(0o755)
    home = bin_dir.parent / "home"
    home.mkdir()
    # The machine's way to reach the package index (proxy, certificates, mirrors) stays.
    keep = {key: value for key, value in os.environ.items() if key.startswith(NETWORK_SETTINGS)}
    return {**keep, "PATH": f"{bin_dir}:{BASE_PATH}", "HOME": str(home), "PIP_REQUIRE_VIRTUALENV": "1"}


def test_make_install_bootstraps_uv_into_a_private_venv_when_none_is_on_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(PROBE_PYPROJECT)
    (project / "uv.lock").write_text(PROBE_LOCK)
    env = only_python_and_make(tmp_path / "bin")
    make = shutil.which("make")
    assert make

    done = subprocess.run(
        [make, "-C", str(project), "-f", str(REPO_ROOT / "Makefile"), "install"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    uv = project / ".tools" / "bin" / "uv"
    version = subprocess.run([uv, "--version"], env=env, capture_output=True, text=True, check=True)
    assert version.stdout.startswith("uv ")
    assert (project / ".venv" / ".installed").exists()
    assert not (Path(env["HOME"]) / ".local").exists()  # nothing installed for the user


def test_the_old_user_install_is_what_such_a_machine_refuses(tmp_path: Path) -> None:
    """The environment above does refuse what the Makefile used to do, so the test above means something."""
    env = only_python_and_make(tmp_path / "bin")

    done = subprocess.run(
        ["python3", "-m", "pip", "install", "--user", "--quiet", "uv"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode != 0
    assert not (Path(env["HOME"]) / ".local" / "bin" / "uv").exists()
