"""The tiles by number, as the hardware numbers them (:class:`traxfpga.hdl.tiles.Shape`,
a :data:`~traxfpga.hdl.pvs_isa.MOVE_FIELDS` word's ``tile``) and as the notation writes them.
No Amaranth import: the reference's twin reads it too."""

__all__ = ["TILE_CHARS"]

#: 0 ``+``, 1 ``/``, 2 ``\\``: also the order in which a square's tiles are tried.
TILE_CHARS = "+/\\"
