"""JIPSA_LOG_LEVEL sets what every process writes: the root logger's level, where logging is configured."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from pydantic import ValidationError

from services.platform.telemetry import TelemetrySettings, configure_logging

pytestmark = pytest.mark.unit


@pytest.fixture
def root_level() -> Iterator[None]:
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    root.handlers = [logging.StreamHandler()]
    yield
    root.setLevel(level)
    root.handlers = handlers


@pytest.mark.usefixtures("root_level")
def test_the_configured_level_is_the_root_loggers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIPSA_LOG_LEVEL", "warning")
    logging.getLogger().setLevel(logging.INFO)  # what the entry points' basicConfig sets

    configure_logging("test", TelemetrySettings())

    assert logging.getLogger().level == logging.WARNING
    assert not logging.getLogger("jipsa.service").isEnabledFor(logging.INFO)


def test_the_default_is_info_and_a_misspelt_level_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert TelemetrySettings().log_level == "INFO"
    monkeypatch.setenv("JIPSA_LOG_LEVEL", "verbose")
    with pytest.raises(ValidationError, match="JIPSA_LOG_LEVEL"):
        TelemetrySettings()
