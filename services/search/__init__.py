"""The search team: statutes, listings, market figures and loan products for StepStarted{team: search}."""
