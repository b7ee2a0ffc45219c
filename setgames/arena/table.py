"""The arena's results as a plain-text table a newcomer can read."""

from __future__ import annotations

from typing import Any

from setgames.registry import game_title

__all__ = ["format_results"]


def _pct(x: float | None) -> str:
    return "   -" if x is None else f"{100 * x:3.0f}%"


def _ms(x: float | None) -> str:
    return "       -" if x is None else f"{x:8.2f}"


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
        names = max([len(r["bot"]) for r in arena["ratings"]] + [24])
        head = f"rating (Elo scale, {anchor} = 0)"
        lines.append(f"  {head:<{names + 4}}   95% CI           ms per move: mean  median     p99  forfeits")
        t = timing.get(name, {})
        forfeits = arena.get("forfeits", {})
        for rank, r in enumerate(arena["ratings"], 1):
            tt = t.get(r["bot"])
            per_move = ""
            if tt and tt["moves"]:
                per_move = (f"{1000 * tt['seconds'] / tt['moves']:8.2f} {_ms(tt.get('median_ms'))} "
                            f"{_ms(tt.get('p99_ms'))}")
            lost = sum(forfeits.get(r["bot"], {}).values())
            lines.append(f"  {rank}. {r['bot']:<{names}} {r['elo']:+7.0f}   "
                         f"[{r['low']:+6.0f}, {r['high']:+6.0f}]  {per_move:<25}  {lost:8d}")
        for bot, reasons in forfeits.items():
            why = ", ".join(f"{reason} {count}" for reason, count in reasons.items())
            lines.append(f"  {bot} forfeited {sum(reasons.values())} game(s): {why}")
        for bot, count in arena.get("flagged", {}).items():
            lines.append(f"  {bot} went over its time {count} time(s) (flagged only)")
        lines.append("")
    lines.append("How to read this: each pairing plays the same deals with the seats swapped (duplicate "
                 "deals),")
    lines.append("so luck cancels. A score = A's wins + half the draws, as a share of the games. The 95% "
                 "CI is")
    lines.append("taken over deals; when it excludes 50% the verdict names the stronger bot. Rewards are "
                 "mean")
    lines.append("game returns per seat. Ratings: Bradley-Terry fit of all pairings, on the Elo scale "
                 "(+100 ~ 64% wins).")
    lines.append("A bot that crashes, hangs, runs over its time or plays an illegal move forfeits that "
                 "game (a loss);")
    lines.append("results.json names each forfeit and its reason. Times: per decision, median and 99th "
                 "percentile.")
    if results.get("interrupted"):
        by = "SIGTERM" if results.get("stopped_by") == "SIGTERM" else "Ctrl-C"
        lines.append(f"Interrupted: these figures cover only the games finished before {by}.")
    if results.get("lost_games"):
        n = len(results["lost_games"])
        lines.append(f"Lost: {n} game(s) whose worker died are not in these figures.")
    return "\n".join(lines)
