"""Korean terms for lexical retrieval: morphemes from Kiwi plus character bigrams.

Korean glues particles and endings to words (임차인이, 임차인은, 임차인에게), so whitespace tokens
rarely match between a question and a statute. Two views are combined, each under its own prefix so
they never collide in the index:
- `m:` content morphemes from Kiwi (nouns, roots, foreign words, numbers): precise, and they split
  compounds the way a reader does (주택임대차보호법 -> 주택 / 임대차 / 보호법);
- `b:` character bigrams inside each run of Hangul: robust where Kiwi splits a compound differently in
  the question and in the statute (보증금 vs 보증 + 금) or meets a word it does not know.
Measured on the dev set (`python -m tests.eval.legal`), the two together beat either alone.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from importlib.metadata import version

from kiwipiepy import Kiwi

# Nouns, proper nouns, roots, foreign words, Hanja and numbers carry the content of a legal question;
# particles, endings and bound nouns (것, 수, 등) do not.
_CONTENT_TAGS = {"NNG", "NNP", "XR", "SL", "SH", "SN"}
_PREDICATE_TAGS = {"VV", "VA", "VV-I", "VA-I", "VV-R", "VA-R"}
_HANGUL_RUN = re.compile(r"[가-힣]+")
# Words every question or article has: they only add noise to the score.
_STOP_MORPHEMES = {
    *("경우", "사항", "무엇", "어떻", "어떤", "관하", "대하", "따르"),
    *("하", "되", "있", "없", "이"),
}


# Bump when the rules of this module change the terms they produce (tags, stop words, views): stored
# terms (`legal_terms`, the terms memo) of an older revision are then re-derived, never mixed in.
RULES_REVISION = 1
_kiwi_lock = threading.Lock()
_kiwi: list[Kiwi] = []


def shared_kiwi() -> Kiwi:
    """Kiwi takes seconds to load its model and more to initialise on its first analysis: one instance
    per process, built and warmed on first use. The lock makes a query that arrives during the
    start-up warm-up wait for it instead of building a second model. Built and initialised in one
    thread, an instance may then analyse from several threads at once (the maintainer's word,
    bab2min/Kiwi#145): the legal tool analyses questions in worker threads."""
    with _kiwi_lock:
        if not _kiwi:
            kiwi = Kiwi()
            kiwi.tokenize("")  # Kiwi's documented way to finish its lazy initialisation now
            _kiwi.append(kiwi)
        return _kiwi[0]


def analysis_version(morphemes: bool = True, bigrams: bool = True) -> str:
    """What the terms of a text depend on: the analyser's code and model, this module's rules and the
    views. Known without loading Kiwi, so a start-up can tell stored terms are current in
    milliseconds."""
    rules = repr(
        (
            RULES_REVISION,
            sorted(_CONTENT_TAGS),
            sorted(_PREDICATE_TAGS),
            sorted(_STOP_MORPHEMES),
            _HANGUL_RUN.pattern,
            morphemes,
            bigrams,
        )
    )
    digest = hashlib.sha256(rules.encode()).hexdigest()[:12]
    return f"kiwipiepy-{version('kiwipiepy')}+model-{version('kiwipiepy_model')}+rules-{digest}"


class Analyzer:
    """Turns text into index terms; the same function serves documents and queries. Kiwi is loaded on
    the first analysis, not here: a start-up that reads stored terms never waits for it."""

    def __init__(self, kiwi: Kiwi | None = None, *, morphemes: bool = True, bigrams: bool = True) -> None:
        self._given_kiwi = kiwi
        self.morphemes, self.bigrams = morphemes, bigrams
        self.version = analysis_version(morphemes, bigrams)

    @property
    def _kiwi(self) -> Kiwi:
        return self._given_kiwi or shared_kiwi()

    def warm_up(self) -> None:
        """Load Kiwi now (a service calls it in a thread at start, so no question pays for it)."""
        if self.morphemes:
            self._kiwi.tokenize("")

    def terms(self, text: str) -> list[str]:
        return self.terms_many([text])[0]

    def terms_many(self, texts: Iterable[str]) -> list[list[str]]:
        texts = list(texts)
        unique = list(dict.fromkeys(texts))  # law and article titles repeat: analyse each once
        if not unique:
            return []  # nothing to analyse: do not load Kiwi for it
        morphs = self._morphemes_many(unique) if self.morphemes else [[] for _ in unique]
        terms = {t: m + (bigrams(t) if self.bigrams else []) for m, t in zip(morphs, unique, strict=True)}
        return [terms[t] for t in texts]

    def _morphemes_many(self, texts: list[str]) -> list[list[str]]:
        return [[f"m:{w}" for w in content_morphemes(tokens)] for tokens in self._kiwi.tokenize(texts)]


def content_morphemes(tokens: Iterable) -> list[str]:
    words = []
    for token in tokens:
        tag = token.tag
        if tag in _PREDICATE_TAGS or tag in _CONTENT_TAGS:
            word = token.form.lower()
            if word not in _STOP_MORPHEMES:
                words.append(word)
    return words


def bigrams(text: str) -> list[str]:
    """Character bigrams inside each Hangul run; a one-syllable run is kept whole (법, 세)."""
    grams = []
    for run in _HANGUL_RUN.findall(text):
        if len(run) == 1:
            grams.append(f"b:{run}")
        grams.extend(f"b:{run[i : i + 2]}" for i in range(len(run) - 1))
    return grams
