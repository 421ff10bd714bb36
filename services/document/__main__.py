"""`python -m services.document`: answer the document team's steps until SIGTERM or SIGINT."""

from services.document.bootstrap import main

if __name__ == "__main__":
    main()
