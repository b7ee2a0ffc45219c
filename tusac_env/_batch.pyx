# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tu Sac's batched engine: B games in C, stepped by one call without the GIL.

The protocol is :mod:`setgames.batch`'s (read it first); this is its Tu Sac
class, for 2, 3 and 4 players and every config option. Every slot is a
:c:type:`TSState` stepped by the very functions the single-game
:class:`tusac_env._engine.Engine` calls (``_engine.pxd``): the move, the
automatic out-of-turn claims, the game end and its scoring; dealt in C from a
numpy-identical ``PCG64`` (``setgames/batch/_rng.pxd``), so the game of seed
``g`` is the game ``raw_env().reset(seed=g)`` deals. A step validates every
action first, then moves each slot: its action, the opponents' moves inside
the step (``opponents="random"`` or ``"greedy"``, the compiled bot of
:mod:`tusac_env._greedy`), the end of its game (rewards, the seed reported
in :attr:`Batch.final_seed`) and, by the autoreset mode, its next deal, all
in C; ``num_threads > 1`` splits the slots over a pool of threads
(``setgames/batch/_pool.pxd``). In the ``history`` mode each slot also has a ring of event rows
(``setgames/_history.pxd``) in an array beside the states: its deal clears it and its steps
(the learner's and the opponents') push to it; the play-outs and the search step copies of the
state with no ring, so nothing of theirs reaches a slot's history.

Tu Sac's own case: a game can end before a seat acts (a dealt hand without
trash wins at once; with opponents, an opponent can win before the learner's
first turn). Such a deal is skipped and counted in ``skipped_deals``
(``short_deals="skip"``, the default, as :class:`setgames.wrappers.SingleAgentEnv`
skips it): the slot goes on to its next game index and seed. Under
``short_deals="play"`` the learner sees it as a one-step episode whose only
legal action, 0, is a no-op that ends it with the learner's returns of that
deal, so that win rates measured on the batch count those games too.
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
from setgames._history cimport sg_history_words
from setgames.batch._prefetch cimport sg_prefetch, sg_prefetch_l1
from setgames.batch._pool cimport sg_aligned_calloc, sg_aligned_free, sg_atomic_min_i64, sg_pool_run
from setgames.batch._rng cimport (sg_bitgen_next32, sg_game_seed, sg_lemire, sg_pcg64, sg_pcg64_next32_v,
                                  sg_pcg64_seed, sg_tag_seed)
from tusac_env._engine cimport (MAXSEAT, PH_OVER_C, TS_HLEN, TS_N_ACTIONS, Engine, TSSeat, TSState, ts_apply,
                                ts_deal, ts_action_features, ts_fill_mask, ts_history, ts_history_size,
                                ts_legal_list, ts_observe, ts_redeal, ts_setup, ts_structure, ts_structure_size)
from tusac_env._search cimport ts_search_ops
from setgames.search._pimc cimport SG_MAX_ACTIONS, SgBudget, SgResult, sg_pimc
from tusac_env._greedy cimport ts_greedy

cnp.import_array()


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int popcount64 "__builtin_popcountll"(unsigned long long) nogil

cdef enum:
    OPP_NONE, OPP_RANDOM, OPP_GREEDY, OPP_SEARCH
    SEAT_FIXED, SEAT_ROTATE, SEAT_RANDOM
    AR_NEXT_STEP, AR_SAME_STEP, AR_DISABLED
    IL_RAISE, IL_TERMINATE

# Threads get at least this many slots each: waking a thread costs more than stepping a
# few hundred games (measured: B=1 on 2 threads ran at a tenth of 1 thread).
MIN_SLOTS_PER_THREAD = 256
cdef int CHUNK = 64  # slots a thread claims at a time
# Deals in a row that end before the learner acts, after which a slot gives up (and stays over):
# a first-hand win or an opponent's win before the learner's turn is a few percent of deals.
MAX_REDEALS = 64
cdef int C_MAX_REDEALS = MAX_REDEALS

cdef uint64_t C_TAG_OPP = TAG_OPPONENTS
cdef uint64_t C_TAG_SEAT = TAG_LEARNER_SEAT
cdef uint64_t C_TAG_SAMPLER = TAG_SAMPLER

ctypedef struct Ctx:
    TSState *st
    SgBudget opp_budget        # the search opponents' budget (OPP_SEARCH)
    sg_pcg64 *opp_rng          # per slot: the opponents' draws of the current game
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
    int *last_mover            # per slot: the seat of the last move applied (the view once over)
    uint64_t *legal            # per slot: its legal actions' bits as its mask row shows them (0 once
                               # over or not live), so that sample() and the action check read 8 bytes
                               # of a slot rather than its state's lines
    unsigned char *status      # LIVE, PENDING, OVER or SHORT
    signed char *obs
    signed char *final_obs
    char *mask
    int *seat
    float *rewards
    float *learner_reward
    unsigned char *term
    unsigned char *trunc
    unsigned char *illegal     # per slot: its action was illegal (illegal_action="terminate")
    long long *skipped         # per slot: deals that ended before the learner acted, skipped
    long long *actions
    int64_t first_bad           # the check's answer: the first bad slot, or n
    float illegal_reward
    int illegal_mode, short_play
    int np, obs_n, n_act, opponents, seat_mode, fixed_seat, autoreset
    bint structure             # obs="structure": the block after the cards part of each row
    unsigned int *hist         # obs="history": per slot a record of hwords words (beside the
                               # states: a TSState copy has none to push to); else NULL
    size_t hwords              # sg_history_words(TS_HLEN, np) in the history mode, else 0
    int cards_n                # bytes of the cards part of a row
    signed char *feat_out      # where action_features() writes (B x n_act x feat_n)
    int feat_n
    bint far                   # the slots outgrow the caches: the loops prefetch (AHEAD)
    size_t hot_bytes           # what a step touches of a slot's state: its first bytes


# What a step touches of a slot: its state's hot fields (TSState keeps them first), its
# observation and mask rows. The loops ask for slot i + AHEAD's lines while slot i steps: a
# slot spans more than the CPU's stride prefetchers follow, and at large B it is in no cache.
cdef enum:
    AHEAD = 16
    DRAW_AHEAD = 8       # the pile's top line is asked for this many slots ahead (see _ahead_draw)
    TOP_CARDS = 4        # the pile's cards a step may draw (a hit, then the opponents' hits in it)
    FAR_BYTES = 4 << 20  # slots beyond this many bytes are prefetched (below, the caches hold them)
cdef TSState _LAYOUT
# A game of n seats steps in the shared fields and its n seats' (TSState keeps them first),
# and the pile's top (after the seats).
cdef size_t SEATS_AT = <size_t> (<char *> &_LAYOUT.seats[0] - <char *> &_LAYOUT)


cdef inline unsigned int *_ring(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Slot ``i``'s history ring, NULL outside the history mode (the steps then push nothing)."""
    return c.hist + i * c.hwords if c.hist != NULL else NULL


cdef inline void _ahead(Ctx *c, Py_ssize_t j, int64_t hi) noexcept nogil:
    """Prefetch what slot ``j``'s step will touch (nothing past the task's last slot)."""
    if j < hi:
        sg_prefetch(&c.st[j], c.hot_bytes)
        sg_prefetch(c.obs + j * c.obs_n, c.obs_n)
        sg_prefetch(c.mask + j * c.n_act, c.n_act)
        if c.hist != NULL:  # its history record, read and pushed to (history mode: 1.65x -> 1.5x)
            sg_prefetch(_ring(c, j), c.hwords * sizeof(unsigned int))


cdef inline void _ahead_draw(Ctx *c, Py_ssize_t j, int64_t hi) noexcept nogil:
    """Prefetch the line of slot ``j``'s draw pile that holds its top cards: ``draw_len`` is read
    from the header :func:`_ahead` asked for ``AHEAD - DRAW_AHEAD`` slots ago (in cache by now)."""
    cdef int k
    if j < hi:
        k = c.st[j].draw_len
        if k > 0:
            sg_prefetch(&c.st[j].draw[k - TOP_CARDS if k > TOP_CARDS else 0], TOP_CARDS)


cdef inline bint _over(TSState *s) noexcept nogil:
    return s.phase == PH_OVER_C


cdef inline int _shown(Ctx *c, Py_ssize_t i) noexcept nogil:
    """The seat whose view row ``i`` shows: the learner, else the seat to act (once over, the last mover)."""
    if c.learner[i] >= 0:
        return c.learner[i]
    return c.last_mover[i] if _over(&c.st[i]) else c.st[i].current


cdef inline void _observe(Ctx *c, Py_ssize_t i, int seat, signed char *row) noexcept nogil:
    """``seat``'s observation of slot ``i``'s game in the game's mode into ``row``."""
    cdef TSState *s = &c.st[i]
    ts_observe(s, seat, <unsigned char *> row)
    if c.structure:  # (the cards mode does no more than before)
        ts_structure(s, seat, <unsigned char *> row)
    elif c.hist != NULL:
        ts_history(_ring(c, i), seat, <unsigned char *> (row + c.cards_n))


cdef void _write(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Row ``i`` of obs, mask and seat from slot ``i``'s game: the learner's view (or, in
    self-play, the seat to act; once over, the last mover), and its legal actions."""
    cdef TSState *s = &c.st[i]
    cdef char *m = c.mask + i * c.n_act
    _observe(c, i, _shown(c, i), c.obs + i * c.obs_n)
    memset(m, 0, TS_N_ACTIONS)  # (n_act: a constant, so the clear is inlined)
    c.legal[i] = 0
    if c.status[i] == SHORT:  # the learner's one no-op step of a deal it never acted in
        m[0] = 1
        c.seat[i] = c.learner[i]
    elif _over(s):
        c.seat[i] = -1
    else:
        c.legal[i] = ts_fill_mask(s, m)
        c.seat[i] = s.current



cdef int _opponents(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Play the other seats of slot ``i`` until the learner is to act or the game ends (then 1)."""
    cdef TSState *s = &c.st[i]
    cdef int legal[SG_MAX_ACTIONS]
    cdef double values[SG_MAX_ACTIONS]
    cdef SgResult res
    cdef int a, n, status = 0
    while not _over(s) and s.current != c.learner[i]:
        if c.opponents == OPP_GREEDY:
            a = ts_greedy(s)  # (deterministic: the Python bot draws nothing either)
        elif c.opponents == OPP_SEARCH:
            a = sg_pimc(ts_search_ops(), s, NULL, &c.opp_budget, &c.opp_rng[i], legal, values, &res)
        else:
            n = ts_legal_list(s, legal)
            a = legal[sg_lemire(sg_pcg64_next32_v, &c.opp_rng[i], n)]
        c.last_mover[i] = s.current
        status = ts_apply(s, a, _ring(c, i))
    return status


cdef void _new_game(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Deal slot ``i``'s next game (its index + 1) and, with opponents, play them to the
    learner's turn. A deal that ends before then is skipped for the next index and counted
    (``short_deals="skip"``), or kept as a one-step episode (``"play"``, and after
    ``MAX_REDEALS`` skips in a row)."""
    cdef sg_pcg64 deal
    cdef uint64_t g
    cdef long long k
    cdef int tries
    cdef TSState *s = &c.st[i]
    for tries in range(C_MAX_REDEALS + 1):
        k = c.game_index[i] + 1
        c.game_index[i] = k
        g = sg_game_seed(c.slot_seed[i], <uint64_t> k)
        c.game_seed[i] = g
        sg_pcg64_seed(&deal, g)
        ts_deal(s, &deal, _ring(c, i))
        c.last_mover[i] = -1
        c.status[i] = LIVE
        if c.opponents == OPP_NONE:
            c.learner[i] = -1
        else:
            if c.seat_mode == SEAT_FIXED:
                c.learner[i] = c.fixed_seat
            elif c.seat_mode == SEAT_ROTATE:
                c.learner[i] = <int> ((c.fixed_seat + k) % c.np)
            else:
                c.learner[i] = <int> (sg_tag_seed(g, C_TAG_SEAT) % <uint64_t> c.np)
            sg_pcg64_seed(&c.opp_rng[i], sg_tag_seed(g, C_TAG_OPP))
            _opponents(c, i)
        if not _over(s):
            return
        if c.short_play or tries == C_MAX_REDEALS:
            c.status[i] = SHORT
            return
        c.skipped[i] += 1


cdef void _add_returns(Ctx *c, Py_ssize_t i, float *rew) noexcept nogil:
    """Slot ``i``'s finished game's returns into its step's rewards ``rew``."""
    cdef int p
    for p in range(c.np):
        rew[p] += <float> c.st[i].returns[p]


cdef void _finish(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Slot ``i``'s game just ended (its rewards are in the step's row): its seed reported, then
    the autoreset."""
    c.term[i] = 1
    c.final_seed[i] = c.game_seed[i]
    c.final_learner[i] = c.learner[i]
    if c.autoreset == AR_SAME_STEP:
        _observe(c, i, _shown(c, i), c.final_obs + i * c.obs_n)
        _new_game(c, i)
    else:
        c.status[i] = PENDING if c.autoreset == AR_NEXT_STEP else OVER
    _write(c, i)


cdef void _step_slot(Ctx *c, Py_ssize_t i) noexcept nogil:
    """One step of slot ``i`` (its action already checked)."""
    cdef TSState *s = &c.st[i]
    cdef float *rew = c.rewards + i * c.np
    cdef int mover, status, p
    for p in range(c.np):
        rew[p] = 0
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
    c.learner_reward[i] = 0
    if c.status[i] == SHORT:  # the no-op: the deal's returns, and it ends
        _add_returns(c, i, rew)
        c.learner_reward[i] = rew[c.learner[i]]
        _finish(c, i)
        return
    mover = s.current
    if c.illegal[i]:  # illegal_action="terminate": the game ends here, the mover penalised
        p = c.learner[i] if c.learner[i] >= 0 else mover
        rew[p] += c.illegal_reward
        c.learner_reward[i] = rew[p]
        _finish(c, i)
        return
    c.last_mover[i] = mover
    status = ts_apply(s, <int> c.actions[i], _ring(c, i))
    if status == 0 and c.opponents != OPP_NONE:
        status = _opponents(c, i)
    if status:
        _add_returns(c, i, rew)
        _finish(c, i)
        c.learner_reward[i] = rew[c.final_learner[i] if c.final_learner[i] >= 0 else mover]
    else:
        _write(c, i)


cdef void _step_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """Slots ``lo`` to ``hi - 1`` of the batch ``arg`` (a ``Ctx``), one step each (a pool task)."""
    cdef Py_ssize_t i
    cdef Ctx *c = <Ctx *> arg
    for i in range(lo, hi):
        if c.far:
            _ahead(c, i + AHEAD, hi)
            _ahead_draw(c, i + DRAW_AHEAD, hi)
            if i + 2 < hi:
                sg_prefetch_l1(&c.st[i + 2], c.hot_bytes)
        _step_slot(c, i)


cdef inline int _nth_bit(uint64_t x, int k) noexcept nogil:
    """The index of ``x``'s ``k``-th set bit (from 0, lowest first)."""
    while k:
        x &= x - 1
        k -= 1
    return __builtin_ctzll(x)


cdef void _sample_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``sample()`` of slots ``lo`` to ``hi - 1`` from their own streams (a pool task): a uniform
    pick among the legal actions of the slot's mask row (``legal``: 0 in a slot that takes none)."""
    cdef Ctx *c = <Ctx *> arg
    cdef uint64_t x
    cdef Py_ssize_t i
    for i in range(lo, hi):
        x = c.legal[i]
        if x == 0 or c.status[i] != LIVE:
            c.sample_out[i] = 0
            continue
        c.sample_out[i] = _nth_bit(x, sg_lemire(sg_pcg64_next32_v, &c.sampler[i], popcount64(x)))

cdef float _play_out(const TSState *start, int action) noexcept nogil:
    """The return of the seat to act in ``start`` (a slot's state or a re-deal of it) after
    ``action`` and greedy play by all, on a copy (a Tu Sac state is large: one copy per
    play-out, in the thread's stack)."""
    cdef TSState t = start[0]
    cdef int seat = t.current
    cdef int status = ts_apply(&t, action, NULL)  # (a copy: no history)
    while not status:
        status = ts_apply(&t, ts_greedy(&t), NULL)
    return <float> t.returns[seat]


cdef void _returns_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_returns()`` of slots ``lo`` to ``hi - 1`` (a pool task): from the true state, or
    averaged over ``redeals`` re-deals of what the seat to act has not seen (from the slot's
    sampler stream), each shared by every action (common deals make the actions' differences
    less noisy than their values)."""
    cdef Ctx *c = <Ctx *> arg
    cdef int legal[TS_N_ACTIONS]
    cdef int k, m, r
    cdef Py_ssize_t i
    cdef float *row
    cdef TSState deal
    for i in range(lo, hi):
        row = c.values_out + i * c.n_act
        memset(row, 0, c.n_act * sizeof(float))
        if not c.value_slots[i] or c.status[i] != LIVE or _over(&c.st[i]):
            continue
        m = ts_legal_list(&c.st[i], legal)
        if c.redeals == 0:
            for k in range(m):
                row[legal[k]] = _play_out(&c.st[i], legal[k])
            continue
        for r in range(c.redeals):
            deal = c.st[i]
            ts_redeal(&deal, deal.current, &c.sampler[i])
            for k in range(m):
                row[legal[k]] += _play_out(&deal, legal[k])
        for k in range(m):
            row[legal[k]] /= c.redeals


cdef void _greedy_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``greedy_actions()`` of slots ``lo`` to ``hi - 1`` (a pool task)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if c.status[i] != LIVE or _over(&c.st[i]):
            c.sample_out[i] = 0
        else:
            c.sample_out[i] = ts_greedy(&c.st[i])


cdef void _features_range(void *arg, int64_t lo, int64_t hi) noexcept nogil:
    """``action_features()`` of slots ``lo`` to ``hi - 1`` (a pool task): the rows of the seat to
    act, zero once over (and in a deal the learner never acted in)."""
    cdef Ctx *c = <Ctx *> arg
    cdef Py_ssize_t i
    cdef signed char *rows
    for i in range(lo, hi):
        rows = c.feat_out + i * c.n_act * c.feat_n
        if c.status[i] != LIVE or _over(&c.st[i]):
            memset(rows, 0, c.n_act * c.feat_n)
        else:
            ts_action_features(&c.st[i], c.st[i].current, rows)


cdef inline bint _bad(Ctx *c, Py_ssize_t i) noexcept nogil:
    """Whether slot ``i`` takes an action and ``actions[i]`` is out of range or illegal there."""
    cdef long long a
    if c.status[i] == SHORT:  # the no-op that ends a deal the learner never acted in
        return c.actions[i] != 0
    if c.status[i] != LIVE:
        return False
    a = c.actions[i]
    return a < 0 or a >= c.n_act or not (c.legal[i] >> a) & 1


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
    """``num_envs`` Tu Sac games stepped together in C (the :mod:`setgames.batch` protocol;
    the checks, the one-call-at-a-time door and the fork handling are :mod:`setgames.batch.guard`'s).

    Args:
        game: the :class:`~tusac_env.rules.TuSacGame` (its whole config: players,
            ``penalty_rule``, ``first_player``, ``reward_scale``).
        num_envs: B, the number of slots.
        seed: master seed (slot ``i``'s first game has seed ``seed + i``); None draws one
            from fresh entropy. :meth:`reset` deals the first games.
        num_threads: threads the step splits the slots over (the caller and a pool of
            ``num_threads - 1`` workers), at most one per ``MIN_SLOTS_PER_THREAD`` (256)
            slots: smaller batches run on the caller alone.
        opponents: None (self-play: every seat's moves come in ``actions``), ``"random"``
            or ``"greedy"`` (the other seats are played inside the step; the arrays are the learner's).
        learner_seat: with opponents, the learner's seat: a seat, ``"rotate"`` (seat ``k mod n``
            in a slot's game of index ``k``) or ``"random"`` (drawn from each game's seed).
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
    cdef object _actions, _slot_seed, _labels, _last_mover
    cdef bint _seeded

    def __cinit__(self):
        self.c.st = NULL
        self.c.opp_rng = NULL
        self.c.sampler = NULL
        self.c.legal = NULL
        self.c.hist = NULL

    def __dealloc__(self):
        sg_aligned_free(self.c.st)
        free(self.c.opp_rng)
        free(self.c.sampler)
        free(self.c.legal)
        free(self.c.hist)

    cdef object _setup(self, object game, int num_envs, object seed, int num_threads, object opponents,
                       object learner_seat, object autoreset, object illegal_action, float illegal_reward,
                       object short_deals):
        """Build the C state for options :func:`~setgames.batch.guard.check_batch_options` checked."""
        NP = game.num_players
        self.game = game
        self.n = num_envs
        self.num_players = NP
        self.num_actions = TS_N_ACTIONS
        assert game.num_actions == self.num_actions and NP <= MAXSEAT
        self.opponents = opponents
        self.learner_mode = learner_seat
        self.autoreset = autoreset
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.short_deals = short_deals
        self._labels = game.layout.labels
        B = num_envs
        history = game.obs == "history"
        # A slot's C state: the game, and in the history mode its ring too (the TSState keeps its size).
        self.c.hwords = sg_history_words(TS_HLEN, game.num_players) if history else 0
        self.state_bytes = sizeof(TSState) + self.c.hwords * sizeof(unsigned int)
        self.c.st = <TSState *> sg_aligned_calloc(B, sizeof(TSState))
        self.c.opp_rng = <sg_pcg64 *> calloc(B, sizeof(sg_pcg64))
        self.c.sampler = <sg_pcg64 *> calloc(B, sizeof(sg_pcg64))
        self.c.legal = <uint64_t *> calloc(B, sizeof(uint64_t))
        if history:
            self.c.hist = <unsigned int *> calloc(B * self.c.hwords, sizeof(unsigned int))
        if (self.c.st == NULL or self.c.opp_rng == NULL or self.c.sampler == NULL or self.c.legal == NULL
                or (history and self.c.hist == NULL)):
            raise MemoryError(f"no memory for {B} Tu Sac games")
        for i in range(B):
            ts_setup(&self.c.st[i], game.config, NULL)
        self.c.structure = game.obs == "structure"
        self.c.cards_n = self.c.st[0].obs_size
        self.obs_size = (ts_structure_size(NP) if self.c.structure else
                         ts_history_size(NP) if history else self.c.cards_n)
        assert game.obs_spec.size == self.obs_size
        self.c.feat_n = game.action_spec.size
        self._alloc(B, min(num_threads, B // MIN_SLOTS_PER_THREAD) if B >= 2 * MIN_SLOTS_PER_THREAD else 1,
                    self.obs_size, self.num_actions, NP)
        self._slot_seed = np.zeros(B, np.uint64)
        self._last_mover = np.full(B, -1, np.int32)
        self._actions = np.zeros(B, np.int64)
        c = &self.c
        c.slot_seed = <uint64_t *> cnp.PyArray_DATA(self._slot_seed)
        c.game_seed = <uint64_t *> cnp.PyArray_DATA(self.game_seed)
        c.final_seed = <uint64_t *> cnp.PyArray_DATA(self.final_seed)
        c.game_index = <long long *> cnp.PyArray_DATA(self.game_index)
        c.learner = <int *> cnp.PyArray_DATA(self.learner_seat)
        c.final_learner = <int *> cnp.PyArray_DATA(self.final_learner_seat)
        c.last_mover = <int *> cnp.PyArray_DATA(self._last_mover)
        c.np = NP
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
        c.illegal = <unsigned char *> cnp.PyArray_DATA(self.illegal)
        c.skipped = <long long *> cnp.PyArray_DATA(self.skipped_deals)
        c.illegal_mode = IL_TERMINATE if illegal_action == "terminate" else IL_RAISE
        c.illegal_reward = illegal_reward
        c.short_play = short_deals == "play"
        c.obs_n = self.obs_size
        c.hot_bytes = SEATS_AT + NP * sizeof(TSSeat)
        c.far = <size_t> B * sizeof(TSState) > FAR_BYTES
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
        e.st.rec = &e.rec
        e._flush()  # a finished game's result, payments and returns, as the engine keeps them
        return self.game.from_json(e.to_json())

    cdef object _reset(self, object seed, object mask):
        """:meth:`Batch.reset` (``seed`` checked)."""
        cdef Py_ssize_t i
        cdef int p
        mask = check_mask(mask, self.n)
        if seed is not None:
            self._reseed(int(seed), mask)
        elif not self._seeded:
            self._reseed(int(np.random.SeedSequence().entropy) & MASK63, None)
        for i in range(self.n):
            if mask is None or mask[i]:
                _new_game(&self.c, i)
                _write(&self.c, i)
                for p in range(self.c.np):
                    self.c.rewards[self.c.np * i + p] = 0
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
        cdef int out[TS_N_ACTIONS]
        cdef int k, m
        if _over(&self.c.st[slot]) or self.c.status[slot] != LIVE:
            return [0] if self.c.status[slot] == SHORT else []
        m = ts_legal_list(&self.c.st[slot], out)
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

    def action_features(self, out=None):
        """Per-action features of every slot's seat to act: int8 ``(num_envs, num_actions, F)``
        (``F = game.action_spec.size``; rows of :func:`tusac_env.structure.action_features`, zero
        for illegal actions and finished games), written into ``out`` when given (a C-contiguous
        int8 array of that shape) and returned."""
        shape = (self.n, self.num_actions, self.c.feat_n)
        if out is None:
            out = np.empty(shape, np.int8)
        elif (not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.int8
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise ValueError(f"out must be a writable C-contiguous int8 array of shape {shape}")
        cdef Ctx *c = &self.c
        self._enter("action_features")
        try:
            c.feat_out = <signed char *> cnp.PyArray_DATA(out)
            with nogil:
                sg_pool_run(self.pool, _features_range, c, self.n, CHUNK)
        finally:
            self._exit()
        return out

    cdef object _sample(self, object rng, object out):
        """The body of :meth:`sample` (its doc: :mod:`setgames.batch._guard`)."""
        cdef Py_ssize_t i, n = self.n
        cdef uint64_t x
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
                x = c.legal[i]
                if x == 0 or c.status[i] != LIVE:
                    o[i] = 0
                    continue
                o[i] = _nth_bit(x, sg_lemire(sg_bitgen_next32, bg, popcount64(x)))
        return out
