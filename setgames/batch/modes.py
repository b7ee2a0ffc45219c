"""The one vocabulary of autoreset modes, shared by the batch and its views.

:func:`autoreset_mode` reads every spelling a user may bring: Gymnasium's
``AutoresetMode`` members (``AutoresetMode.SAME_STEP``), their values
(``"SameStep"``), their names (``"SAME_STEP"``) and the batch's own words
(``"same_step"``), in any case; it returns the batch's word. The default of
:func:`setgames.batch.make_batch`, ``BatchVectorEnv``, ``BatchVecEnv`` and
``gymnasium.make_vec`` is :data:`DEFAULT_AUTORESET`, ``"same_step"``: the
batch deals a finished slot's next game inside the step that ended it, so no
step is spent on a deal and the last observation travels in the infos
(``final_obs``), as Gymnasium 1.x's ``SAME_STEP`` reports it. (Gymnasium's own
``SyncVectorEnv`` defaults to ``NEXT_STEP``; SB3's ``VecEnv`` contract is
same-step only.)

>>> from gymnasium.vector import AutoresetMode
>>> [autoreset_mode(m) for m in (AutoresetMode.NEXT_STEP, "SameStep", "DISABLED", "next_step")]
['next_step', 'same_step', 'disabled', 'next_step']
>>> gym_autoreset_mode("same_step") is AutoresetMode.SAME_STEP
True
"""

from __future__ import annotations

from enum import Enum
from typing import Any

__all__ = ["AUTORESET_MODES", "DEFAULT_AUTORESET", "autoreset_mode", "gym_autoreset_mode"]

AUTORESET_MODES = ("same_step", "next_step", "disabled")
DEFAULT_AUTORESET = "same_step"

# Every accepted spelling, folded to lower case without "_", mapped to the batch's word.
_SPELLINGS = {m.replace("_", ""): m for m in AUTORESET_MODES}


def autoreset_mode(value: Any) -> str:
    """The batch's word (one of :data:`AUTORESET_MODES`) for any spelling of an autoreset mode.

    Raises:
        ValueError: ``value`` names no mode (one line, listing the spellings).
    """
    raw = value.value if isinstance(value, Enum) else value
    if isinstance(raw, str):
        word = _SPELLINGS.get(raw.lower().replace("_", ""))
        if word is not None:
            return word
    raise ValueError(f"autoreset mode {value!r} is not one of {AUTORESET_MODES} (or Gymnasium's "
                     f"AutoresetMode members, their values 'NextStep', 'SameStep', 'Disabled' or names)")


def gym_autoreset_mode(value: Any) -> Any:
    """Gymnasium's ``AutoresetMode`` member for any spelling (needs ``gymnasium``)."""
    from gymnasium.vector import AutoresetMode

    return {"same_step": AutoresetMode.SAME_STEP, "next_step": AutoresetMode.NEXT_STEP,
            "disabled": AutoresetMode.DISABLED}[autoreset_mode(value)]
