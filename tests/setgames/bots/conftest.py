"""The external test bots are programs the tests run, not modules to import (``--doctest-modules``
would run them at collection)."""

collect_ignore = ["external_bots"]
