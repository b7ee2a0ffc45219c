"""Probes of what a policy network can learn from the batched engines (see research/FINDINGS.md)."""
