"""`python -m services.analysis`: answer the analysis team's steps until SIGTERM or SIGINT."""

from services.analysis.bootstrap import main

if __name__ == "__main__":
    main()
