"""The side panels and the Session panel: the panel host, the shared panels (posteriors, events, feedback), set-up, teams, ratings, LLM usage."""
