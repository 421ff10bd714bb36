"""What every document step gives back, and how it asks: either questions for the person (the run's
input loop continues the step with the answers), or the finished files with the step's result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from contracts.results import Question, StepResult
from services.document.common.artifacts import Artifact
from services.document.common.findings import Finding
from services.platform.team import StepWork


def turns_said(step: StepWork) -> tuple[str, list[str]]:
    """What the person said for this step as (the newest words, all said before them), oldest first: the
    earlier question a follow-up continues ("전세 3억 강남구 아파트" then "그럼 계약서 써줘"), the query,
    and the sentences typed while answering our questions. A later word wins, so a correction made in a
    reply ("아 그리고 보증금은 2억이에요") replaces the query's figure."""
    earlier = [step.inputs.previous_query] if step.inputs.previous_query else []
    said = [*earlier, step.query, *step.inputs.replies]
    return said[-1], said[:-1]


@dataclass(frozen=True)
class Draft:
    """Either questions for the person, or the finished document's files (never both)."""

    summary: str
    result: StepResult
    artifacts: list[Artifact] = field(default_factory=list)


def questions_for(
    missing: list[str],
    unreadable: Mapping[str, str],
    blocking: list[Finding],
    labels: Mapping[str, tuple[str, str]],
) -> list[Question]:
    """Missing required fields, answers we could not read (with why), and blocking problems."""
    hints: dict[str, str | None] = {name: labels[name][1] for name in missing}
    hints.update(unreadable)
    hints.update({f.field: f.message for f in blocking if f.field})
    return [
        Question(field=name, label=labels.get(name, (name,))[0], hint=hint) for name, hint in hints.items()
    ]


def ask(document: str, title: str, known: Mapping[str, object], questions: list[Question]) -> Draft:
    """The step waits for the person: `known` is what was read so far (data key -> fields)."""
    labels = ", ".join(q.label for q in questions)
    result = StepResult(
        headline=f"{title}를 작성하려면 다음 {len(questions)}가지를 알려 주세요: {labels}",
        questions=questions,
        needs_input=True,
        data={"document": document, **known},
    )
    return Draft(summary=f"{title} 정보 {len(questions)}가지 필요: {labels}", result=result)
