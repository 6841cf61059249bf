"""Test order: the files that take longest first, so that ``make test``'s workers (one file
each at a time, ``--dist loadfile``) do not end with one of them still on a long file while
the other waits.  The order within a file is kept."""

#: The longest files (seconds on a fresh machine: their compiled simulations, proofs and
#: builds), longest first; the others follow in their own order.  The Makefile keeps xdist
#: from reordering the files by their number of tests.
LONG_FIRST = ("test_formal.py", "test_engine.py", "test_pvs.py", "test_boards_build.py",
              "test_device_pysim.py", "test_referee.py", "test_cores.py",
              "test_device_serve.py", "test_web_browser.py", "test_bench_report.py",
              "test_device_perft.py", "test_device.py", "test_client.py")


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        name = item.path.name
        return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)
    items.sort(key=rank)            # stable: each file's tests keep their order
