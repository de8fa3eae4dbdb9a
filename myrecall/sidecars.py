"""Processes that `serve` runs beside the web server and the worker, registered by the apps that
need them from their AppConfig.ready() (search registers the vector server). `serve` never names
them: it starts each one first, waits until it answers, and stops it last."""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Sidecar:
    name: str
    # The command line, or None when it is not needed (e.g. a server elsewhere is configured).
    command: Callable[[], list[str] | None]
    # Whether it answers yet; `serve` waits for it (up to `ready_wait_s`) before the others start.
    ready: Callable[[], bool]
    ready_wait_s: float = 30.0


sidecars: dict[str, Sidecar] = {}


def sidecar_register(sidecar: Sidecar) -> None:
    sidecars[sidecar.name] = sidecar
