"""`python -m services.supervisor`: decide for every run, from its events and its deadlines, and end
every run that cannot go on (the watchdog)."""

from services.supervisor.bootstrap import main

if __name__ == "__main__":
    main()
