"""The reference: the oracle every other layer is checked against.

The rules engine (:mod:`.trax`), reading move lists (:mod:`.movetext`), the reference AI
(:mod:`.ai`), the hardware searcher's software twin (:mod:`.searcher`), the recorded games
(:mod:`.corpus`, package data) and the fit of the evaluation weights to them
(:mod:`.fit_eval`).  It imports only the standard library, itself and the constant modules
of ``hdl`` the hardware shares with its twin -- never the simulation, the boards or the
applications around it (``tests/test_layers.py``).
"""
