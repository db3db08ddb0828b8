"""Interrupts and clean-up: how "nothing half-written" holds at every moment of a command.

The program's signal handler (:mod:`irstats.cli.main`) turns SIGINT, SIGTERM and SIGHUP
into a ``KeyboardInterrupt``, raised wherever the main thread is — between any two
bytecodes, also inside an ``except`` or ``finally`` block that is cleaning up. Two tools
keep that from leaving a scratch folder or a temporary file behind:

* :class:`deferred` — a block in which an interrupt is held back and delivered when the
  (outermost) block ends. Making a scratch folder or temporary file and registering its
  removal happen in one such block, so there is no moment at which it exists and nobody
  would remove it; committing a folder (several renames) and removing a scratch folder
  happen in one too, so neither is cut short.
* :func:`track` / :func:`settle` — everything irstats has made and not yet committed or
  removed, with the action that removes it. After an interrupt, ``main()`` runs every
  action still registered (:func:`undo_all`, newest first, further signals ignored): a
  clean-up that an interrupt skipped — the signal landed in a ``finally`` block before its
  first line — is done there.

Only the main thread receives signals, so only its blocks defer them. Standard library
only: :mod:`irstats.cli.main` imports this module before anything else.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Callable, Literal, Sequence

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType

_depth = 0  # nesting of deferred blocks in the main thread
_held: Callable[[], None] | None = None  # the delivery of an interrupt that came inside one
_undo: dict[int, Callable[[], None]] = {}  # made and not yet committed or removed → its removal
_tokens = itertools.count(1)


class deferred:
    """``with deferred():`` — an interrupt arriving inside the block is delivered (raised)
    when the outermost such block ends, instead of wherever the main thread happens to be.

    Only the program's handler defers (see :func:`hold`); in-process, Python's own SIGINT
    handler still raises at once."""

    __slots__ = ("_counted",)

    def __enter__(self) -> "deferred":
        global _depth
        self._counted = threading.current_thread() is threading.main_thread()
        if self._counted:
            _depth += 1
        return self

    def __exit__(self, kind, value, traceback) -> Literal[False]:
        global _depth, _held
        if self._counted:
            _depth -= 1
            if _depth == 0 and _held is not None:
                deliver, _held = _held, None
                deliver()  # raises KeyboardInterrupt (or does nothing once the command is stopping)
        return False


def hold(deliver: Callable[[], None]) -> bool:
    """For the signal handler: inside a :class:`deferred` block, keep ``deliver`` for the
    block's end and return True; otherwise return False (the handler raises now)."""
    global _held
    if _depth > 0 and threading.current_thread() is threading.main_thread():
        if _held is None:
            _held = deliver
        return True
    return False


def held() -> bool:
    """True when an interrupt is waiting for the end of a :class:`deferred` block."""
    return _held is not None


def track(undo: Callable[[], None]) -> int:
    """Register ``undo``, the removal of something just made; returns its token.

    Call it in the same :class:`deferred` block that makes the thing."""
    token = next(_tokens)
    _undo[token] = undo
    return token


def settle(token: int | None, undo: bool) -> None:
    """The registered thing is done with: committed (``undo=False``: forget it) or to be
    removed (``undo=True``: run its removal, then forget it). Not cut short by an interrupt."""
    if token is None:
        return
    with deferred():
        action = _undo.get(token)
        if undo and action is not None:
            action()
        _undo.pop(token, None)


def undo_all() -> None:
    """Run every registered removal, newest first (a child process before the folder it
    writes in), and forget them. For ``main()`` after an interrupt."""
    with deferred():
        for token in sorted(_undo, reverse=True):
            action = _undo.pop(token, None)
            if action is not None:
                try:
                    action()
                except Exception:  # noqa: BLE001 - remove what can be removed
                    pass


class _AfterImport:
    """A finder on ``sys.meta_path`` that, the first time ``name`` is imported, runs ``action``
    right after the module's own code (then leaves ``sys.meta_path``)."""

    def __init__(self, name: str, action: Callable[[], None]):
        self.name, self.action = name, action

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        import sys

        if fullname != self.name:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)  # the module's own spec, found without this finder
        loader = spec.loader if spec is not None else None
        if loader is None:
            return spec
        exec_module, action = loader.exec_module, self.action

        def exec_then_act(module: ModuleType) -> None:
            exec_module(module)
            action()

        # on this one loader object: the module's own loading, then the action
        loader.exec_module = exec_then_act  # type: ignore[method-assign]
        return spec


def _bridge_polars_to_numpy() -> None:
    """Polars' first conversion to numpy has its Rust side (rust-numpy) fetch numpy's C API,
    running numpy's Python code; an interrupt raised there reaches Rust as an error, and Rust
    panics ("Failed to access NumPy array API capsule", a 20-line backtrace) instead of passing
    it on. So that first conversion is made at once, in a :class:`deferred` block."""
    with deferred():
        import polars

        polars.Series([0.0]).to_numpy()


def guard_libraries() -> None:
    """For the program's signal handler: libraries whose first call into Python, made from
    compiled code, an interrupt must not cut (:func:`_bridge_polars_to_numpy`) make it when
    they are imported, with interrupts held back."""
    import sys

    if "polars" in sys.modules:
        _bridge_polars_to_numpy()
    elif not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport("polars", _bridge_polars_to_numpy))


__all__ = ["deferred", "guard_libraries", "held", "hold", "settle", "track", "undo_all"]
