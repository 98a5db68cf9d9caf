"""A Warden whose engine speculates (WARDEN_ENGINE_SPECULATIVE_METHOD=ngram, or draft_model with the default model at
int8 drafting for itself) answers exactly what the session's plain one does through the official `openai` client —
streamed and whole, with logprobs, several tokens per delta — and really accepts drafts on the way."""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterator

import pytest
from gateway_support import new_tenant_with_key
from live_server import LiveServer, client_for, start_live_server

from gateway.core.db import Database
from gateway.core.engine_settings import EngineSettings
from gateway.core.settings import Settings

PASSAGE = ("The storage layer will move to a log-structured format, compaction runs in the background, and reads "
           "never block writes. Open questions remain about snapshot retention and the cost of compaction.")
MESSAGES = [{"role": "user", "content": f"Repeat the following text exactly, word for word:\n\n{PASSAGE}"}]


METHODS = {
    "ngram": {"speculative_method": "ngram"},
    "draft_model": {"speculative_method": "draft_model", "speculative_model": "default",
                    "speculative_model_quantization": "int8"},
}


@pytest.fixture(scope="module", params=sorted(METHODS))
def speculating(live: LiveServer, tmp_path_factory: pytest.TempPathFactory,
                request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    # Same database and server secret as the session's server, so one API key works on both.
    settings = Settings(database_url=live.settings.database_url, data_dir=tmp_path_factory.mktemp("live-spec"),
                        server_secret=live.settings.server_secret, redis_url=None, engine_in_process=True,
                        key_cache_ttl_s=0.0, policy_cache_ttl_s=0.0, audit_flush_interval_s=0.05,
                        engine=EngineSettings(**METHODS[request.param], _env_file=None))
    server = start_live_server(settings)
    yield server
    server.stop()


def _answers(client, model_id: str) -> list[tuple[str, str, list[float]]]:  # type: ignore[no-untyped-def]
    """(content, finish_reason, token logprobs): whole, then streamed."""
    whole = client.chat.completions.create(model=model_id, messages=MESSAGES, max_tokens=60, temperature=0,
                                           logprobs=True, top_logprobs=2)
    choice = whole.choices[0]
    answers = [(choice.message.content, choice.finish_reason, [t.logprob for t in choice.logprobs.content])]
    chunks = list(client.chat.completions.create(model=model_id, messages=MESSAGES, max_tokens=60, temperature=0,
                                                 logprobs=True, top_logprobs=2, stream=True))
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reason = next(c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason)
    logprobs = [t.logprob for c in chunks if c.choices and c.choices[0].logprobs for t in c.choices[0].logprobs.content]
    answers.append((content, reason, logprobs))
    return answers


@pytest.mark.slow
def test_a_speculating_engine_answers_exactly_as_the_plain_one(live: LiveServer, speculating: LiveServer,
                                                                db: Database, tls_context: ssl.SSLContext,
                                                                model_id: str) -> None:
    _, issued = new_tenant_with_key(db, live.settings)
    plain = _answers(client_for(live, tls_context, issued.api_key), model_id)
    own_cert = ssl.create_default_context(cafile=str(speculating.cert))  # each server makes its dev certificate
    spec = _answers(client_for(speculating, own_cert, issued.api_key), model_id)
    for (text, reason, logprobs), (spec_text, spec_reason, spec_logprobs) in zip(plain, spec, strict=True):
        assert spec_text == text and spec_reason == reason and len(spec_logprobs) == len(logprobs)
        assert max(abs(a - b) for a, b in zip(logprobs, spec_logprobs, strict=True)) < 1e-4
    assert PASSAGE[:40] in plain[0][0]  # the model copies: the case drafts are for
    deadline = time.monotonic() + 10
    stats = speculating.services.engine.stats()
    while (stats is None or not stats.spec_accepted_tokens) and time.monotonic() < deadline:
        time.sleep(0.2)  # snapshots arrive every 0.5 s while busy and once when idle
        stats = speculating.services.engine.stats()
    assert stats is not None and stats.spec_accepted_tokens > 0
