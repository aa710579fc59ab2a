"""Progress bars in simulated time (one run) that appear only when a run is slow, in a
terminal or in Jupyter."""

from __future__ import annotations

import time
from typing import Any


def can_draw(console: Any) -> bool:
    """Whether *console* can show a live bar: a terminal, or a Jupyter notebook (rich
    draws there into an ipywidgets ``Output``; without ipywidgets it cannot)."""
    if console.is_terminal:
        return True
    if getattr(console, "is_jupyter", False):
        try:
            import ipywidgets  # noqa: F401
        except ImportError:
            return False
        return True
    return False


class LazyProgress:
    """Callable for the core's ``progress`` hook: shows a rich bar after *delay* seconds.

    Use as a context manager; the bar (if it ever appeared) is removed on exit. Nothing
    is drawn when stderr is neither a terminal nor a Jupyter notebook. rich loads only
    when a bar is due.
    """

    def __init__(self, description: str = "simulating", *, delay: float = 0.5, console=None):
        self.description = description
        self.delay = delay
        self._console = console
        self._t0 = time.monotonic()
        self._progress: Any = None
        self._task = None
        self._off = False

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        # The CLI's consoles are made on first use: unwrap to the rich Console.
        return getattr(self._console, "real", self._console)

    def __enter__(self) -> LazyProgress:
        self._t0 = time.monotonic()
        return self

    def __call__(self, fraction: float) -> None:
        if self._progress is None:
            if self._off or time.monotonic() - self._t0 < self.delay:
                return
            if not can_draw(self.console):
                self._off = True
                return
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
            )

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
