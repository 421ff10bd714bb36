"""The planner: reads a question into an intent, its entities and the steps that answer it."""
