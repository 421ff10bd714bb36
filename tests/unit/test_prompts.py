"""Prompt files: front matter, sections, hash, rendering, and the README's table of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from services.platform.llm import PROMPTS_DIR, Prompt, PromptError

pytestmark = pytest.mark.unit

PROMPT_FILES = sorted(PROMPTS_DIR.glob("*.md"))
CALL_POINTS = [p.stem for p in PROMPT_FILES if p.name != "README.md"]

SAMPLE = """---
name: sample
model_role: strong
temperature: 0.2
max_tokens: 50
output: json
---
## system
Answer like {"answer": "..."} about {topic}.
## user
{query}
"""


def write_sample(tmp_path: Path, content: str = SAMPLE) -> Prompt:
    (tmp_path / "sample.md").write_text(content, encoding="utf-8")
    return Prompt.load("sample", tmp_path)


def test_front_matter_and_sections_are_read(tmp_path: Path) -> None:
    prompt = write_sample(tmp_path)
    assert (prompt.name, prompt.meta.model_role, prompt.meta.temperature) == ("sample", "strong", 0.2)
    assert prompt.meta.max_tokens == 50 and prompt.meta.output == "json"
    assert prompt.placeholders == {"topic", "query"}


def test_hash_is_the_content_hash_and_changes_with_the_text(tmp_path: Path) -> None:
    first = write_sample(tmp_path)
    again = write_sample(tmp_path)
    changed = write_sample(tmp_path, SAMPLE.replace("about", "concerning"))
    assert re.fullmatch(r"[0-9a-f]{12}", first.hash)
    assert first.hash == again.hash != changed.hash


def test_render_fills_strings_as_is_and_the_rest_as_json(tmp_path: Path) -> None:
    system, user = write_sample(tmp_path).render({"topic": "전세", "query": {"지역": "강남구", "평": 30}})
    assert system == 'Answer like {"answer": "..."} about 전세.'
    assert user == '{"지역": "강남구", "평": 30}'


def test_a_missing_variable_fails_loudly(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="missing \\['query'\\]"):
        write_sample(tmp_path).render({"topic": "전세"})


def test_an_unknown_variable_fails_loudly(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="unknown \\['typo'\\]"):
        write_sample(tmp_path).render({"topic": "전세", "query": "q", "typo": 1})


def test_messages_carry_the_call_point_marker_first(tmp_path: Path) -> None:
    system, user = write_sample(tmp_path).messages({"topic": "t", "query": "q"}, "Answer in JSON.")
    assert system["content"].startswith("call_point: sample\n")
    assert system["content"].endswith("Answer in JSON.")
    assert user == {"role": "user", "content": "q"}


@pytest.mark.parametrize(
    "content",
    [
        SAMPLE.replace("name: sample", "name: other"),
        SAMPLE.replace("## user\n", ""),
        SAMPLE.replace("---\nname", "name", 1),
        SAMPLE.replace("output: json", "output: yaml"),
        SAMPLE.replace("max_tokens: 50", "max_tokens 50"),
    ],
    ids=["name-mismatch", "no-user-section", "no-front-matter", "bad-output", "bad-line"],
)
def test_malformed_files_are_refused(tmp_path: Path, content: str) -> None:
    with pytest.raises(ValueError):
        write_sample(tmp_path, content)


@pytest.mark.parametrize("call_point", CALL_POINTS)
def test_every_prompt_file_is_valid(call_point: str) -> None:
    prompt = Prompt.load(call_point)
    assert prompt.system and prompt.user and prompt.placeholders
    assert prompt.render(dict.fromkeys(prompt.placeholders, "x"))


def test_readme_lists_every_call_point_with_its_placeholders() -> None:
    readme = (PROMPTS_DIR / "README.md").read_text(encoding="utf-8")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \| [^|]+ \| ([^|]+) \|", readme, re.MULTILINE)}
    assert sorted(rows) == CALL_POINTS
    for call_point, cell in rows.items():
        assert set(re.findall(r"`(\w+)`", cell)) == Prompt.load(call_point).placeholders, call_point
