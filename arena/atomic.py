"""Files written so that a kill or a full disk mid-write never leaves a half-written file under the real name.

Each write goes to a temporary file in the same folder, is flushed to disk (``fsync``), and is
renamed over the target (``os.replace``, atomic on POSIX and Windows); the folder is then
flushed so the rename itself survives a power cut. Readers see the old file or the new one,
never a mix. A write that fails removes its temporary file.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_atomic(folder / "a.json", '{"a": 1}\\n')
    >>> (folder / "a.json").read_text()
    '{"a": 1}\\n'
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["write_atomic", "writing_atomic", "fsync_folder", "finish_temporary", "TEMP_SUFFIX"]

#: Temporary files end with this; a folder may keep some after a killed write (safe to delete).
TEMP_SUFFIX = ".partial"


def _new_file_mode() -> int:
    """The mode ``open()`` gives a new file under the current umask (some writers create 0600 files)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def finish_temporary(temporary: Path) -> None:
    """Give a written temporary file the usual mode and flush it to disk, before it is renamed."""
    os.chmod(temporary, _new_file_mode())
    with open(temporary, "rb+") as handle:
        os.fsync(handle.fileno())


def fsync_folder(folder: str | Path) -> None:
    """Flush a folder's entries (a rename into it) to disk; a no-op where folders cannot be opened."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows opens no folders; its renames are durable as they are
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def writing_atomic(path: str | Path) -> Iterator[Path]:
    """A temporary path to write ``path``'s new content to, renamed over ``path`` when the block ends.

    For writers that want a file name (``torch.save``, ``safetensors.torch.save_file``, SB3's
    ``model.save``). If the block raises, the temporary file is removed and ``path`` is untouched.

    Example::

        with writing_atomic(folder / "model.safetensors") as temporary:
            save_file(tensors, temporary)
    """
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}{TEMP_SUFFIX}")
    try:
        yield temporary
        finish_temporary(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_folder(path.parent)


def write_atomic(path: str | Path, content: str | bytes | Callable[[Path], object]) -> Path:
    """Write ``content`` (text, bytes, or a function that writes a given path) to ``path`` atomically.

    Returns:
        ``path``.
    """
    path = Path(path)
    with writing_atomic(path) as temporary:
        if isinstance(content, str):
            temporary.write_text(content, encoding="utf-8")
        elif isinstance(content, bytes):
            temporary.write_bytes(content)
        else:
            content(temporary)
    return path
