"""What hidden information is worth to the Tu Sac search (see ``../FINDINGS.md``).

:mod:`.inference` (re-deals consistent with the public non-events),
:mod:`.handmodel` (re-deals from a hand model fitted on greedy self-play),
:mod:`.search` (the ISMCTS bot that uses them) and :mod:`.experiment` (the
arena of these searches against greedy).
"""
