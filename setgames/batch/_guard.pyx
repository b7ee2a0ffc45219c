# cython: language_level=3
"""The compiled base class of every game's ``Batch``: the door of :mod:`setgames.batch.guard`.

Each game's ``_batch.pyx`` defines ``cdef class Batch(GuardedCore)`` and fills in the
``cdef`` methods that touch its C state (``_setup``, ``_reset``, ``_step``, ...); the
public methods here check their arguments, take the batch for the call and give it back.
In C rather than in a Python mixin: the mixin's frames and ``os.getpid()`` cost a
B=1 step more than the step itself (1.0M steps/s fell to 0.45M).
"""

cimport numpy as cnp

import numpy as np

from setgames.batch._buffers cimport sg_array
from setgames.batch._pool cimport sg_fork_count, sg_pool_free, sg_pool_new, sg_pool_stale
from setgames.batch.guard import as_actions, check_batch_options
from setgames.checks import check_int, check_seed, short_repr

cnp.import_array()


cdef class GuardedCore:
    """The checked, one-call-at-a-time, fork-safe public face of a game's batch (the protocol
    is :mod:`setgames.batch`'s; the rules of the door are :mod:`setgames.batch.guard`'s)."""

    def __cinit__(self):
        self.pool = NULL

    def __dealloc__(self):
        sg_pool_free(self.pool)  # a pool made before a fork: its memory only (_pool.pxd)

    def __init__(self, game, num_envs, seed=None, num_threads=1, opponents=None, learner_seat=0,
                 autoreset="same_step", illegal_action="raise", illegal_reward=-1.0, short_deals="skip"):
        opts = check_batch_options(game, num_envs, seed, num_threads, opponents, learner_seat, autoreset,
                                   illegal_action, illegal_reward, short_deals)
        self._fork_gen = sg_fork_count()
        (num_envs, seed, num_threads, opponents, learner_seat, autoreset, illegal_action, illegal_reward,
         short_deals) = opts
        self._disabled = autoreset == "disabled"
        self._setup(game, num_envs, seed, num_threads, opponents, learner_seat, autoreset, illegal_action,
                    illegal_reward, short_deals)

    # ------------------------------------------------------------------ the door
    cdef int _enter(self, str name) except -1:
        """Take the batch for one call of ``name``, or refuse it in one line."""
        if sg_fork_count() != self._fork_gen:
            self._forked()
        if self._busy:
            raise RuntimeError(f"{name}(): this batch is in use by another thread (a batch serves one "
                               f"call at a time: give each thread its own batch)")
        if name != "reset":
            if self._torn:
                raise RuntimeError(f"{name}(): this process was forked while another thread was inside "
                                   f"the batch, which may be half-written: call reset() first")
            if not self._dealt:
                raise ValueError(f"{name}() before reset()")
        self._busy = 1
        return 0

    cdef void _exit(self) noexcept:
        self._busy = 0

    cdef object _forked(self):
        """First call in a forked child: a new pool; torn if a call was in flight at the fork
        (its thread, the parent's, does not exist here)."""
        self._fork_gen = sg_fork_count()
        if self._busy:
            self._torn = True
            self._busy = 0
        self._renew_pool()

    # ------------------------------------------------------------- the protocol
    def reset(self, seed=None, mask=None):
        """Deal a new game in every slot (or in the slots where the bool array ``mask`` is True).

        ``seed`` (an integer ``0..2**63-1``) re-seeds those slots: slot ``i``'s next game is the
        game of seed ``seed + i`` (mod 2**63); without it each slot deals its next game (index
        + 1), the first time from the master seed given at construction or fresh entropy.
        Rewards, terminations and illegal-action marks of the reset slots are zeroed. After a
        fork that caught the batch mid-call, only a reset of every slot is accepted.
        """
        self._enter("reset")
        try:
            if seed is not None:
                seed = check_seed(seed)
            if self._torn and mask is not None and not np.all(mask):
                raise RuntimeError("reset(mask=...): this batch was caught mid-call by a fork; reset "
                                   "every slot (mask=None) first")
            self._reset(seed, mask)
            self._dealt = True
            self._torn = False
        finally:
            self._exit()

    def step(self, actions):
        """Play ``actions[i]`` in slot ``i`` (the seat to act's, or the learner's, move), then the
        opponents, game ends and autoresets; the arrays are updated in place.

        ``actions``: an integer ndarray or a list of ints, shape ``(num_envs,)``. Slots that take
        no action (dealing at this step under ``"next_step"``) ignore theirs.

        Raises:
            ValueError: a wrong shape or type, an action out of range or illegal in its slot
                (under ``illegal_action="raise"``: naming the slot, the action and the legal ids),
                or, with autoreset disabled, a slot whose game is over; no slot moves.
        """
        cdef cnp.ndarray arr
        self._enter("step")
        try:
            if type(actions) is np.ndarray:
                arr = <cnp.ndarray> actions
                if not (arr.ndim == 1 and arr.shape[0] == self.num_envs and cnp.PyArray_ISINTEGER(arr)):
                    actions = as_actions(actions, self.num_envs)
            else:
                actions = as_actions(actions, self.num_envs)
            if self._disabled:
                over = self._over_slots()
                if over.size:
                    raise ValueError(f"step(): the game of slot(s) {short_repr(over.tolist(), 60)} is over "
                                     f"and autoreset is disabled: reset them first (reset(mask=...)); "
                                     f"no slot moved")
            self._step(actions)
        finally:
            self._exit()

    def sample(self, rng=None, out=None):
        """A uniform random legal action in every slot, drawn in C.

        With a numpy ``Generator`` ``rng``: slot by slot, ``legal[rng.integers(len(legal))]``,
        moving ``rng`` as those calls would (one stream: the slots are drawn in order on
        one thread). Without one: each slot draws from its own stream, seeded with
        ``seeds.tag_seed(seeds.slot_seed(seed, i), TAG_SAMPLER)`` when ``reset(seed)``
        (or the constructor) seeds slot ``i``, split over the threads like the step.
        Slots that take no action get 0 and draw nothing. Writes into ``out`` (an int64
        array of shape ``(num_envs,)``) or a new array.
        """
        self._enter("sample")
        try:
            return self._sample(rng, out)
        finally:
            self._exit()

    def legal_actions(self, slot):
        """The legal action ids of slot ``slot``'s game now, ascending (empty once over; ``[0]``,
        the no-op, in a deal that ended before the learner acted, under ``short_deals="play"``)."""
        cdef Py_ssize_t i = check_int("slot", slot, 0, self.num_envs - 1)
        self._enter("legal_actions")
        try:
            return self._legal_actions(i)
        finally:
            self._exit()

    def state(self, slot):
        """A rules-layer copy of slot ``slot``'s current position (for pictures and analysis:
        the cards, zones, seat, phase and scores; the event log, which the batch does not
        keep, is empty)."""
        cdef Py_ssize_t i = check_int("slot", slot, 0, self.num_envs - 1)
        self._enter("state")
        try:
            return self._state(i)
        finally:
            self._exit()

    def greedy_actions(self, out=None):
        """The compiled greedy bot's move for the seat to act in every slot (0 where none
        acts), e.g. as an expert's labels for imitation; no slot moves.

        Ties are broken from each slot's own stream, the one ``sample()`` without a generator
        draws from. Writes into ``out`` (an int64 array of shape ``(num_envs,)``) or a new
        array; split over the threads like the step.
        """
        self._enter("greedy_actions")
        try:
            return self._greedy_actions(out)
        finally:
            self._exit()

    def greedy_returns(self, out=None, slots=None, redeals=0):
        """For every legal action of the seat to act in each slot: the return that seat gets
        when it plays the action and then every seat plays the compiled greedy bot to the
        game's end, from a copy of the slot's state (no slot moves); ``out[i, a]`` (float32,
        shape ``(num_envs, num_actions)``), 0 where ``a`` is illegal or no seat acts.

        ``redeals=0``: one play-out from the true state (an unbiased sample of what the action
        is worth to the seat under greedy play, but one that saw the cards). ``redeals=k``:
        the mean over ``k`` compiled re-deals of the cards the seat has not seen
        (``game.determinize``'s twins, drawing what it draws), each deal shared by every
        action: the root values of a one-step search. The re-deals and greedy's ties are
        drawn from each slot's own stream. ``slots`` (a bool array ``(num_envs,)``) limits
        the work to those slots (the others get 0). Split over the threads like the step.
        """
        self._enter("greedy_returns")
        try:
            return self._greedy_returns(out, slots, redeals)
        finally:
            self._exit()

    # ------------------------------------------- what every game's core shares
    cdef object _alloc(self, int num_envs, int pool_threads, int obs_size, int num_actions, int num_players):
        """The arrays of the protocol for ``num_envs`` slots (seats and seeds -1, every slot
        over until the first reset), and a pool of ``pool_threads`` threads (none for one)."""
        cdef Py_ssize_t B = num_envs, i
        self.num_envs = num_envs
        self.pool_threads = pool_threads
        self._renew_pool()
        self.obs = sg_array((B, obs_size), np.int8)
        self.final_obs = sg_array((B, obs_size), np.int8)
        self.mask = sg_array((B, num_actions), np.int8)
        self.seat = sg_array((B,), np.int32)
        self.rewards = sg_array((B, num_players), np.float32)
        self.learner_reward = sg_array((B,), np.float32)
        self.terminated = sg_array((B,), np.bool_)
        self.truncated = sg_array((B,), np.bool_)
        self.illegal = sg_array((B,), np.bool_)
        self.skipped_deals = sg_array((B,), np.int64)
        self.game_seed = sg_array((B,), np.uint64)
        self.final_seed = sg_array((B,), np.uint64)
        self.game_index = sg_array((B,), np.int64)
        self.learner_seat = sg_array((B,), np.int32)
        self.final_learner_seat = sg_array((B,), np.int32)
        self._status = np.full(B, OVER, np.uint8)
        cdef int *seat = <int *> cnp.PyArray_DATA(self.seat)
        cdef int *learner = <int *> cnp.PyArray_DATA(self.learner_seat)
        cdef int *final_learner = <int *> cnp.PyArray_DATA(self.final_learner_seat)
        cdef long long *index = <long long *> cnp.PyArray_DATA(self.game_index)
        for i in range(B):
            seat[i] = learner[i] = final_learner[i] = -1
            index[i] = -1

    cdef object _renew_pool(self):
        """A pool of ``pool_threads`` (none for one), replacing one made before a fork."""
        if self.pool != NULL and not sg_pool_stale(self.pool):
            return
        sg_pool_free(self.pool)  # a stale pool: its memory only (_pool.pxd)
        self.pool = NULL
        if self.pool_threads > 1:
            self.pool = sg_pool_new(self.pool_threads)
            if self.pool == NULL:
                raise MemoryError("no memory for the thread pool")
        self.num_threads = self.pool.nworkers + 1 if self.pool != NULL else 1

    cdef object _over_slots(self):
        """The slots whose game is over and stays so (autoreset disabled), ascending."""
        return np.flatnonzero(self._status == OVER)

    # ------------------------------------------------ the game's core (its module)
    cdef object _setup(self, object game, int num_envs, object seed, int num_threads, object opponents,
                       object learner_seat, object autoreset, object illegal_action, float illegal_reward,
                       object short_deals):
        raise NotImplementedError

    cdef object _reset(self, object seed, object mask):
        raise NotImplementedError

    cdef object _step(self, object actions):
        raise NotImplementedError

    cdef object _sample(self, object rng, object out):
        raise NotImplementedError

    cdef object _legal_actions(self, Py_ssize_t slot):
        raise NotImplementedError

    cdef object _state(self, Py_ssize_t slot):
        raise NotImplementedError

    cdef object _greedy_actions(self, object out):
        raise NotImplementedError

    cdef object _greedy_returns(self, object out, object slots, object redeals):
        raise NotImplementedError
