"""The terminal's person file and `jipsa memory`'s table: where the file is, one person per gateway kept
readable by its owner only, and the items shown on a terminal in Korean, grouped by kind."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest
from rich.console import Console

from contracts.api import PersonCreated, PersonMemory
from services.ask.memory import _print_memory
from services.ask.person import KeptPerson, UnreadablePersonFile, person_file

pytestmark = pytest.mark.unit


def test_the_person_file_is_under_jipsa_home_else_the_config_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("JIPSA_HOME", str(tmp_path / "j"))
    assert person_file() == tmp_path / "j" / "person.json"
    monkeypatch.delenv("JIPSA_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    assert person_file() == tmp_path / "c" / "jipsa" / "person.json"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert person_file() == tmp_path / "h" / ".config" / "jipsa" / "person.json"


def test_one_person_per_gateway_kept_for_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "jipsa" / "person.json"
    here, there = KeptPerson.at("http://127.0.0.1:8000/", path), KeptPerson.at("https://jipsa.example", path)
    assert here.token() is None
    here.keep(PersonCreated(person_id="p1", token="t1"))
    there.keep(PersonCreated(person_id="p2", token="t2"))
    here.keep(PersonCreated(person_id="p3", token="t3"))  # a refused person replaced
    assert (here.token(), there.token()) == ("t3", "t2")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["person.json"]  # no temporary file left

    path.write_text("{not json")
    with pytest.raises(UnreadablePersonFile):
        here.token()


def test_the_memory_on_a_terminal_is_a_table_in_korean_by_kind() -> None:
    said = "2026-12-02T10:26:16+00:00"
    memory = PersonMemory.model_validate(
        {
            "person_id": "p",
            "remembering": False,
            "forgotten_at": None,
            "items": [
                {"id": f"{kind}-7-0", "kind": kind, "value": value, "run_id": "run-1", "session_id": "s"}
                | {"said_at": said}
                for kind, value in [
                    ("conversation", "연봉 3800이에요"),
                    ("place", "관악구"),
                    ("fact", "연소득 3,800만원"),
                ]
            ],
        }
    )
    wide, narrow = io.StringIO(), io.StringIO()
    _print_memory(memory, Console(file=wide, force_terminal=True, width=140, color_system=None))
    _print_memory(memory, Console(file=narrow, force_terminal=True, width=80, color_system=None))
    shown = wide.getvalue()
    assert "기억하기: 꺼짐" in shown and "집사가 기억하는 것" in shown
    lines = [line for line in shown.splitlines() if "run-1" in line]
    assert [line.split("│")[2].strip() for line in lines] == ["사실", "지역·단지", "지난 대화"]
    assert "연소득 3,800만원" in lines[0] and "2026-12-02" in lines[0]
    # Narrow: the ids whole, the run by its first characters, the time without its year.
    assert "fact-7-0" in narrow.getvalue() and "conversation-7-0" in narrow.getvalue()
    assert "12-02" in narrow.getvalue() and "2026-12-02" not in narrow.getvalue()
