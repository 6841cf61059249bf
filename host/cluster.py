"""Games on a Dask cluster (``referee --cluster``): an executor that plays a match's games on
the workers of a `Dask <https://distributed.dask.org>`_ scheduler instead of in local worker
processes.

A self-play campaign is thousands of games; one machine plays two at once.  The address is
either ``local`` or ``local:N`` (a cluster of ``N`` worker processes on this machine, started
for the match and stopped after it: the default ``N`` is the machine's cores), or a running
scheduler's address, such as ``tcp://10.0.0.5:8786``, whose workers have trax-fpga installed
(``docs/referee.md``, "Many machines").  Each worker runs one game at a time (a game is one
thread's work, and a timed player must not share its core).
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["parse_address", "cluster_executor", "ClusterError"]

#: Seconds to wait for a remote scheduler before giving up.
CONNECT_TIMEOUT = 10


class ClusterError(Exception):
    """The cluster cannot be used: one sentence for the user."""


def parse_address(address: str):
    """``("local", workers)`` or ``("remote", address)``; ValueError with one sentence for an
    address that is neither."""
    text = address.strip()
    if text == "local" or text.startswith("local:"):
        count = text[len("local:"):] if ":" in text else ""
        if count == "":
            return "local", os.cpu_count() or 1
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--cluster {address!r}: the workers of a local cluster are a "
                             "whole number of at least 1 (local:2)")
        return "local", int(count)
    if "://" in text and text.split("://", 1)[1]:
        return "remote", text
    raise ValueError(f"--cluster {address!r}: give 'local', 'local:N' or a Dask scheduler's "
                     "address such as tcp://HOST:8786")


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError("--cluster needs Dask's distributed package: pip install "
                           "'trax-fpga[cluster]'") from None
    return distributed


@contextlib.contextmanager
def cluster_executor(address: str):
    """A :class:`concurrent.futures.Executor` whose tasks run on the cluster at ``address``
    (:func:`parse_address`); the client, and a local cluster, are closed on leaving."""
    kind, where = parse_address(address)
    distributed = _import_distributed()
    import logging
    with contextlib.ExitStack() as stack:
        try:
            if kind == "local":
                cluster = stack.enter_context(distributed.LocalCluster(
                    n_workers=where, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.ERROR))
                client = stack.enter_context(distributed.Client(cluster))
            else:
                client = stack.enter_context(distributed.Client(where,
                                                                timeout=CONNECT_TIMEOUT))
        except (OSError, TimeoutError) as e:
            raise ClusterError(f"cannot reach the Dask scheduler at {where}: {e}") from None
        # pure=False: two games with equal arguments are still two games
        yield client.get_executor(pure=False)
