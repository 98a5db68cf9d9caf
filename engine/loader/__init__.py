"""Model loading: locate the checkpoint, read its architecture, stream its tensors into the model."""
