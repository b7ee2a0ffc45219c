"""Training recipes on the batched engines (:mod:`setgames.batch`); torch is needed here only.

:mod:`setgames.learn.ppo` is the single-file masked PPO behind ``setgames train GAME``;
the policies it writes are played by the ``ppo`` bot (:mod:`setgames.bots.ppo`, numpy only).
"""
