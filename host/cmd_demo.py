"""``trax-fpga demo``: placeholder, filled in by the reference-engine work (issue 2)."""


def add_arguments(parser):
    pass


def run(args):
    print("trax-fpga demo: not implemented yet")
    return 1
