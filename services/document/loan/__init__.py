"""The loan application checklist (대출 신청 준비): the applicant's facts and the documents a lender asks
for (applicant), and the step that asks for the facts, then writes the checklist from the analyses (draft)."""
