"""`python -m services.search`: answer the search team's steps until SIGTERM or SIGINT."""

from services.search.bootstrap import main

if __name__ == "__main__":
    main()
