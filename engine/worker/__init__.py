"""One scheduled batch turned into one forward pass: ``model_runner`` flattens the batch, runs the model (eagerly,
from captured CUDA graphs, or compiled by inductor through ``compilation``) and samples; ``forward_context`` holds the
step's attention metadata where a compiled graph's attention layers can reach it.
"""
