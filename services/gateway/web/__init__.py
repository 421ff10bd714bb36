"""The person's page and REST: the web page and the map page (page.py, static/), sessions and runs over
REST (rest.py), a run's documents (documents.py), the map's API (maps/), and every request body bounded
(bodies.py)."""
