"""`python -m services.analysis`: answer the analysis team's steps until SIGTERM/SIGINT."""

from services.analysis.service import build
from services.platform.service import main

if __name__ == "__main__":
    main("analysis", build)
