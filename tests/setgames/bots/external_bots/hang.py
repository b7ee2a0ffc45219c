"""Never answers a decision (and ignores the quit message while it sleeps)."""
import time

from _proto import serve


def act(msg):
    time.sleep(3600)


serve(act)
