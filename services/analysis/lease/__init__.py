"""The tenant's deposit and rent under 주택임대차보호법: how much a rent or deposit may rise (rent_increase),
whether the deposit is safe against the home's value (jeonse_risk), and what a small deposit gets ahead of
the mortgages (priority_repayment)."""
