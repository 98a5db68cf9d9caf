"""Model building blocks, one concept per file."""
