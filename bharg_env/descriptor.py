"""What Bharg offers the tools (listed by :mod:`setgames.registry`)."""

from setgames.registry import GameInfo

# The documentation's picture (docs/img/bharg.svg): config, deal seed, moves played by greedy bots.
DOCS_PICTURE = ({"num_players": 2, "pawns": True}, 3, 5)

DESCRIPTOR = GameInfo(
    name="bharg",
    title="Bharg",
    rules="bharg_env.rules:BhargGame",
    env="bharg_env.env:raw_env",
    greedy="bharg_env.greedy:GreedyBhargBot",
    search_hooks="bharg_env.greedy:ISMCTS_HOOKS",
    card_style="decktet",
    drawing="bharg_env.draw:draw",
    table_tools="bharg_env.table:TABLE_TOOLS",
    ppo_weights="bharg_env:weights",
    ladder="bharg_env.levels:LADDER",
    docs_picture="bharg_env.descriptor:DOCS_PICTURE",
    greedy_features="bharg_env.greedy:greedy_features",
    greedy_features_engine="bharg_env.greedy:greedy_features_engine",
    greedy_feature_names="bharg_env.greedy:FEATURES",
)
