"""A game record as one self-contained HTML file that steps through the game
(``setgames replay FILE --html OUT``): the table before every move with that
move outlined, the move in words, and the final table; buttons, a slider and
the arrow keys step; no network, no script from elsewhere."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from setgames import registry
from setgames.checks import printable
from setgames.draw.picture import draw_state
from setgames.draw.svg import esc
from setgames.game import Game
from setgames.records import replay

__all__ = ["replay_frames", "replay_html"]


def replay_frames(rec: dict[str, Any], seat: int | None = None,
                  game_factory: Callable[..., Game] | None = None) -> list[tuple[str, str]]:
    """``(caption, svg)`` per step of a record (checked by replaying it): the
    table before each action, that action outlined, then the final table."""
    frames: list[tuple[str, str]] = []
    seats = [printable(x) for x in rec.get("seats") or []]

    def on_step(game: Game, state: Any, i: int, action: int) -> None:
        mover = game.current_seat(state)
        who = f"player_{mover}" + (f" ({seats[mover]})" if 0 <= mover < len(seats) else "")
        caption = f"move {i + 1} of {len(rec['actions'])}: {who} plays {game.action_to_str(action)}"
        frames.append((caption, draw_state(game, state, seat, [action]).svg))

    result = replay(rec, game_factory, on_step)
    end = ", ".join(f"player_{s} {r:+g}" for s, r in enumerate(result.returns))
    frames.append((f"the end: {end}", draw_state(result.game, result.state, seat).svg))
    return frames


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: DejaVu Sans, Verdana, sans-serif; background: #0c2a16; color: #eee; margin: 16px; }}
#bar {{ display: flex; gap: 8px; align-items: center; margin: 8px 0; }}
button {{ font-size: 15px; padding: 4px 12px; }}
#caption {{ font-size: 16px; margin: 6px 0; color: #ffd54a; }}
#frame svg {{ width: 100%; max-width: 1200px; height: auto; }}
input[type=range] {{ flex: 1; }}
</style></head><body>
<h2>{title}</h2><p>{subtitle}</p>
<div id="bar"><button id="first">&#xAB; first</button><button id="prev">&#x25C0; back</button>
<button id="play">play</button><button id="next">next &#x25B6;</button><button id="last">last &#xBB;</button>
<input id="slider" type="range" min="0" max="{last}" value="0"><span id="count"></span></div>
<div id="caption"></div><div id="frame"></div>
<script>
const FRAMES = {frames};
let at = 0, timer = null;
function show(i) {{
  at = Math.max(0, Math.min(FRAMES.length - 1, i));
  document.getElementById("frame").innerHTML = FRAMES[at][1];
  document.getElementById("caption").textContent = FRAMES[at][0];
  document.getElementById("slider").value = at;
  // Counted in moves, as the caption is: the last frame is the end, after the last move.
  document.getElementById("count").textContent =
    at < FRAMES.length - 1 ? "move " + (at + 1) + " / " + (FRAMES.length - 1) : "the end";
}}
function stop() {{
  clearInterval(timer); timer = null; document.getElementById("play").textContent = "play";
}}
document.getElementById("first").onclick = () => {{ stop(); show(0); }};
document.getElementById("prev").onclick = () => {{ stop(); show(at - 1); }};
document.getElementById("next").onclick = () => {{ stop(); show(at + 1); }};
document.getElementById("last").onclick = () => {{ stop(); show(FRAMES.length - 1); }};
document.getElementById("slider").oninput = (e) => {{ stop(); show(+e.target.value); }};
document.getElementById("play").onclick = () => {{
  if (timer) {{ stop(); return; }}
  document.getElementById("play").textContent = "pause";
  timer = setInterval(() => {{ if (at >= FRAMES.length - 1) stop(); else show(at + 1); }}, 700);
}};
document.addEventListener("keydown", (e) => {{
  if (e.key === "ArrowRight") {{ stop(); show(at + 1); }}
  if (e.key === "ArrowLeft") {{ stop(); show(at - 1); }}
}});
show(0);
</script></body></html>
"""


def replay_html(rec: dict[str, Any], seat: int | None = None,
                game_factory: Callable[..., Game] | None = None) -> str:
    """The record as a self-contained HTML page (see the module docstring)."""
    frames = replay_frames(rec, seat, game_factory)
    view = "all cards" if seat is None else f"view of player_{seat}"
    title = f"{registry.game_title(rec['game'])}: {len(rec['actions'])} moves ({view})"
    subtitle = f"game {rec['game']} version {rec['version']}, seed {rec['seed']}"
    # No "<" at all inside the script: "</script" would end it and "<!--<script" would make the
    # parser swallow the rest of the page; JSON's \u003c is the same character to the script.
    data = json.dumps(frames).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return _PAGE.format(title=esc(title), subtitle=esc(subtitle), last=len(frames) - 1, frames=data)
