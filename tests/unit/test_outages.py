"""Telling an outage of the store or the bus from a failure of the work, and URLs fit to print."""

from __future__ import annotations

import itertools

import nats.errors
import psycopg
import pytest
from psycopg import errors
from psycopg_pool import PoolTimeout

from services.platform.outages import (
    BusUnreachable,
    StoreUnreachable,
    backoff,
    first_outage,
    is_outage,
    without_password,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "error",
    [
        psycopg.OperationalError("connection failed: Connection refused"),  # no SQLSTATE: no connection
        errors.AdminShutdown("terminating connection due to administrator command"),
        errors.ConnectionFailure("connection failure"),
        PoolTimeout("couldn't get a connection after 30.00 sec"),
        nats.errors.ConnectionClosedError(),
        StoreUnreachable("postgresql://u:p@127.0.0.1:1/db"),
    ],
)
def test_a_server_out_of_reach_is_an_outage(error: Exception) -> None:
    assert is_outage(error)


@pytest.mark.parametrize(
    "error",
    [
        errors.QueryCanceled("canceling statement due to statement timeout"),
        errors.UniqueViolation("duplicate key"),
        errors.DeadlockDetected("deadlock detected"),
        ValueError("a bug"),
        TimeoutError(),
    ],
)
def test_a_failure_of_the_work_is_not(error: Exception) -> None:
    assert not is_outage(error)


def test_an_outage_is_found_behind_causes_and_groups() -> None:
    refused = PoolTimeout("no connection")
    try:
        try:
            raise refused
        except PoolTimeout as e:
            raise RuntimeError("the command failed") from e
    except RuntimeError as wrapped:
        assert first_outage(ExceptionGroup("task group", [ValueError(), wrapped])) is refused
    assert first_outage(ExceptionGroup("task group", [ValueError("bug")])) is None


def test_urls_are_printed_without_their_password() -> None:
    assert without_password("postgresql://postgres:s3cret@127.0.0.1:5432/jipsa") == (
        "postgresql://postgres@127.0.0.1:5432/jipsa"
    )
    assert without_password("nats://a:b@h1:4222,nats://h2:4222") == "nats://a@h1:4222,nats://h2:4222"
    assert without_password("postgresql://127.0.0.1/jipsa") == "postgresql://127.0.0.1/jipsa"
    assert str(StoreUnreachable("postgresql://postgres:pw@127.0.0.1:1/jipsa")) == (
        "저장소(Postgres)에 연결할 수 없습니다: postgresql://postgres@127.0.0.1:1/jipsa"
    )
    assert "pw" not in str(BusUnreachable("nats://u:pw@127.0.0.1:1"))


def test_backoff_doubles_up_to_its_cap() -> None:
    assert list(itertools.islice(backoff(0.5, 5.0), 6)) == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
