"""The sale contract (부동산매매계약서): its rule book (rules), its fields (fields), the review of a contract
we write or one the person pastes (checks), the form as blocks with its fixed clauses (layout, clauses.md),
and the step that asks, writes or reviews (draft)."""
