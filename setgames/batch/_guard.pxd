# cython: language_level=3
"""The compiled base of every game's ``Batch``: see :mod:`setgames.batch._guard`."""


cdef class GuardedCore:
    cdef int _busy              # a call is inside (the GIL makes its test-and-set atomic)
    cdef unsigned _fork_gen     # the process's fork count when the batch last checked it
    cdef bint _dealt, _torn
    cdef readonly int num_envs
    cdef readonly object autoreset

    cdef int _enter(self, str name) except -1
    cdef void _exit(self) noexcept
    cdef object _forked(self)
    # The game's core: the C state and the per-slot work, behind the door above.
    cdef object _setup(self, object game, int num_envs, object seed, int num_threads, object opponents,
                       object learner_seat, object autoreset, object illegal_action, float illegal_reward,
                       object short_deals)
    cdef object _renew_pool(self)
    cdef object _over_slots(self)
    cdef object _reset(self, object seed, object mask)
    cdef object _step(self, object actions)
    cdef object _sample(self, object rng, object out)
    cdef object _legal_actions(self, Py_ssize_t slot)
    cdef object _state(self, Py_ssize_t slot)
    cdef object _greedy_actions(self, object out)
    cdef object _greedy_returns(self, object out, object slots, object redeals)
