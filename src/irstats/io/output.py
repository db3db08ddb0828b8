"""Writing files and folders without ever losing a user's data.

Every file irstats writes goes through :func:`atomic_open` (or its shorthands
:func:`write_text`, :func:`write_bytes`, :func:`atomic_path`): the data goes to a hidden
temporary file in the target's own folder, is flushed to disk, given the permissions a
plain ``open(path, "w")`` would give, and renamed over the target. A failure (full disk,
an error while rendering, an interrupt) removes the temporary file and leaves the old
target untouched. Targets that cannot be renamed over — character devices such as
``/dev/null`` or ``/dev/full``, FIFOs — are written directly. A symbolic link as target is
followed: the file it points to is replaced atomically and the link itself survives.
Every OSError becomes a :class:`~irstats.errors.ResourceError` naming the path and the
cause (``out.tsv: cannot write (No space left on device)``).

Every folder irstats writes as a whole (a study report, the demo) goes through
:class:`OutputFolder`: it is built in a scratch folder beside the target and moved into
place at the end. The target must be new, empty, or a folder irstats made — recognised by
its marker file :data:`MARKER`, a manifest of the files irstats wrote there. Only those
files are replaced or removed; anything else in the folder is left alone. Any other folder
is refused before anything is computed.

Interrupts (see :mod:`irstats._interrupts`): a temporary file or scratch folder is made and
its removal registered in one :class:`~irstats._interrupts.deferred` block, so no signal can
come between the two; a folder's commit and a scratch folder's removal are deferred blocks
too (the target is old or new, never a mix). Should a signal still skip a clean-up (it lands
in a ``finally`` block before the clean-up starts), the command line removes what is left
registered before it exits.

:func:`check_output_file` and :func:`check_output_folder` validate a target before a
command computes anything (the folder exists and is writable; a figure's format is one
matplotlib writes); :func:`check_outputs_spare_inputs` refuses a target that is, or would
replace, one of the command's inputs (compared by file identity, not spelling).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator, Literal

from irstats._interrupts import deferred, settle, track
from irstats.errors import InputError, ResourceError

#: The marker file of a folder made by irstats: JSON with the files (and folders) it wrote.
MARKER = ".irstats-manifest"
MARKER_FORMAT = "irstats output folder"


# ----------------------------------------------------------------------------- helpers
def current_umask() -> int:
    """The process umask (read from /proc when possible, so it is never changed)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fspath(path) -> str:
    text = os.fspath(path)
    if not text:
        raise InputError("empty output path")
    return text


def _resolve_target(path: str) -> tuple[str, os.stat_result | None]:
    """The file to write (symlinks followed) and its stat, or None when it does not exist."""
    try:
        st = os.stat(path)  # follows symlinks
    except FileNotFoundError:
        st = None
    except OSError as exc:  # a symlink loop, a file used as a folder, …
        raise _output_error(exc, path) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        return path, st  # a device, FIFO or folder: never resolved (/dev/stdout → pipe:[…])
    if st is not None and os.path.abspath(path).startswith(("/dev/", "/proc/")):
        # /dev/stdout redirected to a file: write through the descriptor, never rename over the file
        return path, os.stat("/dev/null")
    return os.path.realpath(path), st


def _output_error(exc: OSError, path) -> InputError | ResourceError:
    """An OSError on output as an irstats error: bad paths exit 2, the machine exits 1."""
    import errno

    if exc.errno in (errno.ENOTDIR, errno.EISDIR, errno.ENOENT, errno.ELOOP, errno.ENAMETOOLONG):
        cause = exc.strerror or type(exc).__name__
        return InputError(f"cannot write ({cause})", path=os.fspath(path))
    return ResourceError.from_os_error(exc, os.fspath(path))


def _writable_folder(folder: str, path: str) -> None:
    """Raise unless ``folder`` exists, is a folder and can be written in (named in the error)."""
    if not os.path.exists(folder):
        raise InputError(f"cannot write: the folder {folder} does not exist", path=path)
    if not os.path.isdir(folder):
        raise InputError(f"cannot write: {folder} is not a folder", path=path)
    if not os.access(folder, os.W_OK | os.X_OK):
        cause = "Permission denied"
        with contextlib.suppress(OSError):
            if os.statvfs(folder).f_flag & os.ST_RDONLY:
                cause = "Read-only file system"
        raise ResourceError(f"cannot write in the folder {folder} ({cause})", path=path)


# ----------------------------------------------------------------------------- validation
def check_output_file(path, figure: bool = False) -> None:
    """Raise an irstats error (naming ``path``) unless a file can be written at ``path``.

    Cheap and without side effects: meant to run before a command computes anything. With
    ``figure=True`` the file's suffix must also be a format matplotlib writes.
    """
    text = _fspath(path)
    target, st = _resolve_target(text)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError("is a folder; give a file name", path=text)
    if figure:
        figure_format(text)
    if st is not None and not stat.S_ISREG(st.st_mode):  # a device or FIFO: written directly
        if not os.access(text, os.W_OK):
            raise ResourceError("cannot write (Permission denied)", path=text)
        return
    _writable_folder(os.path.dirname(target) or ".", text)
    if st is not None and not os.access(target, os.W_OK):
        raise ResourceError("cannot write (Permission denied: the file is read-only)", path=text)


def check_outputs_spare_inputs(outputs, inputs) -> None:
    """Raise an :class:`InputError` naming both paths when writing an output would touch an input.

    ``outputs``: ``(label, path, kind)`` triples, ``kind`` ``"file"`` or ``"folder"`` (the
    label is what the user typed, ``--output``, ``--out``); ``inputs``: ``(label, spec)``
    pairs, a spec being a file, a folder or a glob as the command reads it. Paths are compared
    by file identity (device and inode, symlinks followed), never by spelling, so ``q.qrels``,
    ``./q.qrels``, a symbolic link to it and a hard link of it are one file. Refused, before
    anything is computed:

    - an output file that *is* an input file (it would be replaced by the result);
    - an output file directly inside an input folder or matching an input glob, existing or
      not: a folder of runs is read whole, so the output would be read as a run — now, or
      the next time the same command runs;
    - an output folder that holds an input (a report written over the folder of its own runs).

    Devices and FIFOs (``/dev/null``, ``/dev/stdout`` on a terminal) are written, not
    replaced: they clash with nothing. Inputs that do not exist are left to their reader.
    """
    import fnmatch
    import glob

    files: list[tuple[str, str, tuple[int, int]]] = []  # (label, path, identity) of every input file
    folders: list[tuple[str, str, tuple[int, int]]] = []
    patterns: list[tuple[str, str]] = []
    for label, spec in inputs:
        spec = os.fspath(spec)
        if not spec or spec == "-":
            continue
        matches = [spec] if os.path.exists(spec) else []
        if not matches and glob.has_magic(spec):
            patterns.append((label, spec))
            matches = sorted(glob.glob(spec))
        for path in matches:
            try:
                st = os.stat(path)
            except OSError:
                continue
            entry = (label, path, (st.st_dev, st.st_ino))
            if stat.S_ISDIR(st.st_mode):
                folders.append(entry)
            elif stat.S_ISREG(st.st_mode):
                files.append(entry)
    if not (files or folders or patterns):
        return
    for out_label, out, written_as in outputs:
        out = os.fspath(out)
        if written_as == "folder":
            _check_folder_spares(out_label, out, files + folders)
            continue
        out_stat: os.stat_result | None
        try:
            out_stat = os.stat(out)
        except OSError:
            out_stat = None
        if out_stat is not None and not stat.S_ISREG(out_stat.st_mode):
            continue  # a device or FIFO: written to, never replaced
        if out_stat is not None:
            for label, path, identity in files:
                if identity == (out_stat.st_dev, out_stat.st_ino):
                    same = "" if os.path.normpath(path) == os.path.normpath(out) else " (the same file)"
                    raise InputError(f"refusing to write {out_label} {out}: it is the input {label} {path}{same}; "
                                     f"give another file")
        try:
            parent = os.stat(os.path.dirname(os.path.realpath(out)) or ".")
        except OSError:
            parent = None
        for label, path, identity in folders:
            if parent is not None and identity == (parent.st_dev, parent.st_ino):
                raise InputError(f"refusing to write {out_label} {out}: it is in the folder of the input "
                                 f"{label} {path}, which is read whole, so it would be read as an input; "
                                 f"give a file outside that folder")
            if out_stat is not None and out_stat.st_nlink > 1:  # a hard link elsewhere of a file the folder holds
                inside = _same_file_in(path, out_stat)
                if inside is not None:
                    raise InputError(f"refusing to write {out_label} {out}: it is the input {label} {inside} "
                                     f"(the same file); give another file")
        for label, pattern in patterns:
            if fnmatch.fnmatch(os.path.abspath(out), os.path.abspath(pattern)):
                raise InputError(f"refusing to write {out_label} {out}: it matches the input {label} {pattern!r}, "
                                 f"so it would be read as an input; give a file that does not match")


def _same_file_in(folder: str, st: os.stat_result) -> str | None:
    """The file directly inside ``folder`` that is the file of ``st`` (device and inode), or None."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    there = entry.stat()
                except OSError:
                    continue
                if (there.st_dev, there.st_ino) == (st.st_dev, st.st_ino):
                    return os.path.join(folder, entry.name)
    except OSError:
        pass
    return None


def _check_folder_spares(out_label: str, out: str, inputs) -> None:
    """Raise when the folder ``out`` (written as a whole) is or holds one of ``inputs``."""
    target = os.path.realpath(out)
    for label, path, _ in inputs:
        real = os.path.realpath(path)
        if real == target or real.startswith(target.rstrip(os.sep) + os.sep):
            raise InputError(f"refusing to write the folder {out_label} {out}: it holds the input {label} {path}, "
                             f"which irstats could replace or remove; give another folder")


def figure_format(path) -> str:
    """The image format of a figure file, from its suffix (PNG when it has none).

    An unknown suffix is an :class:`InputError` listing the formats matplotlib writes.
    """
    text = os.fspath(path)
    suffix = Path(text).suffix.lower().lstrip(".")
    if not suffix:
        return "png"
    from matplotlib.backend_bases import FigureCanvasBase

    known = FigureCanvasBase.get_supported_filetypes()
    if suffix not in known:
        raise InputError(f"unknown figure format {suffix!r}; use one of {', '.join(sorted(known))}", path=text)
    return suffix


# ----------------------------------------------------------------------------- files
@contextlib.contextmanager
def atomic_path(path, *, fsync: bool = True) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed over ``path`` when the block
    succeeds, removed when it fails (KeyboardInterrupt included) — the old ``path`` is then
    untouched. For libraries that want a file name.

    The temporary file is hidden (``.NAME.XXXX.tmp``) in the target's own folder, so the
    rename stays on one filesystem. It gets the permissions a plain ``open(path, "w")``
    would give: the replaced file's, or 0666 under the umask for a new file. A device or
    FIFO target is yielded itself (it cannot be renamed over). OSErrors are raised as
    :class:`ResourceError` (or :class:`InputError` for a path that cannot exist) naming
    ``path``; other errors propagate as they are.
    """
    text = _fspath(path)
    target, st = _resolve_target(text)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError("is a folder; give a file name", path=text)
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            yield Path(text)
        except OSError as exc:
            raise _output_error(exc, text) from None
        return
    folder = os.path.dirname(target) or "."
    if st is not None and not os.access(target, os.W_OK):
        raise ResourceError("cannot write (Permission denied: the file is read-only)", path=text)
    token = None
    try:
        with deferred():  # the temporary file never exists without its removal registered
            fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
            token = track(lambda: _remove_file(temp))
            os.close(fd)
    except BaseException as exc:  # an OSError, or an interrupt held back until the end of the block
        settle(token, undo=True)
        if not isinstance(exc, OSError):
            raise
        if not os.path.isdir(folder):
            _writable_folder(folder, text)  # names the missing folder
        raise _output_error(exc, text) from None
    renamed = False
    try:
        yield Path(temp)
        if fsync:
            fd = os.open(temp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        if st is not None:  # keep the replaced file's permissions (and owner, when allowed)
            os.chmod(temp, stat.S_IMODE(st.st_mode))
            if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(OSError):
                    os.chown(temp, st.st_uid, st.st_gid)
        else:  # what open(path, "w") gives: 0666 under the umask (mkstemp makes 0600)
            os.chmod(temp, 0o666 & ~current_umask())
        with deferred():  # renamed and known to be renamed, or neither
            os.replace(temp, target)
            renamed = True
    except OSError as exc:
        raise _output_error(exc, text) from None
    finally:  # the temporary file is removed unless it became the target
        settle(token, undo=not renamed)


def _remove_file(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", *, encoding: str = "utf-8", fsync: bool = True) -> Iterator[IO]:
    """Open ``path`` for writing so that it is replaced only when the block succeeds.

    ``mode`` is ``"w"`` (text, ``encoding``) or ``"wb"``; yields the open file. The
    guarantees are those of :func:`atomic_path`: on any failure the old ``path`` is
    untouched and no temporary file is left; OSErrors become irstats errors naming ``path``.
    """
    if mode not in ("w", "wb"):
        from irstats.errors import ArgumentError

        raise ArgumentError(f"atomic_open writes only, mode 'w' or 'wb', not {mode!r}", argument="mode")
    kwargs: dict[str, Any] = {"encoding": encoding} if mode == "w" else {}
    with atomic_path(path, fsync=False) as temp:
        direct = os.fspath(temp) == os.fspath(path)  # a device, FIFO, /dev/stdout: never truncated
        try:
            with open(temp, mode.replace("w", "a") if direct else mode, **kwargs) as fh:
                yield fh
                fh.flush()
                if fsync and os.path.isfile(temp):
                    os.fsync(fh.fileno())
        except OSError as exc:
            raise _output_error(exc, os.fspath(path)) from None


def write_text(path, text: str, *, encoding: str = "utf-8", fsync: bool = True) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_open(path, "w", encoding=encoding, fsync=fsync) as fh:
        fh.write(text)
    return Path(path)


def write_bytes(path, data: bytes, *, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_open(path, "wb", fsync=fsync) as fh:
        fh.write(data)
    return Path(path)


# ----------------------------------------------------------------------------- folders
def read_manifest(folder) -> dict | None:
    """The manifest of a folder irstats made, or None when it has no marker."""
    marker = Path(folder) / MARKER
    if not marker.is_file():
        return None
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != MARKER_FORMAT or not isinstance(data.get("files"), list):
        return None
    return data


def check_output_folder(path) -> dict | None:
    """Raise unless irstats may write the folder ``path``; return its manifest (if any).

    Allowed: a folder that does not exist yet (its nearest existing parent must be a
    writable folder), an empty folder, or a folder carrying irstats' marker. Anything else
    is refused in one line naming the folder. Nothing is created or changed.
    """
    text = _fspath(path)
    target = os.path.realpath(text)
    if not os.path.lexists(target):
        ancestor = os.path.dirname(target)
        while ancestor and not os.path.lexists(ancestor):
            ancestor = os.path.dirname(ancestor)
        _writable_folder(ancestor or ".", text)
        return None
    if not os.path.isdir(target):
        raise InputError("exists and is not a folder; give a new or empty folder", path=text)
    _writable_folder(target, text)
    _writable_folder(os.path.dirname(target) or ".", text)  # the scratch folder goes beside it
    manifest = read_manifest(target)
    if manifest is not None:
        return manifest
    try:
        empty = next(os.scandir(target), None) is None
    except OSError as exc:
        raise _output_error(exc, text) from None
    if not empty:
        raise InputError(f"refusing to write in this folder: it is not empty and was not made by irstats "
                         f"(no {MARKER} file); give a new or empty folder", path=text)
    return {"format": MARKER_FORMAT, "files": [], "folders": []}


class OutputFolder:
    """A folder written as a whole, without touching what irstats did not make.

    Constructing it validates the target (:func:`check_output_folder`) — do it before
    computing anything. ``with folder as scratch:`` yields a scratch folder beside the
    target to write into; when the block succeeds, its files are moved into the target
    (a new folder is renamed into place at once) and the marker lists them. When the block
    fails or is interrupted, the scratch folder (and any parent folder made for it) is
    removed and the target is untouched.
    """

    def __init__(self, path, kind: str = "output"):
        self.path = Path(_fspath(path))
        self.kind = kind
        self.manifest = check_output_folder(self.path)
        self.target = Path(os.path.realpath(self.path))
        self.scratch: Path | None = None
        self._made_parents: list[Path] = []
        self._token: int | None = None

    def __enter__(self) -> Path:
        parent = self.target.parent
        missing = []
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        try:
            with deferred():  # the scratch folder (and parents made for it) never exist unregistered
                self._token = track(self._cleanup)
                for folder in reversed(missing):
                    folder.mkdir()
                    self._made_parents.append(folder)
                self.scratch = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.partial-", dir=self.target.parent))
        except OSError as exc:
            settle(self._token, undo=True)
            raise _output_error(exc, self.path) from None
        except BaseException:  # an interrupt held back until the end of the block: __exit__ will not run
            settle(self._token, undo=True)
            raise
        return self.scratch

    def __exit__(self, exc_type, exc, tb) -> Literal[False]:
        try:
            if exc_type is None:
                try:
                    with deferred():  # the target is the old folder or the new one, never a mix
                        self._commit()
                except OSError as error:
                    raise _output_error(error, self.path) from None
        finally:  # removes the scratch folder, unless the commit moved it into place
            settle(self._token, undo=True)
        return False

    # -- internals
    def _cleanup(self) -> None:
        """Remove the scratch folder and the parent folders made for it (unless the target is
        in place). Runs inside a deferred block (:func:`~irstats._interrupts.settle`)."""
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
        if not self.target.exists():
            self._remove_parents()

    def _remove_parents(self) -> None:
        for folder in reversed(self._made_parents):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self._made_parents = []

    def _manifest_text(self, files, folders) -> str:
        from irstats import __version__

        return json.dumps({"format": MARKER_FORMAT, "kind": self.kind, "irstats_version": __version__,
                           "files": sorted(files), "folders": sorted(folders)}, indent=1) + "\n"

    def _commit(self) -> None:
        scratch, target = self.scratch, self.target
        assert scratch is not None  # made by __enter__; _commit runs only after it
        files, folders = _tree(scratch)
        os.chmod(scratch, 0o777 & ~current_umask())  # mkdtemp makes 0700
        # The folder may have changed while computing: checked again (None: it does not exist,
        # not even after a removal between the two calls).
        fresh = check_output_folder(target) if os.path.lexists(target) else None
        if fresh is None:
            write_text(scratch / MARKER, self._manifest_text(files, folders), fsync=False)
            os.rename(scratch, target)
            self.scratch = None
            return
        old_files = set(fresh.get("files", []))
        old_folders = set(fresh.get("folders", []))
        clashes = [f for f in files if f not in old_files and os.path.lexists(target / f)]
        clashes += [d for d in folders if d not in old_folders and os.path.lexists(target / d)
                    and not (target / d).is_dir()]
        if clashes:
            raise InputError(f"refusing to replace {clashes[0]}: irstats did not make it", path=str(self.path))
        # The marker first lists old and new files, so an interrupted move can be cleaned up later.
        write_text(target / MARKER, self._manifest_text(old_files | set(files), old_folders | set(folders)))
        for name in sorted(old_files - set(files)):
            old = target / name
            if old.is_symlink() or old.is_file():
                with contextlib.suppress(FileNotFoundError):
                    old.unlink()
        for name in sorted(folders, key=len):
            (target / name).mkdir(exist_ok=True)
        for name in files:
            os.replace(scratch / name, target / name)
        for name in sorted(old_folders - set(folders), key=len, reverse=True):
            with contextlib.suppress(OSError):  # only when empty: a user's file inside keeps it
                (target / name).rmdir()
        kept = {d for d in old_folders if (target / d).is_dir()}  # old folders still holding a user's files
        write_text(target / MARKER, self._manifest_text(files, set(folders) | kept))
        shutil.rmtree(scratch, ignore_errors=True)
        self.scratch = None


def _tree(root: Path) -> tuple[list[str], set[str]]:
    """Files and folders under ``root`` as relative POSIX paths (the top marker left out)."""
    files, folders = [], set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        for d in dirnames:
            folders.add((rel / d).as_posix())
        for f in filenames:
            name = (rel / f).as_posix()
            if name != MARKER:
                files.append(name)
    return sorted(files), folders


__all__ = ["MARKER", "OutputFolder", "atomic_open", "atomic_path", "check_output_file", "check_output_folder",
           "check_outputs_spare_inputs", "current_umask", "figure_format", "read_manifest", "write_bytes", "write_text"]
