"""The operator's page `/operator` and its API (routes.py), behind JIPSA_OPERATOR_TOKEN: what it reads
(reads.py), its figures (figures.py, pure) and the page's own files (static/)."""
