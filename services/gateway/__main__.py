"""`python -m services.gateway`: serve the gateway on 127.0.0.1:$JIPSA_PORT (default 8000) until Ctrl-C."""

from services.gateway.bootstrap import main

if __name__ == "__main__":
    main()
