"""What Tet Hsi offers the tools (listed by :mod:`setgames.registry`)."""

from setgames.registry import GameInfo

# The documentation's picture (docs/img/tethsi.svg): config, deal seed, moves played by greedy bots.
DOCS_PICTURE = ({}, 7, 8)

DESCRIPTOR = GameInfo(
    name="tethsi",
    title="Tet Hsi",
    rules="tethsi_env.rules:TetHsiGame",
    env="tethsi_env.env:raw_env",
    greedy="tethsi_env.greedy:GreedyTetHsiBot",
    search_hooks="tethsi_env.greedy:ISMCTS_HOOKS",
    card_style="decktet",
    drawing="tethsi_env.draw:draw",
    ppo_weights="tethsi_env:weights",
    ladder="tethsi_env.levels:LADDER",
    docs_picture="tethsi_env.descriptor:DOCS_PICTURE",
    greedy_features="tethsi_env.greedy:greedy_features",
    greedy_features_engine="tethsi_env.greedy:greedy_features_engine",
    greedy_feature_names="tethsi_env.greedy:FEATURES",
    greedy_feature_moves="tethsi_env.greedy:FEATURE_MOVES",
)
