"""The config file's [hosts] and [ssh] tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from gputui.cli.config_file import load_config


def test_hosts_and_ssh_tables(tmp_path: Path) -> None:
    p = tmp_path / "config.toml"
    p.write_text(
        '[hosts]\nssh = ["gpu[01-16]", "dgx01"]\n[ssh]\nconfig = "~/.ssh/gpus"\nconnect_timeout = 5\ndetail = 30\n'
    )
    config, problem = load_config(p)
    assert problem is None
    assert config.ssh_hosts == ("gpu[01-16]", "dgx01")
    assert (config.ssh_config, config.ssh_connect_timeout, config.ssh_detail) == ("~/.ssh/gpus", 5, 30.0)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('hosts = ["a"]\n', "hosts: expected a table"),
        ("[hosts]\nssh = 3\n", "hosts.ssh: expected a list"),
        ('[hosts]\nslurm = ["a"]\n', "hosts: unknown key 'slurm'"),
        ("[ssh]\nconnect_timeout = 0\n", "ssh.connect_timeout: expected seconds"),
        ('[ssh]\ndetail = "often"\n', "ssh.detail: expected a number of seconds"),
        ('[ssh]\nproxy = "x"\n', "ssh: unknown key 'proxy'"),
    ],
)
def test_bad_tables_are_one_line(tmp_path: Path, text: str, words: str) -> None:
    p = tmp_path / "config.toml"
    p.write_text(text)
    config, problem = load_config(p)
    assert problem is not None and words in problem and "\n" not in problem
    assert config.ssh_hosts == ()
