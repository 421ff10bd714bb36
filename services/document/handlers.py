"""The document team's step handler: the lease (주택임대차계약서, lease/), the sale contract
(부동산매매계약서, sale/) or the loan application checklist (대출 신청 준비, loan/), chosen by
the step's focus. Each collects its fields, asks for what is missing, or writes, reviews and stores its
files.

`draft_document` is the pure part (fields in, questions or files out); `document_work` adds the one side
effect, storing the files, with the service's own pool. Storing is idempotent by content hash, so a
redelivered or retried step is harmless.
"""

from __future__ import annotations

from collections.abc import Mapping

from psycopg_pool import AsyncConnectionPool

from contracts.values import Citation, StepFocus
from services.document.common.artifacts import store_artifact
from services.document.common.draft import Draft
from services.document.lease.draft import draft_lease
from services.document.loan.draft import draft_loan_checklist
from services.document.sale.draft import draft_sale
from services.housing.vocabulary import speaks_only_of_a_sale
from services.platform.team import StepOutput, StepWork, TeamWork


def document_work(pool: AsyncConnectionPool, statutes: Mapping[str, Citation]) -> TeamWork:
    async def work(step: StepWork) -> StepOutput:
        draft = draft_document(step, statutes)
        if not draft.artifacts:
            return StepOutput(summary=draft.summary, result=draft.result)
        async with pool.connection() as conn, conn.transaction():
            refs = [await store_artifact(conn, a, step.session_id, step.run_id) for a in draft.artifacts]
        return StepOutput(summary=draft.summary, result=draft.result.model_copy(update={"documents": refs}))

    return work


def draft_document(step: StepWork, statutes: Mapping[str, Citation]) -> Draft:
    """The document the step's focus names. A question that speaks only of a sale gets the sale contract
    whatever the focus: a model's plan knows the lease's focus only, and a 매매 must never come out as a
    lease."""
    if StepFocus.LOAN_APPLICATION.value in step.focus:
        return draft_loan_checklist(step)
    if StepFocus.SALES_CONTRACT.value in step.focus or speaks_only_of_a_sale(step.query):
        return draft_sale(step, statutes)
    return draft_lease(step, statutes)
