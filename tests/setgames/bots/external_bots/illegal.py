"""Answers an action id that is never legal."""
from _proto import serve

serve(lambda msg: 10**6)
