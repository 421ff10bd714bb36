"""`python -m services.projector`: follow the log into the projections until SIGTERM or SIGINT."""

from services.projector.bootstrap import main

if __name__ == "__main__":
    main()
