"""Mortgages: the limit and the constraint that binds it (loan_limit), repayment arithmetic by method
(repayment), and the loan_simulation tool that answers with both."""
