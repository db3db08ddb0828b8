"""The one progress convention of every long-running experiment (issue 11).

An experiment takes ``progress``:

- ``None`` (the default): a bar on stderr only when stderr is a terminal — quiet in
  notebooks' logs, pipes and tests, visible in an interactive shell;
- ``True`` / ``False``: always / never a bar;
- a callable: called with the number of steps just done, for a caller that draws its own
  progress (a GUI, a notebook widget, a log line every N steps).

Inside, the experiment writes::

    with progress_bar(total, progress, "split-half", unit="split") as bar:
        ...
        bar.update(n)            # n more steps done
        bar.set_description(s)   # what is being done now (shown by the bar, if any)

or, for a loop, ``for item in track(items, progress, "volatility", unit="series"):``.
tqdm is imported only when a bar is drawn.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator, Union

#: What an experiment's ``progress`` argument may be.
Progress = Union[bool, None, Callable[[int], None]]


class _Callback:
    """Forwards each step count to the caller's function; descriptions are not shown."""

    def __init__(self, function: Callable[[int], None]):
        self._function = function

    def update(self, n: int = 1) -> None:
        self._function(n)

    def set_description(self, text: str) -> None:
        pass


class _Silent:
    """Stands in for a bar when none is shown."""

    def update(self, n: int = 1) -> None:
        pass

    def set_description(self, text: str) -> None:
        pass


def shows_bar(progress: Progress) -> bool:
    """Whether ``progress`` asks for a bar on stderr now."""
    if callable(progress):
        return False
    if progress is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(progress)


@contextmanager
def progress_bar(total: int, progress: Progress = None, desc: str = "", unit: str = "it") -> Iterator:
    """A progress tracker for ``total`` steps with ``update(n)`` and ``set_description(text)``."""
    if callable(progress) and not isinstance(progress, bool):
        yield _Callback(progress)
        return
    if not shows_bar(progress):
        yield _Silent()
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)
    try:
        yield bar
    finally:
        bar.close()


def track(items, progress: Progress = None, desc: str = "", unit: str = "it"):
    """Iterate over ``items`` (a sized collection), one progress step per item."""
    items = list(items)
    with progress_bar(len(items), progress, desc, unit) as bar:
        for item in items:
            yield item
            bar.update(1)


__all__ = ["Progress", "progress_bar", "shows_bar", "track"]
