"""`python -m services.document`: answer the document team's steps until SIGTERM or SIGINT."""

from services.document.service import build
from services.platform.service import main

if __name__ == "__main__":
    main("document", build)
