"""Legal search over the statute corpus: citations, Korean-aware BM25 over stored terms, optional dense
fusion, filters, excerpts."""

from services.search.legal.articles import Article, load_articles
from services.search.legal.search import LegalFilters, LegalHit, LegalIndex, SearchConfig
from services.search.legal.tokens import Analyzer

__all__ = ["Analyzer", "Article", "LegalFilters", "LegalHit", "LegalIndex", "SearchConfig", "load_articles"]
