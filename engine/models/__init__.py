"""Model architectures (one file each) and the architecture description they share."""
