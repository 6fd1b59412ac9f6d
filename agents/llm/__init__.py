"""The LLM layer: settings, a client for any OpenAI-compatible endpoint, the embedded
Gemma 3 270M server, transcript replay, and the LLM agents and facilitator.

Modules: ``config`` (settings), ``client`` (schema-checked JSON calls, faults, tokens),
``server`` (the embedded llama.cpp server), ``transcript`` (re-run from a recording),
``tom`` (k-level ToM answer formats), ``agent`` (the seat base and the generic ``llm`` agent),
``facilitator`` (ProToM's LLM baseline, generic), ``world`` (``LLMWorld``: what both need from a
world, named by its plug-in's ``methods["llm"]``), ``dkg`` and ``kitchen`` (those worlds' LLMWorld). Importing this package starts nothing and needs no model.
"""
