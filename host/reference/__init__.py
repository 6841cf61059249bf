"""The reference: the oracle every other layer is checked against.

The rules engine (:mod:`.trax`), reading move lists (:mod:`.movetext`), the reference AI
(:mod:`.ai`), the board's player in software (:mod:`.pvs`, the search sequencer's twin,
with :mod:`.evaluate`, the model of the engine's ``EVAL``), wins by force by plain
recursion (:mod:`.forcing`, the yardstick of the player's threat search), the recorded games
(:mod:`.corpus`, package data) and the fit of the evaluation weights to them
(:mod:`.fit_eval`).  It runs on the standard library: beyond it, it imports only itself and
the modules of ``hdl`` that hold what the hardware shares with its twin and import no
Amaranth (``tests/test_layers.py`` checks this transitively).
"""
