# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Bharg's batched engine: B games in C, stepped by one call without the GIL.

The protocol is :mod:`setgames.batch`'s (read it first); this is its Bharg
class, built like Tet Hsi's (:mod:`tethsi_env._batch`). Every slot is a
:c:type:`BState` stepped by the very functions the single-game
:class:`bharg_env._engine.Engine` calls (``_engine.pxd``): draws, takes,
discards, the reshuffles and, in match play, the scoring and the next round's
deal, all drawing from numpy-identical ``PCG64([seed, draws])`` streams in C
(``setgames/batch/_rng.pxd``), so the game of seed ``g`` is the game
``raw_env().reset(seed=g)`` deals. A step validates every action first, then
moves each slot: its action, the opponents' moves inside the step
(``opponents="random"`` or ``"greedy"``, the compiled bot of
:mod:`bharg_env._greedy`), the end of its game (rewards, the seed reported in
:attr:`Batch.final_seed`) and, by the autoreset mode, its next deal;
``num_threads > 1`` splits the slots over a pool of threads
(``setgames/batch/_pool.pxd``).

Bharg specifics: ``rewards`` holds what each seat earned on the step, which in
match play under ``reward="score"`` includes the points of a round that ended
without ending the game; the turn limit ends a game as ``truncated`` (not
``terminated``), as in the AEC env. With opponents, the rewards the seats
earn before the learner's first move of a game (a round the opponents end)
are paid with the learner's first step of that game, in ``rewards`` and
``learner_reward``, as :class:`setgames.wrappers.SingleAgentEnv` pays them. A
game that the seats before the learner end before its first move (an
opponent's first discard binds its whole hand) is skipped and counted in
``skipped_deals`` (``short_deals="skip"``: the slot deals its next game,
index + 1), or shown to the learner as a one-step episode whose only legal
action, 0, is a no-op that ends it with the learner's rewards of that deal
(``short_deals="play"``, for unbiased win rates).

In the ``history`` mode each slot has a record of ``BH_HWORDS`` words
(``setgames/_history.pxd``), allocated in that mode only: the slot's steps (the
learner's, the opponents' inside the step, a new game's deal, which clears it) push
the rows of their events (``bh_history_push``, from the scratch ``BEvents`` the step
fills then; the other modes pass none), and the observation writer appends the block
seen from the row's observer. Play-outs on copies (``greedy_returns``) push nothing.
:meth:`Batch.state` carries no event record (in any mode), so its history is empty.
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
from setgames.batch._buffers cimport sg_array
from setgames.batch._guard cimport LIVE, OVER, PENDING, SHORT, GuardedCore
from setgames.batch.seeds import MASK63, TAG_LEARNER_SEAT, TAG_OPPONENTS, TAG_SAMPLER
from setgames.batch._pool cimport sg_aligned_calloc, sg_aligned_free, sg_atomic_min_i64, sg_pool_run
from setgames.batch._rng cimport (sg_bitgen_next32, sg_game_seed, sg_lemire, sg_pcg64, sg_pcg64_next32_v,
                                  sg_pcg64_seed, sg_tag_seed)
from bharg_env._engine cimport (BH_HIST_LEN, BH_HWORDS, BH_MAX_ACTIONS, BH_REWARD, BConfig, BEvents, BState, Engine, bh_apply,
                                bh_config, bh_fill_mask, bh_history_push, bh_is_legal, bh_legal, bh_n_actions,
                                bh_new_game, bh_obs_size, bh_observe, bh_redeal)
from setgames._history cimport sg_history_block, sg_history_reset
from bharg_env._greedy cimport bh_greedy, bh_greedy_features
from bharg_env._structure cimport bh_action_features, bh_structure
from bharg_env._search cimport bh_search_ops
from setgames.search._pimc cimport SgBudget, SgResult, sg_pimc

from bharg_env.greedy import FEATURES
from bharg_env.rules import Phase

cnp.import_array()

cdef enum:
    MAXP = 3               # Bharg's players at most
    OPP_NONE, OPP_RANDOM, OPP_GREEDY, OPP_SEARCH
    SEAT_FIXED, SEAT_ROTATE, SEAT_RANDOM
    AR_NEXT_STEP, AR_SAME_STEP, AR_DISABLED
    IL_RAISE, IL_TERMINATE
    # A slot redeals at most this many games in a row that end before the learner acts (each
    # is a first discard that binds a whole hand: in practice never twice).
    MAX_REDEALS = 64

# Threads get at least this many slots each: waking a thread costs more than stepping a
# few hundred games (measured: B=1 on 2 threads ran at a tenth of 1 thread).
MIN_SLOTS_PER_THREAD = 256
cdef int CHUNK = 64  # slots a thread claims at a time
# The states are allocated 64-byte aligned: whole lines each, so that the fields the legal-action
# walks read (the first 64 bytes, _engine.pxd) are one line of every state.
assert sizeof(BState) % 64 == 0

cdef uint64_t C_TAG_OPP = TAG_OPPONENTS
cdef uint64_t C_TAG_SEAT = TAG_LEARNER_SEAT
cdef uint64_t C_TAG_SAMPLER = TAG_SAMPLER
cdef int PH_OVER = int(Phase.OVER)

ctypedef struct Ctx:
    BState *st
    BConfig cfg
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
    unsigned char *status      # LIVE, PENDING, OVER or SHORT
    signed char *obs
    signed char *final_obs
    char *mask
    int *seat
    float *rewards
    float *learner_reward
    float *pending             # per slot and seat: rewards of the game's opening, paid at the learner's first step
    unsigned char *term
    unsigned char *trunc
    unsigned char *illegal     # per slot: its action was illegal (illegal_action="terminate")
    long long *skipped         # per slot: deals that ended before the learner acted, skipped
    long long *actions
    int64_t first_bad           # the check's answer: the first bad slot, or n
    float illegal_reward
    int illegal_mode, short_play
    int obs_n, n_act, np, opponents, seat_mode, fixed_seat, autoreset
    bint structure             # the game's obs is "structure": its block follows the cards vector
    unsigned int *hist         # the history records, BH_HWORDS words a slot (NULL in the other modes)
    char *af_out               # where action_features() writes (B x n_act x af_n)
    int af_n                   # one action row's features
    int cards_n                # the cards vector's length


cdef inline unsigned int *_ring(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Slot ``i``'s history ring, or NULL outside the history mode (its steps push no rows)."""
    return c.hist + i * BH_HWORDS if c.hist != NULL else NULL


cdef void _write(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Row ``i`` of obs, mask and seat from slot ``i``'s game: the learner's view (or, in
    self-play, the seat to act; once over, the last mover), and its legal actions."""
    cdef BState *s = &c.st[i]
    cdef int shown = c.learner[i] if c.learner[i] >= 0 else s.seat
    cdef char *m = c.mask + i * c.n_act
    bh_observe(s, &c.cfg, shown, <char *> (c.obs + i * c.obs_n))
    if c.structure:
        bh_structure(s, &c.cfg, shown, <char *> (c.obs + i * c.obs_n + c.cards_n))
    elif c.hist != NULL:
        sg_history_block(_ring(c, i), BH_HIST_LEN, shown, c.obs + i * c.obs_n + c.cards_n)
    memset(m, 0, c.n_act)
    if c.status[i] == SHORT:  # the learner's one no-op step of a deal it never acted in
        m[0] = 1
        c.seat[i] = c.learner[i]
    elif s.phase == PH_OVER:
        c.seat[i] = -1
    else:
        bh_fill_mask(s, m)
        c.seat[i] = s.seat


cdef inline void _apply(Ctx *c, BState *s, int a, float *rew) noexcept nogil:
    """Play ``a`` in ``s``, adding the rewards it returns (if any) to ``rew`` (or dropping them: NULL)."""
    cdef double r[MAXP]
    cdef int p
    if bh_apply(s, &c.cfg, a, r, NULL) == BH_REWARD and rew != NULL:
        for p in range(c.np):
            rew[p] += <float> r[p]


cdef void _apply_logged(Ctx *c, BState *s, int a, float *rew, unsigned int *ring) noexcept nogil:
    """:c:func:`_apply` in the history mode, pushing the step's rows to the slot's ``ring`` (apart,
    and not inline: the other modes' step keeps its code and its stack frame)."""
    cdef double r[MAXP]
    cdef int p
    cdef BEvents ev
    if bh_apply(s, &c.cfg, a, r, &ev) == BH_REWARD and rew != NULL:
        for p in range(c.np):
            rew[p] += <float> r[p]
    bh_history_push(ring, c.np, &ev)


cdef void _opponents(Ctx *c, Py_ssize_t i, float *rew) noexcept nogil:
    """Play the other seats of slot ``i`` until the learner is to act or the game ends."""
    cdef BState *s = &c.st[i]
    cdef int legal[BH_MAX_ACTIONS]
    cdef double values[BH_MAX_ACTIONS]
    cdef SgResult res
    cdef int a, n
    while s.phase != PH_OVER and s.seat != c.learner[i]:
        if c.opponents == OPP_GREEDY:
            a = bh_greedy(s, &c.cfg)
        elif c.opponents == OPP_SEARCH:
            a = sg_pimc(bh_search_ops(), s, &c.cfg, &c.opp_budget, &c.opp_rng[i], legal, values, &res)
        else:
            n = bh_legal(s, legal)
            a = legal[sg_lemire(sg_pcg64_next32_v, &c.opp_rng[i], n)]
        if c.hist == NULL:
            _apply(c, s, a, rew)
        else:
            _apply_logged(c, s, a, rew, _ring(c, i))


cdef void _new_game_logged(Ctx *c, Py_ssize_t i, sg_pcg64 *deal, unsigned int *ring) noexcept nogil:
    """The history mode's deal of slot ``i``: a new game's record starts afresh, with the deal's rows."""
    cdef BEvents ev
    bh_new_game(&c.st[i], &c.cfg, deal, &ev)
    sg_history_reset(ring, BH_HIST_LEN, c.np)
    bh_history_push(ring, c.np, &ev)


cdef void _new_game(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Deal slot ``i``'s next game (its index + 1) and, with opponents, play them to the learner's
    turn, their rewards held in ``pending`` for the learner's first step. A deal they end before
    then is skipped and counted (``short_deals="skip"``), or kept as a one-step episode
    (``"play"``, and after ``MAX_REDEALS`` skips in a row)."""
    cdef sg_pcg64 deal
    cdef uint64_t g
    cdef long long k
    cdef int tries, p
    cdef float *pend = c.pending + i * c.np
    cdef unsigned int *ring = _ring(c, i)
    for tries in range(MAX_REDEALS):
        for p in range(c.np):
            pend[p] = 0
        k = c.game_index[i] + 1
        c.game_index[i] = k
        g = sg_game_seed(c.slot_seed[i], <uint64_t> k)
        c.game_seed[i] = g
        sg_pcg64_seed(&deal, g)
        if ring == NULL:
            bh_new_game(&c.st[i], &c.cfg, &deal, NULL)
        else:
            _new_game_logged(c, i, &deal, ring)
        c.status[i] = LIVE
        if c.opponents == OPP_NONE:
            c.learner[i] = -1
            return
        if c.seat_mode == SEAT_FIXED:
            c.learner[i] = c.fixed_seat
        elif c.seat_mode == SEAT_ROTATE:
            c.learner[i] = <int> ((c.fixed_seat + k) % c.np)
        else:
            c.learner[i] = <int> (sg_tag_seed(g, C_TAG_SEAT) % <uint64_t> c.np)
        sg_pcg64_seed(&c.opp_rng[i], sg_tag_seed(g, C_TAG_OPP))
        _opponents(c, i, pend)
        if c.st[i].phase != PH_OVER:
            return
        if c.short_play or tries == MAX_REDEALS - 1:
            c.status[i] = SHORT
            return
        c.skipped[i] += 1


cdef void _finish(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Slot ``i``'s game just ended (its rewards are in ``rew``): its seed reported, then the autoreset."""
    cdef BState *s = &c.st[i]
    c.term[i] = not s.truncated
    c.trunc[i] = s.truncated
    c.final_seed[i] = c.game_seed[i]
    c.final_learner[i] = c.learner[i]
    if c.autoreset == AR_SAME_STEP:
        bh_observe(s, &c.cfg, c.learner[i] if c.learner[i] >= 0 else s.seat,
                   <char *> (c.final_obs + i * c.obs_n))
        if c.structure:
            bh_structure(s, &c.cfg, c.learner[i] if c.learner[i] >= 0 else s.seat,
                         <char *> (c.final_obs + i * c.obs_n + c.cards_n))
        elif c.hist != NULL:
            sg_history_block(_ring(c, i), BH_HIST_LEN, c.learner[i] if c.learner[i] >= 0 else s.seat,
                             c.final_obs + i * c.obs_n + c.cards_n)
        _new_game(c, i)
    else:
        c.status[i] = PENDING if c.autoreset == AR_NEXT_STEP else OVER
    _write(c, i)


cdef void _step_slot(Ctx *c, Py_ssize_t i) noexcept nogil:
    """One step of slot ``i`` (its action already checked)."""
    cdef BState *s = &c.st[i]
    cdef float *rew = c.rewards + i * c.np
    cdef float *pend
    cdef int mover, p
    for p in range(c.np):
        rew[p] = 0
    if c.status[i] == OVER:  # autoreset disabled: the game stays over until reset()
        c.term[i] = not s.truncated
        c.trunc[i] = s.truncated
        c.learner_reward[i] = 0
        return
    c.trunc[i] = 0
    c.term[i] = 0
    if c.status[i] == PENDING:  # next-step autoreset: this step deals, the action is ignored
        _new_game(c, i)
        _write(c, i)
        c.learner_reward[i] = 0
        return
    mover = s.seat
    pend = c.pending + i * c.np
    for p in range(c.np):  # the opening's rewards, paid with the learner's first step
        rew[p] += pend[p]
        pend[p] = 0
    if c.status[i] == SHORT:  # the no-op: the deal's rewards, and it ends
        c.learner_reward[i] = rew[c.learner[i]]
        _finish(c, i)
        return
    if c.illegal[i]:  # illegal_action="terminate": the game ends here, the mover penalised
        p = c.learner[i] if c.learner[i] >= 0 else mover
        rew[p] += c.illegal_reward
        c.learner_reward[i] = rew[p]
        _finish(c, i)
        return
    if c.hist == NULL:
        _apply(c, s, <int> c.actions[i], rew)
    else:
        _apply_logged(c, s, <int> c.actions[i], rew, _ring(c, i))
    if c.opponents != OPP_NONE:
        _opponents(c, i, rew)
    c.learner_reward[i] = rew[c.learner[i] if c.learner[i] >= 0 else mover]
    if s.phase == PH_OVER:
        _finish(c, i)
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
    cdef int legal[BH_MAX_ACTIONS]
    cdef int m
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if c.status[i] != LIVE or c.st[i].phase == PH_OVER:
            c.sample_out[i] = 0
            continue
        m = bh_legal(&c.st[i], legal)
        c.sample_out[i] = legal[sg_lemire(sg_pcg64_next32_v, &c.sampler[i], m)]

cdef float _play_out(Ctx *c, const BState *start, int action) noexcept nogil:
    """The return of the seat to act in ``start`` (a slot's state or a re-deal of it) after
    ``action`` and greedy play by all, on a copy (the rewards of the rounds still to come, as
    the step pays them)."""
    cdef BState t = start[0]
    cdef float rew[MAXP]
    cdef int p, seat = t.seat
    for p in range(c.np):
        rew[p] = 0
    _apply(c, &t, action, rew)  # a copy's play-out: no row of it reaches the slot's ring
    while t.phase != PH_OVER:
        _apply(c, &t, bh_greedy(&t, &c.cfg), rew)
    return rew[seat]


cdef void _returns_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_returns()`` of slots ``lo`` to ``hi - 1`` (a pool task): from the true state, or
    averaged over ``redeals`` re-deals, each shared by every action (common deals make the
    actions' differences less noisy than their values)."""
    cdef Ctx *c = <Ctx *> arg
    cdef int legal[BH_MAX_ACTIONS]
    cdef int k, m, r
    cdef Py_ssize_t i
    cdef float *row
    cdef BState deal
    for i in range(lo, hi):
        row = c.values_out + i * c.n_act
        memset(row, 0, c.n_act * sizeof(float))
        if not c.value_slots[i] or c.status[i] != LIVE or c.st[i].phase == PH_OVER:
            continue
        m = bh_legal(&c.st[i], legal)
        if c.redeals == 0:
            for k in range(m):
                row[legal[k]] = _play_out(c, &c.st[i], legal[k])
            continue
        for r in range(c.redeals):
            deal = c.st[i]
            bh_redeal(&deal, &c.cfg, deal.seat, &c.sampler[i])
            for k in range(m):
                row[legal[k]] += _play_out(c, &deal, legal[k])
        for k in range(m):
            row[legal[k]] /= c.redeals


cdef int NF = len(FEATURES)


cdef void _features_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_features()`` of slots ``lo`` to ``hi - 1`` (a pool task; ``values_out`` rows)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    cdef float *row
    for i in range(lo, hi):
        row = c.values_out + i * c.n_act * NF
        if c.status[i] != LIVE:
            memset(row, 0, c.n_act * NF * sizeof(float))
        else:
            bh_greedy_features(&c.st[i], &c.cfg, row)


cdef void _action_features_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``action_features()`` of slots ``lo`` to ``hi - 1`` (a pool task; ``af_out`` rows)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    cdef char *row
    for i in range(lo, hi):
        row = c.af_out + i * c.n_act * c.af_n
        if c.status[i] != LIVE:
            memset(row, 0, c.n_act * c.af_n)
        else:
            bh_action_features(&c.st[i], &c.cfg, c.st[i].seat, row)


cdef void _greedy_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_actions()`` of slots ``lo`` to ``hi - 1`` (a pool task)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if c.status[i] != LIVE or c.st[i].phase == PH_OVER:
            c.sample_out[i] = 0
        else:
            c.sample_out[i] = bh_greedy(&c.st[i], &c.cfg)


cdef inline bint _bad(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Whether slot ``i`` takes an action and ``actions[i]`` is out of range or illegal there."""
    cdef long long a
    if c.status[i] == SHORT:  # the no-op that ends a deal the learner never acted in
        return c.actions[i] != 0
    if c.status[i] != LIVE:
        return False
    a = c.actions[i]
    return a < 0 or a >= c.n_act or not bh_is_legal(&c.st[i], <int> a)


cdef void _check_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """The first bad slot of ``lo`` to ``hi - 1`` into ``first_bad`` if below it (a pool task:
    run on the caller alone, the check was a serial part of every step; in Tet Hsi's batch at
    B=8192 an eighth of a one-thread step)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    if c.illegal_mode == IL_TERMINATE:  # every slot's mark, no error
        for i in range(lo, hi):
            c.illegal[i] = _bad(c, i)
        return
    for i in range(lo, hi):
        if _bad(c, i):
            sg_atomic_min_i64(&c.first_bad, i)
            return


cdef class Batch(GuardedCore):
    """``num_envs`` Bharg games stepped together in C (the :mod:`setgames.batch` protocol;
    the checks, the one-call-at-a-time door and the fork handling are :mod:`setgames.batch.guard`'s).

    Args:
        game: the :class:`~bharg_env.rules.BhargGame` (any config: 2 or 3 players, deck options,
            match play, either reward mode, the turn limit).
        num_envs: B, the number of slots.
        seed: master seed (slot ``i``'s first game has seed ``seed + i``); None draws one
            from fresh entropy. :meth:`reset` deals the first games.
        num_threads: threads the step splits the slots over (the caller and a pool of
            ``num_threads - 1`` workers), at most one per ``MIN_SLOTS_PER_THREAD`` (256)
            slots: smaller batches run on the caller alone.
        opponents: None (self-play: every seat's moves come in ``actions``), ``"random"``
            or ``"greedy"`` (the other seats are played inside the step; the arrays are the learner's).
        learner_seat: with opponents, the learner's seat: 0 or 1, ``"rotate"`` (seat 0 in a
            slot's first game, then alternating) or ``"random"`` (drawn from each game's seed).
        autoreset: ``"same_step"`` (a finished game's slot deals its next game in the same
            step; the last observation is in :attr:`final_obs`), ``"next_step"`` (the step
            after the end deals, ignoring its action) or ``"disabled"`` (the slot stays
            over, ignoring actions, until :meth:`reset` names it).

    Raises:
        ValueError: a bad option, naming it.
    """

    cdef Ctx c
    cdef Py_ssize_t n
    cdef readonly object game
    cdef readonly int num_players, obs_size, num_actions
    cdef readonly Py_ssize_t state_bytes
    cdef readonly object opponents, learner_mode, illegal_action, illegal_reward, short_deals
    cdef object _pending, _actions, _slot_seed, _labels
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
        self.num_players = game.num_players
        self.obs_size = game.obs_spec.size
        self.num_actions = bh_n_actions()
        assert game.obs_spec.size == bh_obs_size() or game.config.obs in ("structure", "history")
        assert game.num_actions == self.num_actions
        self.opponents = opponents
        self.learner_mode = learner_seat
        self.autoreset = autoreset
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.short_deals = short_deals
        self._labels = game.layout.labels
        B = num_envs
        self.state_bytes = sizeof(BState)
        self.c.st = <BState *> sg_aligned_calloc(B, sizeof(BState))
        self.c.opp_rng = <sg_pcg64 *> calloc(B, sizeof(sg_pcg64))
        self.c.sampler = <sg_pcg64 *> calloc(B, sizeof(sg_pcg64))
        if game.config.obs == "history":  # only there: the other modes' slots keep their size
            assert self.obs_size == bh_obs_size() + 4 * BH_HIST_LEN + 1
            self.c.hist = <unsigned int *> calloc(B * BH_HWORDS, sizeof(unsigned int))
            self.state_bytes += BH_HWORDS * sizeof(unsigned int)  # a slot's record is its state too
            if self.c.hist == NULL:
                raise MemoryError(f"no memory for {B} Bharg histories")
        if self.c.st == NULL or self.c.opp_rng == NULL or self.c.sampler == NULL:
            raise MemoryError(f"no memory for {B} Bharg games")
        self._alloc(B, min(num_threads, B // MIN_SLOTS_PER_THREAD) if B >= 2 * MIN_SLOTS_PER_THREAD else 1,
                    self.obs_size, self.num_actions, self.num_players)
        self._slot_seed = np.zeros(B, np.uint64)
        self._actions = np.zeros(B, np.int64)
        self._pending = np.zeros((B, self.num_players), np.float32)
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
        c.actions = <long long *> cnp.PyArray_DATA(self._actions)
        c.pending = <float *> cnp.PyArray_DATA(self._pending)
        c.illegal = <unsigned char *> cnp.PyArray_DATA(self.illegal)
        c.skipped = <long long *> cnp.PyArray_DATA(self.skipped_deals)
        c.illegal_mode = IL_TERMINATE if illegal_action == "terminate" else IL_RAISE
        c.illegal_reward = illegal_reward
        c.short_play = short_deals == "play"
        c.obs_n = self.obs_size
        c.cards_n = bh_obs_size()
        c.structure = game.config.obs == "structure"
        c.af_n = game.action_spec.size
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
        bh_config(&c.cfg, game)
        c.np = self.num_players
        c.autoreset = (AR_SAME_STEP if autoreset == "same_step" else
                       AR_NEXT_STEP if autoreset == "next_step" else AR_DISABLED)
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

    cdef object _state(self, Py_ssize_t slot):
        """:meth:`Batch.state`: the slot's state through an engine to the rules layer."""
        cdef Engine e = Engine(self.game)
        e.st = self.c.st[slot]
        return self.game.from_json(e.to_json())

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
                for p in range(self.num_players):
                    self.c.rewards[self.num_players * i + p] = 0
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

    cdef object _legal_actions(self, Py_ssize_t slot):
        """The legal action ids of slot ``slot``'s game now, ascending (empty once over; ``[0]``, the
        no-op, in a deal that ended before the learner acted, under ``short_deals="play"``)."""
        cdef int out[BH_MAX_ACTIONS]
        cdef int k, m
        if self.c.st[slot].phase == PH_OVER or self.c.status[slot] != LIVE:
            return [0] if self.c.status[slot] == SHORT else []
        m = bh_legal(&self.c.st[slot], out)
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
        """What the greedy bot weighs for each action of the seat to act in every slot
        (:func:`bharg_env.greedy.greedy_features`, compiled): ``out[i]`` is that
        ``(num_actions, 5)`` table flattened row-major, float32 of shape ``(num_envs,
        num_actions * 5)``, zeros where no seat acts; no slot moves. Split over the threads.
        """
        self._enter("greedy_features")
        try:
            return self._greedy_features(out)
        finally:
            self._exit()

    def action_features(self, out=None):
        """The per-action features of the seat to act in every slot
        (:func:`bharg_env.structure.action_features`, compiled): int8 ``(num_envs,
        num_actions, game.action_spec.size)``, zero rows for illegal actions and for slots
        where no seat acts; ``out`` a C-contiguous int8 array of that shape to write into.
        No slot moves. Split over the threads."""
        self._enter("action_features")
        try:
            return self._action_features(out)
        finally:
            self._exit()

    cdef object _action_features(self, object out):
        """The body of :meth:`action_features`."""
        shape = (self.n, self.num_actions, self.c.af_n)
        if out is None:
            out = np.zeros(shape, np.int8)
        elif (not isinstance(out, np.ndarray) or out.dtype != np.int8 or out.shape != shape
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise ValueError(f"out must be a writable C-contiguous int8 array of shape {shape}")
        cdef Ctx *c = &self.c
        c.af_out = <char *> cnp.PyArray_DATA(out)
        with nogil:
            sg_pool_run(self.pool, _action_features_range, c, self.n, CHUNK)
        return out

    cdef object _greedy_features(self, object out):
        """The body of :meth:`greedy_features`."""
        cdef Py_ssize_t n = self.n
        out = check_values_out(out, n, self.num_actions * NF)
        cdef Ctx *c = &self.c
        c.values_out = <float *> cnp.PyArray_DATA(out)
        with nogil:
            sg_pool_run(self.pool, _features_range, c, n, CHUNK)
        return out

    cdef object _sample(self, object rng, object out):
        """The body of :meth:`sample` (its doc: :mod:`setgames.batch._guard`)."""
        cdef Py_ssize_t i, n = self.n
        cdef int legal[BH_MAX_ACTIONS]
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
                if c.status[i] != LIVE or c.st[i].phase == PH_OVER:
                    o[i] = 0
                    continue
                m = bh_legal(&c.st[i], legal)
                o[i] = legal[sg_lemire(sg_bitgen_next32, bg, m)]
        return out
