"""The expert of expert iteration: what the one-step determinized search makes of a position.

The batch's ``greedy_returns(redeals=k)`` gives, for every legal move, its mean return over
``k`` re-deals of the cards the seat has not seen, each move then played out by greedy for
every seat: the root values of the compiled search. This module turns those values into the
targets :func:`setgames.learn.ppo.train` learns from:

- the search's move (:func:`search_moves`) or its soft form (:func:`search_policy`), anchored
  on a base move it keeps unless another beats it by a margin: greedy's in the first
  generation, the previous generation's policy's after (:func:`anchor_moves`), so each
  generation's expert starts from what the last apprentice learned;
- the value of the position under the search (:func:`search_value`): the value of the move
  the search makes, a target for the critic with far less noise than one game's return.

Pure numpy; no torch, so the rules of the targets are testable on their own.
"""

from __future__ import annotations

import numpy as np

__all__ = ["anchor_moves", "search_moves", "search_policy", "search_value"]


def search_moves(values: np.ndarray, legal: np.ndarray, anchor: np.ndarray, margin: float) -> np.ndarray:
    """The move a one-step search on play-out ``values`` (rows of positions) makes: the legal
    action of the highest value (the first on a tie), or the ``anchor`` move (greedy's, or an
    earlier generation's) unless that value beats the anchor's by more than ``margin`` (ties,
    and noise within the margin, keep the base policy's move, as the C search does).

    >>> v = np.array([[0.0, 0.5, 0.2], [0.3, 0.3, 0.0]], np.float32)
    >>> search_moves(v, np.ones((2, 3), bool), np.array([2, 1]), 0.1).tolist()
    [1, 1]
    >>> search_moves(v, np.ones((2, 3), bool), np.array([2, 1]), 0.4).tolist()
    [2, 1]
    """
    masked = np.where(legal, values, -np.inf)
    best = masked.argmax(-1)
    rows = np.arange(len(best))
    return np.where(masked[rows, best] > masked[rows, anchor] + margin, best, anchor).astype(np.int64)


def search_policy(values: np.ndarray, legal: np.ndarray, anchor: np.ndarray, margin: float,
                  temp: float) -> np.ndarray:
    """The soft form of :func:`search_moves`: per row, ``softmax((values + margin at the anchor
    move) / temp)`` over the legal actions (0 elsewhere), float32.

    >>> legal = np.array([[True, True, False]])
    >>> search_policy(np.array([[0.0, 0.1, 0.0]]), legal, np.array([0]), 0.1, 0.05).round(3).tolist()
    [[0.5, 0.5, 0.0]]
    """
    z = np.where(legal, values, -np.inf) / temp
    z[np.arange(len(z)), anchor] += margin / temp
    z -= z.max(-1, keepdims=True)
    e = np.where(legal, np.exp(z), 0.0)
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


def search_value(values: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """The value of each position to the seat under the search: the play-out value of the
    move it makes (``moves``, from :func:`search_moves`), float32.

    >>> search_value(np.array([[0.1, 0.7], [0.4, -0.2]]), np.array([1, 0])).tolist()
    [0.699999988079071, 0.4000000059604645]
    """
    return values[np.arange(len(moves)), moves].astype(np.float32)


def anchor_moves(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """A policy's own move in each row (its legal argmax), the anchor of the next generation's
    search: the move the search keeps unless the play-outs say another is clearly better.

    >>> anchor_moves(np.array([[3.0, 1.0, 2.0]]), np.array([[False, True, True]])).tolist()
    [2]
    """
    return np.where(legal, logits, -np.inf).argmax(-1).astype(np.int64)
