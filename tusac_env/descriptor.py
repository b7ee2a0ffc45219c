"""What Tu Sac offers the tools (listed by :mod:`setgames.registry`)."""

from setgames.registry import GameInfo

# The documentation's picture (docs/img/tusac.svg): config, deal seed, moves played by greedy bots.
DOCS_PICTURE = ({"num_players": 4}, 1, 6)

DESCRIPTOR = GameInfo(
    name="tusac",
    title="Tu Sac",
    rules="tusac_env.rules:TuSacGame",
    env="tusac_env.env:raw_env",
    greedy="tusac_env.greedy:GreedyTuSacBot",
    search_hooks="tusac_env.greedy:ISMCTS_HOOKS",
    table_tools="tusac_env.table:TABLE_TOOLS",
    card_style="chess",
    drawing="tusac_env.draw:draw",
    ppo_weights="tusac_env:weights",
    ladder="tusac_env.levels:LADDER",
    ppo_note="plays greedy's moves: greedy, not learned",
    docs_picture="tusac_env.descriptor:DOCS_PICTURE",
)
