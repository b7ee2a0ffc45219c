# cython: language_level=3
"""The compiled base of every game's ``Batch``: see :mod:`setgames.batch._guard`."""

from setgames.batch._pool cimport sg_pool

cdef enum:
    # A slot's game runs / ended, dealt at the next step / ended, kept / ended before the
    # learner acted, shown to it for one no-op step (short_deals="play").
    LIVE = 0
    PENDING = 1
    OVER = 2
    SHORT = 3


cdef class GuardedCore:
    cdef int _busy              # a call is inside (the GIL makes its test-and-set atomic)
    cdef unsigned _fork_gen     # the process's fork count when the batch last checked it
    cdef bint _dealt, _torn, _disabled   # _disabled: autoreset "disabled" (read every step)
    cdef sg_pool *pool
    cdef int pool_threads
    cdef readonly int num_envs, num_threads
    cdef readonly object autoreset
    # The arrays every batch hands out (read-only, on memory no caller can resize or free),
    # and each slot's status (LIVE, ...), made by _alloc.
    cdef readonly object obs, final_obs, mask, seat, rewards, learner_reward, terminated, truncated
    cdef readonly object illegal, skipped_deals, game_seed, final_seed, game_index, learner_seat
    cdef readonly object final_learner_seat
    cdef object _status

    cdef object _alloc(self, int num_envs, int pool_threads, int obs_size, int num_actions, int num_players)

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
