"""A pasted lease contract: the rule checks of its essentials and clauses (checks), the contract_review
tool that answers with them (review) and the model's judgement added on top (judgement)."""
