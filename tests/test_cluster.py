"""``referee --cluster``: a match's games on a Dask cluster, here a local one of worker
processes; the same match as in local processes, and one clear error for an address or a
scheduler that cannot be used."""

import json
import socket

import pytest

from traxfpga.host import cluster
from traxfpga.host.cli import main
from traxfpga.host.referee import run_match

SLOW = 10.0        # a time limit nobody should reach on a loaded machine


def test_addresses():
    assert cluster.parse_address("local:3") == ("local", 3)
    assert cluster.parse_address("local")[0] == "local"
    assert cluster.parse_address("tcp://10.0.0.5:8786") == ("remote", "tcp://10.0.0.5:8786")
    for bad in ("local:0", "local:x", "nowhere", "10.0.0.5:8786", "tcp://"):
        with pytest.raises(ValueError):
            cluster.parse_address(bad)


def test_a_match_on_a_local_cluster_is_the_match_in_processes():
    """Every game's seeds are drawn before any is played, so where the games run does not
    change them: the board's player in software and a random player, on two workers."""
    def games(**where):
        m = run_match("model,nodes=300", "random", games=3, seed=4, time_limit=SLOW,
                      max_moves=12, **where)
        return [(r.white, r.moves, r.winner, r.reason) for r in m.records]
    on_cluster = games(cluster="local:2")
    assert on_cluster == games(jobs=1)
    assert [w for w, *_ in on_cluster] == ["model,nodes=300", "random", "model,nodes=300"]


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli(capsys, monkeypatch):
    assert main(["referee", "--white", "ref", "--black", "random", "--games", "2",
                 "--cluster", "local:2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 2 and data["players"]["ref"]["as_white"] == 1
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1)
    for argv, words in ((["--cluster", "nowhere"], "tcp://HOST:8786"),
                        (["--cluster", "local:0"], "at least 1"),
                        (["--cluster", "local", "--jobs", "2"], "not both"),
                        (["--cluster", f"tcp://127.0.0.1:{_closed_port()}"], "cannot reach")):
        rc = main(["referee", "--white", "ref", "--black", "random", *argv])
        out, err = capsys.readouterr()
        assert rc == 1 and out == "" and words in err, (argv, err)
        problems = [ln for ln in err.splitlines() if "opening the players" not in ln]
        assert len(problems) == 1 and "Traceback" not in err
