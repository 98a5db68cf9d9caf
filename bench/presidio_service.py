"""Presidio's analyzer and anonymizer as HTTP services, the way gateways that call Presidio deploy it.

LiteLLM's ``presidio`` guardrail (like Kong's and Portkey's PII plugins) calls Presidio over HTTP: ``POST /analyze``
then ``POST /anonymize``, the REST API of Presidio's official analyzer and anonymizer images. Those images cannot
be pulled here, so this module serves the same two routes with the same request and response bodies from the
``presidio-analyzer`` / ``presidio-anonymizer`` packages, with the analyzer the guardrails benchmark uses as
Presidio's default (spaCy's small English model, every predefined recognizer; ``bench.guardrails``).

    python -m bench.presidio_service --port 5002
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn
from fastapi import FastAPI
from presidio_analyzer import AnalyzerEngine
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import OperatorConfig, RecognizerResult
from pydantic import BaseModel, ConfigDict

from bench.guardrails import presidio_analyzer_engine


class AnalyzeRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # Presidio's API has more optional fields; LiteLLM sends a few

    text: str
    language: str = "en"
    entities: list[str] | None = None
    score_threshold: float | None = None


class AnonymizeRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str
    analyzer_results: list[dict[str, Any]]
    anonymizers: dict[str, dict[str, Any]] | None = None


def build_app(analyzer: AnalyzerEngine, anonymizer: AnonymizerEngine) -> FastAPI:
    app = FastAPI()

    @app.get("/health")
    def health() -> str:
        return "Presidio service is up"

    # Plain functions: FastAPI runs them on its thread pool, as the official images' WSGI servers run requests.
    @app.post("/analyze")
    def analyze(request: AnalyzeRequest) -> list[dict[str, Any]]:
        results = analyzer.analyze(text=request.text, language=request.language, entities=request.entities,
                                   score_threshold=request.score_threshold)
        return [{"entity_type": r.entity_type, "start": r.start, "end": r.end, "score": r.score,
                 "analysis_explanation": None, "recognition_metadata": r.recognition_metadata} for r in results]

    @app.post("/anonymize")
    def anonymize(request: AnonymizeRequest) -> dict[str, Any]:
        results = [RecognizerResult(entity_type=r["entity_type"], start=r["start"], end=r["end"], score=r["score"])
                   for r in request.analyzer_results]
        operators = {entity: OperatorConfig(config.get("type", "replace"),
                                            {k: v for k, v in config.items() if k != "type"})
                     for entity, config in (request.anonymizers or {}).items()}
        result = anonymizer.anonymize(text=request.text, analyzer_results=results, operators=operators or None)
        return {"text": result.text,
                "items": [{"start": i.start, "end": i.end, "entity_type": i.entity_type, "text": i.text,
                           "operator": i.operator} for i in result.items]}

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app = build_app(presidio_analyzer_engine(), AnonymizerEngine())
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
