"""A progress bar in simulated time that appears only when a run is slow."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn


class LazyProgress:
    """Callable for the core's ``progress`` hook: shows a rich bar after *delay* seconds.

    Use as a context manager; the bar (if it ever appeared) is removed on exit. Nothing
    is drawn when stderr is not a terminal.
    """

    def __init__(self, description: str = "simulating", *, delay: float = 0.5, console=None):
        self.description = description
        self.delay = delay
        self.console = console or Console(stderr=True)
        self._t0 = time.monotonic()
        self._progress: Progress | None = None
        self._task = None

    def __enter__(self) -> LazyProgress:
        self._t0 = time.monotonic()
        return self

    def __call__(self, fraction: float) -> None:
        if self._progress is None:
            if not self.console.is_terminal or time.monotonic() - self._t0 < self.delay:
                return
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("of simulated time"),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self._task = self._progress.add_task(self.description, total=1.0)
            self._progress.update(self._task, completed=min(max(float(fraction), 0.0), 1.0))
            self._progress.start()
        self._progress.update(self._task, completed=min(max(float(fraction), 0.0), 1.0))

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
