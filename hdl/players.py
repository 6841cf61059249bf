"""The players a device may have, and its default: plain constants, without Amaranth, so the
command line and the board table can name them cheaply."""

__all__ = ["DEFAULT_PLAYER", "PLAYERS"]

#: The search sequencer running its program (:class:`~traxfpga.hdl.pvs.PVSCore`), or the
#: hand-wired searcher (:class:`~traxfpga.hdl.search.Searcher`).
PLAYERS = ("pvs", "search")
#: The player of every device, build and simulated board that names none: the sequencer,
#: which beats the searcher against the contest program (docs/figures.md).
DEFAULT_PLAYER = "pvs"
