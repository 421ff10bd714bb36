"""`python -m services.planner`: plan every question (rules, or one LLM call when an endpoint is set)."""

from services.planner.bootstrap import main

if __name__ == "__main__":
    main()
