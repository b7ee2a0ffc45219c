# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Determinized search in C: flat Monte Carlo over re-deals with play-outs by the game's policy.

For the seat to act at the root, each iteration re-deals every card that
seat has not seen (the C twin of ``game.determinize``), then, on that one
deal, plays every legal action followed by the play-out policy (the game's
compiled greedy bot) for every seat to the game's end, and adds what the
root seat earned from the root on. Every action of an iteration sees the same
deal and the same random numbers for the play-out's ties (common random
numbers: the actions' differences are far less noisy than their values). The
move is the action with the highest mean; exact ties go to the policy's own
move, then to the lowest id.

Why this and not a tree (ISMCTS): against greedy it levels off within a few
milliseconds a decision (60% at 4,096 re-deals, 8 ms, in one game), and at equal
time per move it is level with the Python ISMCTS or ahead of it. The search is a one-step improvement of its play-out policy; the
figures and the curves are in ``docs/guides/strength.md``.

A game may also weigh the re-deals by what the others did (``SgOps.accept``):
a re-deal it refuses is drawn again, up to ``SG_MAX_DRAWS`` times (then the
last is kept), which samples the deals in proportion to how likely they made
the observed moves (rejection sampling), when the game's test is a draw with
that probability.

Nothing here names a game: a game passes its engine as an :c:type:`SgOps`
table (``<game>_env/_search.pyx``). Runs without the GIL; one call uses one
thread, so many searches run in parallel over a batch's pool.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np

from setgames.batch._rng cimport sg_pcg64, sg_pcg64_next64, sg_pcg64_seed
from setgames.checks import check_seed
from setgames.search.budget import check_budget, check_z

cdef extern from *:
    """
    #if defined(_WIN32)
    #include <windows.h>
    static double sg_clock_ms(void) {
        LARGE_INTEGER f, c;
        QueryPerformanceFrequency(&f);
        QueryPerformanceCounter(&c);
        return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
    }
    #else
    #include <time.h>
    static double sg_clock_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
    }
    #endif
    """
    double sg_clock_ms() noexcept nogil


cdef double _play_out(const SgOps *ops, void *work, const void *cfg, int seat, int action,
                      sg_pcg64 *rng) noexcept nogil:
    """What ``seat`` earns from ``work``'s position on when it plays ``action`` and the
    policy then plays every seat to the end (``work`` is played on, not restored)."""
    cdef double gain[SG_MAX_SEATS]
    cdef int p
    for p in range(SG_MAX_SEATS):
        gain[p] = 0
    ops.apply(work, cfg, action, gain)
    while ops.seat(work) >= 0:
        ops.apply(work, cfg, ops.policy(work, cfg, rng), gain)
    return gain[seat]


cdef int sg_pimc(const SgOps *ops, const void *root, const void *cfg, const SgBudget *budget,
                 sg_pcg64 *rng, int *legal, double *values, SgResult *res) noexcept nogil:
    """Search the position ``root`` for its seat to act; returns the chosen action (-1 when
    the game is over, -2 when out of memory).

    Writes the legal actions (ascending) into ``legal``, the mean return of each into
    ``values`` (``values[k]`` for ``legal[k]``), and the count of re-deals and the time
    into ``res``. ``rng`` (the re-deals and the play-outs' ties) is advanced. ``root`` is
    not changed and only its seat's information is used: every iteration starts from a
    re-deal of it.
    """
    cdef int seat = ops.seat(root)
    cdef int m, k, best, prior
    cdef long long it = 0
    cdef double t0 = sg_clock_ms(), now
    cdef double v, top, d, var
    cdef int kp, draws
    cdef double *diff
    cdef double *sumsq
    cdef char *buf
    cdef void *deal
    cdef void *work
    cdef sg_pcg64 roll
    cdef sg_pcg64 tie
    res.iters = 0
    res.n = 0
    res.action = -1
    res.elapsed_ms = 0
    if seat < 0:
        return -1
    buf = <char *> malloc(2 * ops.size + 2 * SG_MAX_ACTIONS * sizeof(double))
    if buf == NULL:
        return -2
    diff = <double *> (buf + 2 * ops.size)
    sumsq = diff + SG_MAX_ACTIONS
    deal = buf
    work = buf + ops.size
    memcpy(work, root, ops.size)
    m = ops.legal(work, cfg, legal)
    res.n = m
    for k in range(m):
        values[k] = 0
        sumsq[k] = 0
    # the policy's own move in a re-deal of the root (it reads only its seat's cards)
    memcpy(work, root, ops.size)
    tie = rng[0]
    ops.redeal(work, cfg, seat, &tie)
    prior = ops.policy(work, cfg, &tie)
    sg_pcg64_next64(rng)
    kp = 0
    for k in range(m):
        if legal[k] == prior:
            kp = k
    if m > 1:
        while True:
            memcpy(deal, root, ops.size)
            ops.redeal(deal, cfg, seat, rng)
            if ops.accept != NULL:
                draws = 1
                while draws < SG_MAX_DRAWS and not ops.accept(deal, cfg, draws - 1, rng):
                    memcpy(deal, root, ops.size)
                    ops.redeal(deal, cfg, seat, rng)
                    draws += 1
            roll = rng[0]
            sg_pcg64_next64(rng)   # the next deal's numbers differ from this one's play-outs'
            for k in range(m):
                memcpy(work, deal, ops.size)
                tie = roll
                now = _play_out(ops, work, cfg, seat, legal[k], &tie)
                values[k] += now
                diff[k] = now
            for k in range(m):
                d = diff[k] - diff[kp]
                sumsq[k] += d * d
            it += 1
            if budget.iters > 0 and it >= budget.iters:
                break
            if budget.ms > 0 and it >= budget.min_iters:
                if sg_clock_ms() - t0 >= budget.ms:
                    break
            if budget.iters <= 0 and budget.ms <= 0:
                break
    free(buf)
    # The policy's move unless another beats it on these deals by more than ``z`` standard
    # errors of the paired difference: with few re-deals, the largest of many noisy means is
    # mostly noise, and the policy is a good move more often than a random one.
    best = kp
    top = -1e300
    for k in range(m):
        if it > 0:
            values[k] /= it
    for k in range(m):
        if k == kp or it == 0:
            continue
        d = values[k] - values[kp]
        var = sumsq[k] / it - d * d
        if d > 0 and d * d * it > budget.z * budget.z * (var if var > 0 else 0) and values[k] > top:
            top = values[k]
            best = k
    res.iters = it
    res.action = legal[best]
    res.elapsed_ms = sg_clock_ms() - t0
    return res.action


cdef object sg_search_call(const SgOps *ops, const void *root, const void *cfg, object iters, object ms,
                           object seed, object z=1.0):
    """The Python face of one search, for a game's ``_search.search``: checks the budget,
    runs :c:func:`sg_pimc` without the GIL and returns ``(action, legal, values, iters,
    elapsed_ms)`` (``legal`` int64 and ``values`` float64 ndarrays, aligned)."""
    cdef SgBudget b
    cdef SgResult res
    cdef sg_pcg64 rng
    cdef int legal[SG_MAX_ACTIONS]
    cdef double values[SG_MAX_ACTIONS]
    cdef int action
    cdef uint64_t s
    b.iters, b.ms = check_budget(iters, ms)
    b.min_iters = 1
    b.z = check_z(z)
    s = check_seed(seed)
    sg_pcg64_seed(&rng, s)
    with nogil:
        action = sg_pimc(ops, root, cfg, &b, &rng, legal, values, &res)
    if action == -1:
        raise ValueError("search(): the game is over")
    if action == -2:
        raise MemoryError("search(): no memory for two states")
    n = res.n
    legal_arr = np.array([legal[k] for k in range(n)], dtype=np.int64)
    values_arr = np.array([values[k] for k in range(n)], dtype=np.float64)
    return action, legal_arr, values_arr, res.iters, res.elapsed_ms
