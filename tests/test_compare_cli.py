"""``trax-fpga compare``'s own behaviour, on a device that costs no simulation (the reference
engine behind the protocol): progress on stderr when it is not a terminal, the table for
people, ``--json`` for programs."""

import json

import pytest
from fake_device import RefPort

from traxfpga.host import cli
from traxfpga.host import client as client_module


@pytest.fixture
def ref_device(monkeypatch):
    monkeypatch.setattr(client_module, "open_client",
                        lambda spec, *a, **k: client_module.DeviceClient(RefPort(), name=spec))


def test_compare_progress_on_stderr_and_a_table(ref_device, capsys):
    status = cli.main(["compare", "--sample", "3", "--games", "2", "--seed", "5"])
    out, err = capsys.readouterr()
    assert status == 0, out + err
    assert "trax-fpga compare: 5/5 games, 0 mismatches" in err
    assert "mismatches" in out and "5/5" not in out


def test_compare_json(ref_device, capsys):
    status = cli.main(["compare", "--sample", "3", "--games", "2", "--seed", "5", "--json",
                       "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["games"] == 5 and data["recorded"] == 3 and data["mismatches"] == 0
    assert data["moves"] > 0 and data["first_mismatch"] is None
