"""Housing-support programmes for the person: eligibility condition by condition (eligibility) and the
policy tool that answers with the matches (matching)."""
