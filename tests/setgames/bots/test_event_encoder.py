"""The numpy event encoder the ``dmc`` bot runs (``setgames.bots.event_encoder``), against
encodings worked by hand from its definition."""

from __future__ import annotations

import numpy as np
import pytest

from setgames.bots.event_encoder import EventAttentionNp, EventLayout, event_layout
from setgames.registry import make_game


def _encoder(layout: EventLayout, embed: int = 3, heads: int = 2, seed: int = 0) -> EventAttentionNp:
    r = np.random.default_rng(seed)
    names = ("kind", "seat", "card", "arg")
    arrays = {name: r.normal(size=(n, embed)) for name, n in zip(names, layout.sizes, strict=True)}
    arrays.update(place=r.normal(size=(layout.length, embed)), w=r.normal(size=(embed, embed)),
                  b=r.normal(size=embed), queries=r.normal(size=(heads, embed)))
    return EventAttentionNp(arrays, layout)


# An observation of 2 entries, 3 events of 4 columns, then 1 entry: 2 + 12 + 1 = 15.
LAYOUT = EventLayout(start=2, length=3, lows=(0, 0, 0, 0), sizes=(4, 3, 6, 5), obs_size=15)


def _obs(events: list[tuple[int, int, int, int]]) -> np.ndarray:
    obs = np.zeros(15, np.int8)
    obs[:2] = [7, -1]
    obs[14] = len(events)
    for i, ev in enumerate(events):  # newest first, as the history block holds them
        for col, v in enumerate(ev):
            obs[2 + col * 3 + i] = v
    return obs


def test_the_cards_part_passes_through_and_no_events_pool_to_zeros():
    enc = _encoder(LAYOUT)
    out = enc.encode(_obs([]))
    assert out.shape == (enc.out_size,) == (3 + 2 * 3,)
    assert out[:3].tolist() == [7, -1, 0]
    assert not out[3:].any()


def test_one_event_takes_the_whole_weight_of_every_query():
    enc = _encoder(LAYOUT)
    a = enc.arrays
    kind, seat, card, arg = 2, 1, 5, 3
    h = np.maximum((a["kind"][kind] + a["seat"][seat] + a["card"][card] + a["arg"][arg] + a["place"][0])
                   @ a["w"] + a["b"], 0)
    out = enc.encode(_obs([(kind, seat, card, arg)]))
    np.testing.assert_allclose(out[3:], np.concatenate([h, h]), rtol=1e-5)
    assert out[2] == 1  # event_count passes through


def test_two_events_are_weighted_by_the_softmax_of_their_scores():
    enc = _encoder(LAYOUT, seed=3)
    a = enc.arrays
    events = [(1, 2, 0, 4), (3, 0, 2, 1)]
    hs = [np.maximum((a["kind"][k] + a["seat"][s] + a["card"][c] + a["arg"][g] + a["place"][i]) @ a["w"]
                     + a["b"], 0) for i, (k, s, c, g) in enumerate(events)]
    want = []
    for q in a["queries"]:
        scores = np.array([h @ q for h in hs]) / np.sqrt(3)
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        want.append(weights[0] * hs[0] + weights[1] * hs[1])
    np.testing.assert_allclose(enc.encode(_obs(events))[3:], np.concatenate(want), rtol=1e-4, atol=1e-6)


def test_order_counts():
    # The same two events in the other order: the places differ, so (generically) the encoding does.
    enc = _encoder(LAYOUT, seed=4)
    one = enc.encode(_obs([(1, 2, 0, 4), (3, 0, 2, 1)]))
    other = enc.encode(_obs([(3, 0, 2, 1), (1, 2, 0, 4)]))
    assert not np.allclose(one[3:], other[3:])


def test_a_batch_encodes_as_its_rows_one_by_one():
    enc = _encoder(LAYOUT, seed=5)
    rows = np.stack([_obs([]), _obs([(1, 1, 1, 1)]), _obs([(2, 0, 3, 2), (1, 2, 5, 0), (3, 1, 4, 4)])])
    np.testing.assert_allclose(enc.encode(rows), np.stack([enc.encode(r) for r in rows]), rtol=1e-6)


@pytest.mark.parametrize("name, config", [("tethsi", {}), ("bharg", {"num_players": 3}),
                                          ("tusac", {"num_players": 2})])
def test_the_layout_is_the_history_modes_columns(name, config):
    game = make_game(name, obs="history", **config)
    lay = event_layout(game.obs_spec)
    sl = game.obs_spec.slices
    assert (lay.start, lay.stop) == (sl["event_kind"].start, sl["event_arg"].stop)
    assert lay.rest_size == game.obs_spec.size - 4 * lay.length
    with pytest.raises(ValueError, match="obs='history'"):
        event_layout(make_game(name, **config).obs_spec)


def test_arrays_of_the_wrong_shape_are_refused():
    enc = _encoder(LAYOUT)
    arrays = dict(enc.arrays, card=np.zeros((5, 3)))
    with pytest.raises(ValueError, match="card has shape"):
        EventAttentionNp(arrays, LAYOUT)
