"""Plain-torch reference kernels: the CPU path and the ground truth for the Triton kernels' tests."""
