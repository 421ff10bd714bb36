"""The search team's composition root: the read models readied (read_models.py), the LLM client from its
typed settings, the tools and the team's subscription."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool

from contracts.values import Team
from services.housing.places import default_gazetteer
from services.platform.llm import DEFAULT_EMBEDDING_MODEL, LlmClient, LlmSettings
from services.platform.service import Wiring, run_service
from services.platform.settings import InfraSettings
from services.platform.team import team_subscription
from services.search.handlers import search_work
from services.search.read_models import attach_dense_vectors, load_legal_index, warm_up_kiwi
from services.search.tools import SearchContext, default_tools


async def build(pool: AsyncConnectionPool, settings: InfraSettings) -> Wiring:
    legal = await load_legal_index(pool, settings.data_dir)
    default_gazetteer()  # read on the first question that names a complex (0.1 s): now, not then
    loops = [warm_up_kiwi(legal)]
    llm_settings = LlmSettings()
    if llm_settings.embeddings_configured:
        model = llm_settings.embedding_model or DEFAULT_EMBEDDING_MODEL
        loops.append(attach_dense_vectors(pool, legal, LlmClient(llm_settings), model))
    ctx = SearchContext(pool=pool, legal=legal, llm=LlmClient(LlmSettings()))
    await ctx.complexes.load(pool)  # read on the first question otherwise
    return Wiring([team_subscription(Team.SEARCH, search_work(ctx, default_tools()))], loops=loops)


def main() -> None:
    run_service("search", build)
