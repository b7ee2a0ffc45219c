# cython: language_level=3
"""The ``history`` mode's record of events in C, the compiled twin of :mod:`setgames.history`.

A game keeps, per game it steps, ``sg_history_words(cap, num_seats)`` words: word 0 counts the
rows pushed so far, word 1 is where the newest row is, and the rest are byte columns of ``cap``
entries each (kind, card, arg, then the seat as each observer sees it, written once at the push).
A row goes in just before the newest one, wrapping at the columns' start, so the last ``cap``
rows newest first are each column from the newest row to its end, then from its start: the
observation writer copies two runs a column (``memcpy``) and never unpacks a row, which is what
made the block cheap (a ring of packed words, unpacked row by row and seat by seat, cost two to
three times the cards step). Positions a game has not reached are zero: the padding.
``cimport`` this file (inline, compiled into each game's engine); the Python module is the
reference the compiled paths are held to.
"""

from libc.string cimport memcpy, memset


cdef inline unsigned int sg_event(int kind, int seat, int card, int arg) noexcept nogil:
    """One row packed in 32 bits: kind (>= 1), seat + 1 (0: no seat), card + 1 (0: none), arg (int8)."""
    return ((<unsigned int> kind & 0xFF) | ((<unsigned int> (seat + 1) & 0xFF) << 8)
            | ((<unsigned int> (card + 1) & 0xFF) << 16) | ((<unsigned int> arg & 0xFF) << 24))


# The byte columns after the two header words, in units of cap bytes.
cdef enum:
    _SG_KIND = 0
    _SG_CARD = 1
    _SG_ARG = 2
    _SG_SEAT = 3     # then one column per observer


cdef inline size_t sg_history_words(int cap, int num_seats) noexcept nogil:
    """Words one game's record takes (``cap`` rows kept, ``num_seats`` seats)."""
    return 2 + (<size_t> cap * (_SG_SEAT + num_seats) + 3) // 4


cdef inline void sg_history_reset(unsigned int *h, int cap, int num_seats) noexcept nogil:
    """Empty the record ``h`` (a new game): no rows, every column zero."""
    h[0] = 0
    h[1] = 0       # the first row goes at cap - 1, the rows after it are zeros until they wrap
    memset(h + 2, 0, <size_t> cap * (_SG_SEAT + num_seats))


cdef inline void sg_history_add(unsigned int *h, int cap, int num_seats, unsigned int row) noexcept nogil:
    """Append a packed row (``sg_event``) to the record ``h``; past ``cap`` rows the oldest scroll off."""
    cdef unsigned char *b = <unsigned char *> (h + 2)
    cdef int o, t, s = (row >> 8) & 0xFF
    cdef unsigned int p = (h[1] if h[1] else <unsigned int> cap) - 1   # just before the newest
    b[_SG_KIND * cap + p] = row & 0xFF
    b[_SG_CARD * cap + p] = (row >> 16) & 0xFF
    b[_SG_ARG * cap + p] = row >> 24
    for o in range(num_seats):  # seat + 1 seen from o: 0 stays 0, the seats turn so that o is 1
        t = s - 1 - o           # (no division: a step pushes a row or two per seat)
        if t < 0:
            t += num_seats
        b[(_SG_SEAT + o) * cap + p] = 0 if s == 0 else <unsigned char> (t + 1)
    h[1] = p
    h[0] += 1


cdef inline unsigned int sg_history_row(const unsigned int *h, int cap, int i) noexcept nogil:
    """The packed row (``sg_event``, absolute seat) ``i`` rows before the newest (0: the newest;
    ``i`` below the rows kept, ``min(h[0], cap)``)."""
    cdef const unsigned char *b = <const unsigned char *> (h + 2)
    cdef size_t p = (h[1] + i) % <unsigned int> cap
    # seen from seat 0 a seat's code is seat + 1: the packed form's
    return (b[_SG_KIND * cap + p] | (<unsigned int> b[_SG_SEAT * cap + p] << 8)
            | (<unsigned int> b[_SG_CARD * cap + p] << 16) | (<unsigned int> b[_SG_ARG * cap + p] << 24))


cdef inline void _sg_run(signed char *out, const unsigned char *col, int cap, size_t p) noexcept nogil:
    # a column from the newest row on: its end, then its start (zeros until the ring wraps)
    memcpy(out, col + p, cap - p)
    memcpy(out + cap - p, col, p)


cdef inline void sg_history_block(const unsigned int *h, int cap, int observer, signed char *out) noexcept nogil:
    """The block of record ``h`` seen from ``observer`` into ``out`` (``4 * cap + 1`` entries): the
    kinds, seats, cards and args of the last ``cap`` rows newest first, zero padded, then the
    count capped at 127 (:func:`setgames.history.history_block`)."""
    cdef const unsigned char *b = <const unsigned char *> (h + 2)
    cdef size_t p = h[1]
    _sg_run(out, b + _SG_KIND * cap, cap, p)
    _sg_run(out + cap, b + (_SG_SEAT + observer) * cap, cap, p)
    _sg_run(out + 2 * cap, b + _SG_CARD * cap, cap, p)
    _sg_run(out + 3 * cap, b + _SG_ARG * cap, cap, p)
    out[4 * cap] = <signed char> (h[0] if h[0] < 127 else 127)

