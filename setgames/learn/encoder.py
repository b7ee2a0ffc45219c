"""The attention encoder over the ``history`` mode's event rows, in torch (``setgames train
--algo dmc --net attention``).

What it computes is described with its numpy twin, :mod:`setgames.bots.event_encoder`, which
the ``dmc`` bot runs; :meth:`EventAttention.numpy` copies the weights into one.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from setgames.bots.event_encoder import EventAttentionNp, EventLayout

__all__ = ["EventAttention"]


class EventAttention(nn.Module):
    """Events as sums of learned vectors (one per column value and per place), a ReLU layer,
    then ``heads`` learned queries each pooling the events present by a softmax.

    Args:
        layout: where the event columns sit in the observation
            (:func:`setgames.bots.event_encoder.event_layout`).
        embed: width of an event's vector.
        heads: pooling queries (the encoded observation gains ``heads x embed`` entries).
    """

    def __init__(self, layout: EventLayout, embed: int = 32, heads: int = 4):
        super().__init__()
        self.layout = layout
        self.embed, self.heads = embed, heads
        # One table: the four columns' values, then the places (an event sums five of its rows).
        self.sizes = (*layout.sizes, layout.length)
        table = torch.randn(sum(self.sizes), embed) * 0.5
        table[-layout.length:] *= 0.2
        self.table = nn.Parameter(table)
        self.layer = nn.Linear(embed, embed)
        self.queries = nn.Parameter(torch.randn(heads, embed) * 0.1)
        self.register_buffer("lows", torch.tensor(layout.lows))
        self.register_buffer("highs", torch.tensor([n - 1 for n in layout.sizes]))
        self.register_buffer("offsets", torch.tensor([sum(self.sizes[:i]) for i in range(5)]))

    @property
    def out_size(self) -> int:
        """Entries of an encoded observation (the passed-through ones, then the pooled vectors)."""
        return self.layout.rest_size + self.heads * self.embed

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """The encoded observations ``(N, out_size)`` of ``obs`` ``(N, obs_size)`` (floats of whole numbers).

        Only the events present are embedded (packed: a position holds a fifth of ``L`` on
        average), then their pooling weights spread back per position."""
        lay, n = self.layout, len(obs)
        ev = obs[:, lay.start:lay.stop].round().long().view(n, 4, lay.length)
        where, place = (ev[:, 0] > 0).nonzero(as_tuple=True)             # the events present, (M,)
        idx = torch.minimum(torch.clamp(ev[where, :, place] - self.lows, min=0), self.highs)
        rows = torch.cat([idx, place[:, None]], dim=1) + self.offsets      # (M, 5) rows of the table
        # (five lookups of the one table, summed: faster to train on a CPU than one bag of five)
        h = torch.relu(self.layer(sum(nn.functional.embedding(rows[:, i], self.table) for i in range(5))))
        scores = h @ self.queries.T / math.sqrt(self.embed)              # (M, H)
        # a softmax per position over its events: the largest score per position first
        top = torch.full((n, self.heads), -1e30, dtype=scores.dtype, device=obs.device)
        top = top.scatter_reduce(0, where[:, None].expand_as(scores), scores, "amax")
        w = torch.exp(scores - top[where])
        total = torch.zeros_like(top).index_add(0, where, w)
        alpha = w / total[where]
        # back to one row per position (up to the longest history here) for one batched product
        longest = int(place.max()) + 1 if len(place) else 1
        h_rows = h.new_zeros(n, longest, self.embed).index_put((where, place), h)
        a_rows = alpha.new_zeros(n, longest, self.heads).index_put((where, place), alpha)
        pooled = torch.bmm(a_rows.transpose(1, 2), h_rows).reshape(n, -1)
        return torch.cat([obs[:, :lay.start], obs[:, lay.stop:], pooled], dim=1)

    def numpy(self) -> EventAttentionNp:
        """The encoder with its weights copied, in numpy (what the ``dmc`` bot runs)."""
        def arr(t: torch.Tensor):
            return t.detach().cpu().numpy().copy()

        table = arr(self.table)
        at = [sum(self.sizes[:i]) for i in range(6)]
        names = ("kind", "seat", "card", "arg", "place")
        arrays = {name: table[at[i]:at[i + 1]] for i, name in enumerate(names)}
        arrays.update(w=arr(self.layer.weight).T.copy(), b=arr(self.layer.bias), queries=arr(self.queries))
        return EventAttentionNp(arrays, self.layout)
