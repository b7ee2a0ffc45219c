# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tet Hsi's batched engine: B games in C, stepped by one call without the GIL.

The protocol is :mod:`setgames.batch`'s (read it first); this is its Tet Hsi
class. Every slot is a :c:type:`TState` stepped by the very functions the
single-game :class:`tethsi_env._engine.Engine` calls (``_engine.pxd``), dealt
in C from a numpy-identical ``PCG64`` (``setgames/batch/_rng.pxd``), so the
game of seed ``g`` is the game ``raw_env().reset(seed=g)`` deals. A step
validates every action first, then moves each slot: its action, the
opponents' moves inside the step (``opponents="random"`` or ``"greedy"``, the
compiled bot of :mod:`tethsi_env._greedy`), the end of its game (rewards,
the seed reported in :attr:`Batch.final_seed`) and, by the autoreset mode,
its next deal, all in C; ``num_threads > 1`` splits the slots over a pool
of threads (``setgames/batch/_pool.pxd``: a range of slots per thread, taken
over from its back by a thread done with its own, no barrier, so a busy
machine's late thread does not hold the step).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from numpy.random cimport bitgen_t

cimport numpy as cnp

import numpy as np

from setgames.batch.guard import search_opponents
from setgames.batch.args import check_mask, check_out, check_redeals, check_values_out, illegal_action
from setgames.batch.seeds import MASK63, TAG_LEARNER_SEAT, TAG_OPPONENTS, TAG_SAMPLER
from setgames.batch._buffers cimport sg_array
from setgames.batch._guard cimport LIVE, OVER, PENDING, GuardedCore
from setgames.batch._pool cimport sg_aligned_calloc, sg_aligned_free, sg_atomic_min_i64, sg_pool_run
from setgames.batch._rng cimport (sg_bitgen_next32, sg_game_seed, sg_lemire, sg_pcg64, sg_pcg64_next32_v,
                                  sg_pcg64_seed, sg_tag_seed)
from setgames._history cimport sg_history_reset, sg_history_row
from tethsi_env._engine cimport (TH_HLEN, TH_HWORDS, TH_MAX_ACTIONS, Engine, TState, th_action_feature_size,
                                 th_action_features, th_apply, th_deal, th_fill_mask, th_history_obs_size,
                                 th_is_legal, th_legal, th_n_actions, th_obs_size_of, th_observe_history,
                                 th_observe_mode, th_over, th_redeal, th_returns)
from tethsi_env._greedy cimport th_greedy, th_greedy_features
from tethsi_env._search cimport th_search_ops
from setgames.search._pimc cimport SgBudget, SgResult, sg_pimc

from tethsi_env.greedy import FEATURE_ROWS, FEATURES
from tethsi_env.history import history_events

cnp.import_array()

cdef enum:
    NP = 2                 # Tet Hsi's players
    OPP_NONE, OPP_RANDOM, OPP_GREEDY, OPP_SEARCH
    SEAT_FIXED, SEAT_ROTATE, SEAT_RANDOM
    AR_NEXT_STEP, AR_SAME_STEP, AR_DISABLED
    IL_RAISE, IL_TERMINATE

# Threads get at least this many slots each: waking a thread costs more than stepping a
# few hundred games (measured: B=1 on 2 threads ran at a tenth of 1 thread).
MIN_SLOTS_PER_THREAD = 256
cdef int CHUNK = 64  # slots a thread claims at a time
# The states are allocated 64-byte aligned: whole lines each, so that the fields the legal-action
# walks read (the first 64 bytes, _engine.pxd) are one line of every state.
assert sizeof(TState) % 64 == 0

cdef uint64_t C_TAG_OPP = TAG_OPPONENTS
cdef uint64_t C_TAG_SEAT = TAG_LEARNER_SEAT
cdef uint64_t C_TAG_SAMPLER = TAG_SAMPLER

ctypedef struct Ctx:
    TState *st
    sg_pcg64 *opp_rng          # per slot: the opponents' draws of the current game
    SgBudget opp_budget        # the search opponents' budget (OPP_SEARCH)
    sg_pcg64 *sampler          # per slot: the draws of sample() without a generator
    long long *sample_out      # where that sample() writes (set by each call)
    float *values_out          # where greedy_returns() writes (B x n_act)
    unsigned char *value_slots # the slots it evaluates
    int redeals                # its re-deals per slot (0: the true state)
    uint64_t *slot_seed
    uint64_t *game_seed
    uint64_t *final_seed
    long long *game_index
    int *learner               # per slot: the learner's seat in this game (-1 in self-play)
    int *final_learner
    unsigned char *status      # LIVE, PENDING or OVER
    signed char *obs
    signed char *final_obs
    char *mask
    int *seat
    float *rewards
    float *learner_reward
    unsigned char *term
    unsigned char *trunc
    unsigned char *illegal     # per slot: its action was illegal (illegal_action="terminate")
    long long *actions
    int64_t first_bad           # the check's answer: the first bad slot, or n
    float illegal_reward
    int obs_n, n_act, opponents, seat_mode, fixed_seat, first_player, autoreset, illegal_mode
    bint structure             # the game's obs mode is "structure" (rows end with the structure block)
    unsigned int *hist         # history mode: per slot a ring of 1 + TH_HLEN words; else NULL
    signed char *af_out        # where action_features() writes (B x n_act x its row size)


cdef inline unsigned int *_ring(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Slot ``i``'s history ring, NULL outside the history mode (th_apply then pushes nothing)."""
    return c.hist + i * TH_HWORDS if c.hist != NULL else NULL


cdef inline void _observe(Ctx *c, Py_ssize_t i, int seat, signed char *out) noexcept nogil:
    """Slot ``i``'s observation from ``seat`` in the game's mode into ``out``."""
    if c.hist != NULL:
        th_observe_history(&c.st[i], _ring(c, i), seat, <unsigned char *> out)
    else:
        th_observe_mode(&c.st[i], seat, c.structure, <unsigned char *> out)


cdef void _write(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Row ``i`` of obs, mask and seat from slot ``i``'s game: the learner's view (or, in
    self-play, the seat to act; once over, the last mover), and its legal actions."""
    cdef TState *s = &c.st[i]
    cdef int shown = c.learner[i] if c.learner[i] >= 0 else s.seat
    cdef char *m = c.mask + i * c.n_act
    _observe(c, i, shown, c.obs + i * c.obs_n)
    memset(m, 0, c.n_act)
    if th_over(s):
        c.seat[i] = -1
    else:
        th_fill_mask(s, m)
        c.seat[i] = s.seat


cdef int _opponents(Ctx *c, Py_ssize_t i, float *rew) noexcept nogil:
    """Play the other seats of slot ``i`` until the learner is to act or the game ends."""
    cdef TState *s = &c.st[i]
    cdef int legal[TH_MAX_ACTIONS]
    cdef double values[TH_MAX_ACTIONS]
    cdef SgResult res
    cdef int a, n, status = 0
    cdef unsigned int *h = _ring(c, i)
    while not th_over(s) and s.seat != c.learner[i]:
        if c.opponents == OPP_GREEDY:
            a = th_greedy(s, sg_pcg64_next32_v, &c.opp_rng[i])
        elif c.opponents == OPP_SEARCH:
            a = sg_pimc(th_search_ops(), s, NULL, &c.opp_budget, &c.opp_rng[i], legal, values, &res)
        else:
            n = th_legal(s, legal)
            a = legal[sg_lemire(sg_pcg64_next32_v, &c.opp_rng[i], n)]
        status = th_apply(s, a, h)
    return status


cdef void _new_game(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Deal slot ``i``'s next game (its index + 1) and, with opponents, play them to the learner's turn."""
    cdef sg_pcg64 deal
    cdef uint64_t g
    cdef long long k = c.game_index[i] + 1
    c.game_index[i] = k
    g = sg_game_seed(c.slot_seed[i], <uint64_t> k)
    c.game_seed[i] = g
    sg_pcg64_seed(&deal, g)
    th_deal(&c.st[i], &deal, c.first_player)
    if c.hist != NULL:
        sg_history_reset(_ring(c, i), TH_HLEN, 2)  # the deal pushes no row (tethsi_env.history)
    c.status[i] = LIVE
    if c.opponents == OPP_NONE:
        c.learner[i] = -1
        return
    if c.seat_mode == SEAT_FIXED:
        c.learner[i] = c.fixed_seat
    elif c.seat_mode == SEAT_ROTATE:
        c.learner[i] = <int> ((c.fixed_seat + k) % NP)
    else:
        c.learner[i] = <int> (sg_tag_seed(g, C_TAG_SEAT) % NP)
    sg_pcg64_seed(&c.opp_rng[i], sg_tag_seed(g, C_TAG_OPP))
    # A Tet Hsi game cannot end before each seat has moved (three Sets empty a hand).
    _opponents(c, i, NULL)


cdef void _finish(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Slot ``i``'s game just ended (its rewards are in the step's row): its seed reported, then
    the autoreset."""
    cdef TState *s = &c.st[i]
    c.term[i] = 1
    c.final_seed[i] = c.game_seed[i]
    c.final_learner[i] = c.learner[i]
    if c.autoreset == AR_SAME_STEP:
        _observe(c, i, c.learner[i] if c.learner[i] >= 0 else s.seat, c.final_obs + i * c.obs_n)
        _new_game(c, i)
    else:
        c.status[i] = PENDING if c.autoreset == AR_NEXT_STEP else OVER
    _write(c, i)


cdef void _step_slot(Ctx *c, Py_ssize_t i) noexcept nogil:
    """One step of slot ``i`` (its action already checked)."""
    cdef TState *s = &c.st[i]
    cdef float *rew = c.rewards + i * NP
    cdef float ret[NP]
    cdef int mover, status, p
    rew[0] = 0
    rew[1] = 0
    c.trunc[i] = 0
    if c.status[i] == OVER:  # autoreset disabled: the game stays over until reset()
        c.term[i] = 1
        c.learner_reward[i] = 0
        return
    c.term[i] = 0
    if c.status[i] == PENDING:  # next-step autoreset: this step deals, the action is ignored
        _new_game(c, i)
        _write(c, i)
        c.learner_reward[i] = 0
        return
    mover = s.seat
    c.learner_reward[i] = 0
    if c.illegal[i]:  # illegal_action="terminate": the game ends here, the mover penalised
        p = c.learner[i] if c.learner[i] >= 0 else mover
        rew[p] += c.illegal_reward
        _finish(c, i)
        c.learner_reward[i] = rew[p]
        return
    status = th_apply(s, <int> c.actions[i], _ring(c, i))
    if status == 0 and c.opponents != OPP_NONE:
        status = _opponents(c, i, rew)
    if status:
        th_returns(s, ret)
        for p in range(NP):
            rew[p] += ret[p]
        _finish(c, i)
        c.learner_reward[i] = rew[c.final_learner[i] if c.final_learner[i] >= 0 else mover]
    else:
        _write(c, i)


cdef void _step_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """Slots ``lo`` to ``hi - 1`` of the batch ``arg`` (a ``Ctx``), one step each (a pool task)."""
    cdef Py_ssize_t i
    for i in range(lo, hi):
        _step_slot(<Ctx *> arg, i)


cdef void _sample_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``sample()`` of slots ``lo`` to ``hi - 1`` from their own streams (a pool task)."""
    cdef Ctx *c = <Ctx *> arg
    cdef int legal[TH_MAX_ACTIONS]
    cdef int m
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if c.status[i] != LIVE or th_over(&c.st[i]):
            c.sample_out[i] = 0
            continue
        m = th_legal(&c.st[i], legal)
        c.sample_out[i] = legal[sg_lemire(sg_pcg64_next32_v, &c.sampler[i], m)]

cdef float _play_out(Ctx *c, Py_ssize_t i, const TState *start, int action) noexcept nogil:
    """The return of the seat to act in ``start`` (slot ``i``'s state or a re-deal of it) after
    ``action`` and greedy play by all, on a copy; greedy's ties from the slot's sampler stream."""
    cdef TState t = start[0]
    cdef float ret[NP]
    cdef int seat = t.seat
    cdef int status = th_apply(&t, action, NULL)
    while not status:
        status = th_apply(&t, th_greedy(&t, sg_pcg64_next32_v, &c.sampler[i]), NULL)
    th_returns(&t, ret)
    return ret[seat]


cdef void _returns_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_returns()`` of slots ``lo`` to ``hi - 1`` (a pool task): from the true state, or
    averaged over ``redeals`` re-deals, each shared by every action (common deals make the
    actions' differences less noisy than their values)."""
    cdef Ctx *c = <Ctx *> arg
    cdef int legal[TH_MAX_ACTIONS]
    cdef int k, m, r
    cdef Py_ssize_t i
    cdef float *row
    cdef TState deal
    for i in range(lo, hi):
        row = c.values_out + i * c.n_act
        memset(row, 0, c.n_act * sizeof(float))
        if not c.value_slots[i] or c.status[i] != LIVE or th_over(&c.st[i]):
            continue
        m = th_legal(&c.st[i], legal)
        if c.redeals == 0:
            for k in range(m):
                row[legal[k]] = _play_out(c, i, &c.st[i], legal[k])
            continue
        for r in range(c.redeals):
            deal = c.st[i]
            th_redeal(&deal, deal.seat, &c.sampler[i])
            for k in range(m):
                row[legal[k]] += _play_out(c, i, &deal, legal[k])
        for k in range(m):
            row[legal[k]] /= c.redeals


cdef int NFEAT = FEATURE_ROWS * len(FEATURES)  # the floats of one slot's greedy features


cdef void _features_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_features()`` of slots ``lo`` to ``hi - 1`` (a pool task; ``values_out`` rows)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    cdef float *row
    for i in range(lo, hi):
        row = c.values_out + i * NFEAT
        if c.status[i] != LIVE:
            memset(row, 0, NFEAT * sizeof(float))
        else:
            th_greedy_features(&c.st[i], row)


cdef void _action_features_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``action_features()`` of slots ``lo`` to ``hi - 1`` (a pool task): the rows of the seat to act."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i, size = <Py_ssize_t> c.n_act * th_action_feature_size()
    cdef signed char *rows
    for i in range(lo, hi):
        rows = c.af_out + i * size
        memset(rows, 0, size)
        if c.status[i] == LIVE and not th_over(&c.st[i]):
            th_action_features(&c.st[i], c.st[i].seat, rows)


cdef void _greedy_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_actions()`` of slots ``lo`` to ``hi - 1`` (a pool task)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if c.status[i] != LIVE or th_over(&c.st[i]):
            c.sample_out[i] = 0
        else:
            c.sample_out[i] = th_greedy(&c.st[i], sg_pcg64_next32_v, &c.sampler[i])


cdef inline bint _bad(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Whether slot ``i`` takes an action and ``actions[i]`` is out of range or illegal there."""
    cdef long long a
    if c.status[i] != LIVE:
        return False
    a = c.actions[i]
    return a < 0 or a >= c.n_act or not th_is_legal(&c.st[i], <int> a)


cdef void _check_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """The first bad slot of ``lo`` to ``hi - 1`` into ``first_bad`` if below it, or under
    ``illegal_action="terminate"`` every slot's mark in ``illegal`` (a pool task: on one thread
    the check was an eighth of a B=8192 step, a serial part that capped two threads near 1.8x)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    if c.illegal_mode == IL_TERMINATE:
        for i in range(lo, hi):
            c.illegal[i] = _bad(c, i)
        return
    for i in range(lo, hi):
        if _bad(c, i):
            sg_atomic_min_i64(&c.first_bad, i)
            return


cdef class Batch(GuardedCore):
    """``num_envs`` Tet Hsi games stepped together in C (the :mod:`setgames.batch` protocol;
    the checks, the one-call-at-a-time door and the fork handling are :mod:`setgames.batch.guard`'s).

    Args:
        game: the :class:`~tethsi_env.rules.TetHsiGame` (its config: ``first_player``).
        num_envs: B, the number of slots.
        seed: master seed (slot ``i``'s first game has seed ``seed + i``); None draws one
            from fresh entropy. :meth:`reset` deals the first games.
        num_threads: threads the step may split the slots over (the caller and a pool of
            workers), at most one per ``MIN_SLOTS_PER_THREAD`` (256) slots: smaller batches
            run on the caller alone. :attr:`num_threads` reports the threads it uses.
        opponents: None (self-play: every seat's moves come in ``actions``), ``"random"``
            or ``"greedy"`` (the other seats are played inside the step; the arrays are the learner's).
        learner_seat: with opponents, the learner's seat: 0 or 1, ``"rotate"`` (seat 0 in a
            slot's first game, then alternating) or ``"random"`` (drawn from each game's seed).
        autoreset: any spelling of :mod:`setgames.batch.modes`: ``"same_step"`` (the default:
            a finished game's slot deals its next game in the same step; the last observation
            is in :attr:`final_obs`), ``"next_step"`` (the step after the end deals, ignoring
            its action) or ``"disabled"`` (the slot stays over until :meth:`reset` names it;
            stepping before that is an error).
        illegal_action: ``"raise"`` (an illegal or out-of-range action raises ``ValueError``
            and no slot moves) or ``"terminate"`` (that slot's game ends there: the mover
            gets ``illegal_reward``, :attr:`illegal` marks the slot, the others step on).
        illegal_reward: the mover's reward for an illegal action under ``"terminate"``.
        short_deals: ``"skip"`` or ``"play"``: what to do with a deal that ends before the
            learner acts; a Tet Hsi game cannot (each seat moves before three Sets empty a
            hand), so :attr:`skipped_deals` stays 0.

    Raises:
        ValueError: a bad option, naming it.
    """

    cdef Ctx c
    cdef Py_ssize_t n
    cdef readonly object game
    cdef readonly int num_players, obs_size, num_actions
    cdef readonly Py_ssize_t state_bytes
    cdef readonly object opponents, learner_mode, illegal_action, illegal_reward, short_deals
    cdef object _actions, _slot_seed, _labels
    cdef bint _seeded

    def __cinit__(self):
        self.c.st = NULL
        self.c.opp_rng = NULL
        self.c.sampler = NULL
        self.c.hist = NULL

    def __dealloc__(self):
        sg_aligned_free(self.c.st)
        free(self.c.opp_rng)
        free(self.c.sampler)
        free(self.c.hist)

    cdef object _setup(self, object game, int num_envs, object seed, int num_threads, object opponents,
                       object learner_seat, object autoreset, object illegal_action, float illegal_reward,
                       object short_deals):
        """Build the C state for options :func:`~setgames.batch.guard.check_batch_options` checked."""
        self.game = game
        self.n = num_envs
        self.num_players = NP
        structure = game.config.obs == "structure"
        history = game.config.obs == "history"
        self.obs_size = th_history_obs_size() if history else th_obs_size_of(structure)
        self.num_actions = th_n_actions()
        assert game.num_players == NP and game.obs_spec.size == self.obs_size
        assert game.num_actions == self.num_actions
        self.opponents = opponents
        self.learner_mode = learner_seat
        self.autoreset = autoreset
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.short_deals = short_deals
        self._labels = game.layout.labels
        B = num_envs
        # A slot's C state: the game, and in the history mode its ring too.
        self.state_bytes = sizeof(TState) + (history * TH_HWORDS * sizeof(unsigned int))
        self.c.st = <TState *> sg_aligned_calloc(B, sizeof(TState))
        self.c.opp_rng = <sg_pcg64 *> calloc(B, sizeof(sg_pcg64))
        self.c.sampler = <sg_pcg64 *> calloc(B, sizeof(sg_pcg64))
        if history:  # the rings live beside the states: a TState copy (search, play-outs) has none
            self.c.hist = <unsigned int *> calloc(B * TH_HWORDS, sizeof(unsigned int))
        if (self.c.st == NULL or self.c.opp_rng == NULL or self.c.sampler == NULL
                or (history and self.c.hist == NULL)):
            raise MemoryError(f"no memory for {B} Tet Hsi games")
        self._alloc(B, min(num_threads, B // MIN_SLOTS_PER_THREAD) if B >= 2 * MIN_SLOTS_PER_THREAD else 1,
                    self.obs_size, self.num_actions, NP)
        self._slot_seed = np.zeros(B, np.uint64)
        self._actions = np.zeros(B, np.int64)
        c = &self.c
        c.slot_seed = <uint64_t *> cnp.PyArray_DATA(self._slot_seed)
        c.game_seed = <uint64_t *> cnp.PyArray_DATA(self.game_seed)
        c.final_seed = <uint64_t *> cnp.PyArray_DATA(self.final_seed)
        c.game_index = <long long *> cnp.PyArray_DATA(self.game_index)
        c.learner = <int *> cnp.PyArray_DATA(self.learner_seat)
        c.final_learner = <int *> cnp.PyArray_DATA(self.final_learner_seat)
        c.status = <unsigned char *> cnp.PyArray_DATA(self._status)
        c.obs = <signed char *> cnp.PyArray_DATA(self.obs)
        c.final_obs = <signed char *> cnp.PyArray_DATA(self.final_obs)
        c.mask = <char *> cnp.PyArray_DATA(self.mask)
        c.seat = <int *> cnp.PyArray_DATA(self.seat)
        c.rewards = <float *> cnp.PyArray_DATA(self.rewards)
        c.learner_reward = <float *> cnp.PyArray_DATA(self.learner_reward)
        c.term = <unsigned char *> cnp.PyArray_DATA(self.terminated)
        c.trunc = <unsigned char *> cnp.PyArray_DATA(self.truncated)
        c.illegal = <unsigned char *> cnp.PyArray_DATA(self.illegal)
        c.actions = <long long *> cnp.PyArray_DATA(self._actions)
        c.obs_n = self.obs_size
        c.structure = structure
        c.n_act = self.num_actions
        c.opponents = {None: OPP_NONE, "random": OPP_RANDOM, "greedy": OPP_GREEDY}.get(opponents, OPP_SEARCH)
        if c.opponents == OPP_SEARCH:
            c.opp_budget.iters, c.opp_budget.z = search_opponents(opponents)
            c.opp_budget.ms = 0
            c.opp_budget.min_iters = 1
        if isinstance(learner_seat, str):
            c.seat_mode = SEAT_ROTATE if learner_seat == "rotate" else SEAT_RANDOM
            c.fixed_seat = 0
        else:
            c.seat_mode = SEAT_FIXED
            c.fixed_seat = learner_seat
        fp = game.config.first_player
        c.first_player = -1 if fp == "random" else fp
        c.autoreset = (AR_SAME_STEP if autoreset == "same_step" else
                       AR_NEXT_STEP if autoreset == "next_step" else AR_DISABLED)
        c.illegal_mode = IL_TERMINATE if illegal_action == "terminate" else IL_RAISE
        c.illegal_reward = illegal_reward
        self._seeded = False
        if seed is not None:
            self._reseed(int(seed), None)

    cdef void _reseed(self, object master, object where):
        """Slot seeds ``master + i`` (mod 2**63) for the slots of the bool mask ``where`` (all if
        None), and their sampler streams."""
        cdef Py_ssize_t i
        seeds = (np.arange(self.n, dtype=np.uint64) + np.uint64(master & MASK63)) & np.uint64(MASK63)
        for i in range(self.n):
            if where is None or where[i]:
                sg_pcg64_seed(&self.c.sampler[i], sg_tag_seed(<uint64_t> seeds[i], C_TAG_SAMPLER))
                self.c.slot_seed[i] = <uint64_t> seeds[i]
                self.c.game_index[i] = -1
        self._seeded = True

    cdef object _reset(self, object seed, object mask):
        """:meth:`Batch.reset` (``seed`` checked)."""
        cdef Py_ssize_t i
        mask = check_mask(mask, self.n)
        if seed is not None:
            self._reseed(int(seed), mask)
        elif not self._seeded:
            self._reseed(int(np.random.SeedSequence().entropy) & MASK63, None)
        for i in range(self.n):
            if mask is None or mask[i]:
                _new_game(&self.c, i)
                _write(&self.c, i)
                self.c.rewards[2 * i] = self.c.rewards[2 * i + 1] = 0
                self.c.learner_reward[i] = 0
                self.c.term[i] = self.c.trunc[i] = self.c.illegal[i] = 0

    cdef object _step(self, object actions):
        """:meth:`Batch.step` (``actions`` an integer array of shape ``(num_envs,)``)."""
        cdef Py_ssize_t i, bad, n = self.n
        cdef Ctx *c = &self.c
        # uint64 ids beyond int64 wrap to negatives: caught as out of range below.
        np.copyto(self._actions, actions, casting="unsafe")
        c.first_bad = n
        with nogil:
            sg_pool_run(self.pool, _check_range, c, n, CHUNK)
        bad = c.first_bad
        if bad < n:
            raise illegal_action(bad, int(actions[bad]), self._legal_actions(bad), self._labels)
        with nogil:
            sg_pool_run(self.pool, _step_range, c, n, CHUNK)

    cdef object _state(self, Py_ssize_t slot):
        """:meth:`Batch.state`: the slot's ``TState`` through an engine to the rules layer."""
        cdef Engine e = Engine(self.game)
        cdef unsigned int *h = _ring(&self.c, slot)
        cdef unsigned int row, j
        e.st = self.c.st[slot]
        if h != NULL:  # the ring holds the whole record (no game outgrows it): the events back
            rows = []
            for j in reversed(range(h[0] if h[0] < TH_HLEN else TH_HLEN)):  # oldest first
                row = sg_history_row(h, TH_HLEN, j)
                rows.append((row & 0xFF, <int> ((row >> 8) & 0xFF) - 1, <int> ((row >> 16) & 0xFF) - 1,
                             <signed char> (row >> 24)))
            e._events = history_events(rows)
        return self.game.from_json(e.to_json())

    cdef object _legal_actions(self, Py_ssize_t slot):
        """The legal action ids of slot ``slot``'s game now, ascending (empty once over)."""
        cdef int out[TH_MAX_ACTIONS]
        cdef int k, m
        if th_over(&self.c.st[slot]) or self.c.status[slot] != LIVE:
            return []
        m = th_legal(&self.c.st[slot], out)
        return [out[k] for k in range(m)]

    cdef object _greedy_returns(self, object out, object slots, object redeals):
        """The body of :meth:`greedy_returns` (its doc: :mod:`setgames.batch._guard`)."""
        cdef Py_ssize_t n = self.n
        out = check_values_out(out, n, self.num_actions)
        mask = check_mask(slots, n)
        cdef int k = check_redeals(redeals)
        keep = np.ones(n, np.uint8) if mask is None else np.ascontiguousarray(mask, np.uint8)
        cdef Ctx *c = &self.c
        c.values_out = <float *> cnp.PyArray_DATA(out)
        c.value_slots = <unsigned char *> cnp.PyArray_DATA(keep)
        c.redeals = k
        with nogil:
            sg_pool_run(self.pool, _returns_range, c, n, CHUNK)
        return out

    cdef object _greedy_actions(self, object out):
        """The body of :meth:`greedy_actions` (its doc: :mod:`setgames.batch._guard`)."""
        cdef Py_ssize_t n = self.n
        out = check_out(out, n)
        cdef Ctx *c = &self.c
        c.sample_out = <long long *> cnp.PyArray_DATA(out)
        with nogil:
            sg_pool_run(self.pool, _greedy_range, c, n, CHUNK)
        return out

    def greedy_features(self, out=None):
        """What the greedy bot weighs for each move of the seat to act in every slot
        (:func:`tethsi_env.greedy.greedy_features`, compiled): ``out[i]`` is that
        ``(FEATURE_ROWS, 6)`` table flattened row-major, float32 of shape ``(num_envs,
        FEATURE_ROWS * 6)``, zeros where no seat acts; no slot moves. Split over the threads.
        """
        self._enter("greedy_features")
        try:
            return self._greedy_features(out)
        finally:
            self._exit()

    cdef object _greedy_features(self, object out):
        """The body of :meth:`greedy_features`."""
        cdef Py_ssize_t n = self.n
        out = check_values_out(out, n, NFEAT)
        cdef Ctx *c = &self.c
        c.values_out = <float *> cnp.PyArray_DATA(out)
        with nogil:
            sg_pool_run(self.pool, _features_range, c, n, CHUNK)
        return out

    def action_features(self, out=None):
        """The per-action features (``game.action_features``, compiled) of the seat to act in every
        slot: int8 ``(num_envs, num_actions, F)``, ``F = game.action_spec.size``, zero rows for the
        actions not legal and where no seat acts; no slot moves. ``out``: a C-contiguous int8 array
        of that shape to write into (else a new one). Split over the threads."""
        self._enter("action_features")
        try:
            return self._action_features(out)
        finally:
            self._exit()

    cdef object _action_features(self, object out):
        """The body of :meth:`action_features`."""
        shape = (self.n, self.num_actions, th_action_feature_size())
        if out is None:
            out = np.empty(shape, np.int8)
        elif not (isinstance(out, np.ndarray) and out.dtype == np.int8 and out.shape == shape
                  and out.flags.c_contiguous and out.flags.writeable):
            raise ValueError(f"out must be a writable C-contiguous int8 array of shape {shape}")
        cdef Ctx *c = &self.c
        c.af_out = <signed char *> cnp.PyArray_DATA(out)
        with nogil:
            sg_pool_run(self.pool, _action_features_range, c, self.n, CHUNK)
        return out

    cdef object _sample(self, object rng, object out):
        """The body of :meth:`sample` (its doc: :mod:`setgames.batch._guard`)."""
        cdef Py_ssize_t i, n = self.n
        cdef int legal[TH_MAX_ACTIONS]
        cdef int m
        cdef bitgen_t *bg
        out = check_out(out, n)
        cdef long long *o = <long long *> cnp.PyArray_DATA(out)
        cdef Ctx *c = &self.c
        if rng is None:
            c.sample_out = o
            with nogil:
                sg_pool_run(self.pool, _sample_range, c, n, CHUNK)
            return out
        bg = <bitgen_t *> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        with rng.bit_generator.lock, nogil:
            for i in range(n):
                if c.status[i] != LIVE or th_over(&c.st[i]):
                    o[i] = 0
                    continue
                m = th_legal(&c.st[i], legal)
                o[i] = legal[sg_lemire(sg_bitgen_next32, bg, m)]
        return out
