"""Compute kernels: plain-torch references beside Triton versions, chosen at one dispatch point
(``kernels.dispatch``). The engine imports kernels; kernels never import the engine."""
