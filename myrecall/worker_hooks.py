"""What apps plug into the background worker, registered from their AppConfig.ready(): callables
run once when a worker starts, and what to do when the workers running a task kept dying on it.

The worker never names the apps; the pipeline order of INSTALLED_APPS is the order of start-up."""

from collections.abc import Callable

from django_tasks.base import Task

# Each returns a line for the worker's output (or None): "OCR engine rapidocr ready".
StartupHook = Callable[[], str | None]
# Called with the task's own arguments plus attempts=N, inside the transaction that marks the task FAILED.
AbandonedHook = Callable[..., None]

startup_hooks: list[StartupHook] = []
# Run once in each web server process as it starts (in the background: they must not delay it).
web_startup_hooks: list[Callable[[], None]] = []
abandoned_hooks: dict[str, AbandonedHook] = {}
# Run by each worker's heartbeat thread every so many seconds (the first time soon after start): each
# must be quick (it queues a task, it does not do the work) and may raise (logged, tried next time).
periodic_hooks: list[tuple[Callable[[], float], Callable[[], None]]] = []


def worker_startup_register(hook: StartupHook) -> StartupHook:
    if hook not in startup_hooks:
        startup_hooks.append(hook)
    return hook


def task_abandoned_register(task: Task, hook: AbandonedHook) -> None:
    """hook(*task_args, attempts=N, **task_kwargs) runs once, when the task is given up after its
    workers died N times while running it, so the object it works on does not stay pending forever."""
    abandoned_hooks[task.module_path] = hook


def web_startup_register(hook: Callable[[], None]) -> None:
    """hook() runs once when a web server process starts, e.g. to load a model in the background
    so that the first request does not wait for it."""
    if hook not in web_startup_hooks:
        web_startup_hooks.append(hook)


def worker_periodic_register(hook: Callable[[], None], *, every_s: Callable[[], float]) -> None:
    """hook() runs in every worker about each every_s() seconds (read each time, from settings):
    e.g. to queue a housekeeping task when none is queued."""
    if all(registered is not hook for _, registered in periodic_hooks):
        periodic_hooks.append((every_s, hook))
