"""Experiments that measured no gain, kept with their findings (``FINDINGS.md``); not installed."""
