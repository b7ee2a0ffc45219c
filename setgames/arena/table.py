"""The arena's results as a plain-text table a newcomer can read."""

from __future__ import annotations

from typing import Any

from setgames.registry import game_title

__all__ = ["format_results"]


def _pct(x: float | None) -> str:
    return "   -" if x is None else f"{100 * x:3.0f}%"


def _verdict(row: dict[str, Any]) -> str:
    ci = row["score_a_ci"]
    if ci is None:
        return "no games"
    if ci[0] > 0.5:
        return f"{row['bot_a']} is stronger"
    if ci[1] < 0.5:
        return f"{row['bot_b']} is stronger"
    return "not clear yet: play more games"


def format_results(results: dict[str, Any]) -> str:
    """Per game: one line per pairing and a rating table; then how to read them."""
    lines: list[str] = []
    timing = results.get("timing", {}).get("per_game", {})
    for arena in results["arenas"]:
        name = arena["game"]
        title = game_title(name)
        per_deal = len(arena["seatings"])
        lines.append(f"== {title} ({name} v{arena['version']}, {arena['players']} players): "
                     f"{arena['deals_planned']} deals x {per_deal} seatings "
                     f"({'/'.join(arena['seatings'])}) per pairing ==")
        width = max([len(f"{p['bot_a']} vs {p['bot_b']}") for p in arena["pairings"]] + [10])
        lines.append(f"  {'A vs B':<{width}}  games  A wins  draws  B wins  A score  95% CI       "
                     f"A reward  B reward  verdict")
        for p in arena["pairings"]:
            ci = p["score_a_ci"]
            ci_text = "     -      " if ci is None else f"[{_pct(ci[0])},{_pct(ci[1])}]"
            ra = "-" if p["mean_reward_a"] is None else f"{p['mean_reward_a']:+.2f}"
            rb = "-" if p["mean_reward_b"] is None else f"{p['mean_reward_b']:+.2f}"
            lines.append(f"  {p['bot_a'] + ' vs ' + p['bot_b']:<{width}}  {p['games']:5d}  "
                         f"{p['wins_a']:6d}  {p['draws']:5d}  {p['wins_b']:6d}  {_pct(p['score_a']):>7}  "
                         f"{ci_text:<12} {ra:>8}  {rb:>8}  {_verdict(p)}")
        anchor = results["bots"][0]["label"]  # the fit anchors the first bot listed at 0
        lines.append(f"  rating (Elo scale, {anchor} = 0)   95% CI           time per move")
        t = timing.get(name, {})
        for rank, r in enumerate(arena["ratings"], 1):
            tt = t.get(r["bot"])
            per_move = (f"{1000 * tt['seconds'] / tt['moves']:8.2f} ms" if tt and tt["moves"] else "")
            lines.append(f"  {rank}. {r['bot']:<24} {r['elo']:+7.0f}   [{r['low']:+6.0f}, {r['high']:+6.0f}]"
                         f"  {per_move}")
        lines.append("")
    lines.append("How to read this: each pairing plays the same deals with the seats swapped (duplicate "
                 "deals),")
    lines.append("so luck cancels. A score = A's wins + half the draws, as a share of the games. The 95% "
                 "CI is")
    lines.append("taken over deals; when it excludes 50% the verdict names the stronger bot. Rewards are "
                 "mean")
    lines.append("game returns per seat. Ratings: Bradley-Terry fit of all pairings, on the Elo scale "
                 "(+100 ~ 64% wins).")
    if results.get("interrupted"):
        by = "SIGTERM" if results.get("stopped_by") == "SIGTERM" else "Ctrl-C"
        lines.append(f"Interrupted: these figures cover only the games finished before {by}.")
    if results.get("lost_games"):
        n = len(results["lost_games"])
        lines.append(f"Lost: {n} game(s) whose worker died are not in these figures.")
    return "\n".join(lines)
