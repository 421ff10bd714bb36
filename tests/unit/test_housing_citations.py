"""One way to cite an article, for the analysis, the legal search and the document team: the 항 it points
at, the sentence quoted and the version date of the corpus."""

from __future__ import annotations

import pytest

from services.document.common.citations import load_statutes
from services.housing.statutes import CORPUS, articles_in_force, cite

pytestmark = pytest.mark.unit

ARTICLES = {a.article_id: a for a in articles_in_force()}


def test_a_citation_at_a_paragraph_points_at_it_and_quotes_it() -> None:
    c = cite(ARTICLES["주택임대차보호법/제7조"], (2,))
    assert c.paragraph == 2 and c.reference.startswith("주택임대차보호법 제7조②")
    assert c.text.startswith("②") and "20분의 1" in c.text and c.quote and c.quote in c.text
    assert c.enforcement_date is not None


def test_a_whole_article_points_at_no_paragraph_and_is_trimmed() -> None:
    c = cite(ARTICLES["주택임대차보호법/제3조"], (), max_chars=100)
    assert c.paragraph is None and len(c.text) == 100 and c.text.endswith("…")
    assert cite(ARTICLES["주택임대차보호법/제3조"], (9,)).paragraph is None  # a paragraph it does not have


def test_the_document_cites_the_version_date_too() -> None:
    (c,) = load_statutes(CORPUS, ["주택임대차보호법/제10조"]).values()
    assert c.enforcement_date is not None and c.quote
