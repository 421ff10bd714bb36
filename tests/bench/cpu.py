"""CPU-seconds of processes, from /proc/<pid>/stat, so a benchmark can say what a run costs each of them.

A server's figure covers its whole tree: Postgres serves each connection from a child process, so the
postmaster's own time, its live children's and its reaped children's (cutime, cstime) are added up.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    raw = Path(f"/proc/{pid}/stat").read_text()
    return raw[raw.rindex(")") + 2 :].split()  # the fields after the command name, from field 3 (state)


def _own(pid: int, reaped: bool) -> float:
    fields = _stat(pid)
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])  # fields 14-17 of proc(5)
    return (utime + stime + (cutime + cstime if reaped else 0)) / TICKS


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                children.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
    return children


def tree_seconds(pid: int, children: Mapping[int, list[int]] | None = None) -> float:
    """CPU-seconds of `pid` and every descendant, live or reaped."""
    children = _children() if children is None else children
    with contextlib.suppress(OSError):
        return _own(pid, reaped=True) + sum(tree_seconds(c, children) for c in children.get(pid, ()))
    return 0.0


def server_pid(url: str, program: str) -> int | None:
    """The process of `program` (postgres, nats-server) started with the port of `url`, if one runs
    here: the embedded servers do; a server elsewhere (a container) is not measured. Postgres's
    children rename themselves ("postgres: checkpointer"), so only the postmaster matches."""
    port = str(urlsplit(url.split(",")[0]).port)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                args = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
                if Path(args[0]).name == program and port in args:
                    return int(entry.name)
    return None


def process_seconds(pid: int) -> float:
    """CPU-seconds of `pid` alone (its threads, not its children: the embedded servers are ours)."""
    with contextlib.suppress(OSError):
        return _own(pid, reaped=False)
    return 0.0


@dataclass(frozen=True)
class Meter:
    """CPU-seconds of named processes (`servers`: with their descendants), read before and after a block."""

    processes: Mapping[str, int]
    servers: Mapping[str, int]

    @classmethod
    def of(cls, processes: Mapping[str, int], database_url: str, nats_url: str) -> Meter:
        found = {
            "postgres": server_pid(database_url, "postgres"),
            "nats": server_pid(nats_url, "nats-server"),
        }
        return cls(processes, {name: pid for name, pid in found.items() if pid is not None})

    def read(self) -> dict[str, float]:
        children = _children()
        return {
            **{name: process_seconds(pid) for name, pid in self.processes.items()},
            **{name: tree_seconds(pid, children) for name, pid in self.servers.items()},
        }

    @contextlib.contextmanager
    def measuring(self) -> Iterator[dict[str, float]]:
        """The block's CPU-seconds per name, filled in when the block ends."""
        spent: dict[str, float] = {}
        before = self.read()
        yield spent
        after = self.read()
        spent.update({name: after[name] - before[name] for name in before if name in after})


def per_run_lines(spent: Mapping[str, float], runs: int) -> list[str]:
    """One line per process, largest first, in CPU-milliseconds per run, and their total."""
    width = max(len(name) for name in [*spent, "total"])
    lines = [
        f"  {name:<{width}} {seconds * 1000 / runs:9.1f} ms/run   ({seconds:.2f} s)"
        for name, seconds in sorted(spent.items(), key=lambda item: -item[1])
    ]
    total = sum(spent.values())
    return [*lines, f"  {'total':<{width}} {total * 1000 / runs:9.1f} ms/run   ({total:.2f} s)"]
