"""Sealing a person's words (services/platform/sealing.py), on plain data."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from contracts import new_envelope
from contracts.gateway import QueryReceived
from contracts.personal import ERASED
from services.platform.sealing import SEALED, KeyNotLoaded, Keyring, erase, open_data, seal

pytestmark = pytest.mark.unit


def _keyring(*runs: str) -> Keyring:
    keyring = Keyring()
    for run in runs:
        keyring.hold(run, "p1", AESGCM.generate_key(256))
    return keyring


def test_erasing_names_nested_fields_and_leaves_the_rest() -> None:
    data = {"steps": [{"step_id": "s1", "task": "내 연봉 3800", "inputs": {"q": 1}}, {"step_id": "s2"}]}
    erased, taken = erase(data, [("steps", "*", "task"), ("steps", "*", "inputs")])
    assert erased == {"steps": [{"step_id": "s1", "task": ERASED, "inputs": {}}, {"step_id": "s2"}]}
    assert taken == [[["steps", 0, "task"], "내 연봉 3800"], [["steps", 0, "inputs"], {"q": 1}]]
    assert data["steps"][0]["task"] == "내 연봉 3800"


def test_the_question_is_stored_only_sealed_and_reads_back_until_the_key_is_gone() -> None:
    query = "연봉 3800에 전세 3억 가능할까요"
    envelope = new_envelope(
        QueryReceived(run_id="r1", query=query), stream_id="run-r1", correlation_id="r1", person_id="p1"
    )
    keyring = _keyring("r1")
    stored = seal(envelope, keyring.cipher("r1"))
    assert query not in stored.model_dump_json() and stored.data["query"] == ERASED
    assert open_data(stored.data, "r1", keyring) == envelope.data
    with pytest.raises(KeyNotLoaded):
        open_data(stored.data, "r1", Keyring())
    keyring.forget_person("p1")
    assert open_data(stored.data, "r1", keyring) == {**envelope.data, "query": ERASED}


def test_a_payload_sealed_for_another_run_opens_as_erased() -> None:
    envelope = new_envelope(
        QueryReceived(run_id="r1", query="비밀"), stream_id="run-r1", correlation_id="r1", person_id="p1"
    )
    keyring = _keyring("r1", "r2")
    stored = seal(envelope, keyring.cipher("r1"))
    assert open_data(stored.data, "r2", keyring)["query"] == ERASED


def test_an_unsealed_payload_is_returned_as_it_is() -> None:
    data = {"run_id": "r1", "query": "안녕"}
    assert open_data(data, "r1", Keyring()) is data
    assert SEALED not in data
