"""The lease (주택임대차 표준계약서): its fields (fields), the review before it is written (checks), the
form as blocks with its fixed clauses (layout, clauses.md), and the step that asks or writes it (draft)."""
