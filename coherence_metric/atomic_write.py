"""Writing a file all or nothing: the HTML report and the dtype probe's cache, whose readers must never see half a
file; and never over something that is not a regular file."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from .errors import InputError


def write_atomically(target: Path, text: str, what: str = "the file") -> None:
    """Write ``text`` (UTF-8) to ``target`` all or nothing: into a new file beside it, then renamed over it.

    Writing in place truncated the old report first, so a full disk or a killed process left half a page where
    the previous report had been; the rename is atomic, so ``target`` is always the old page or the new one. The
    new file keeps the old one's permissions (a fresh one gets the umask's). A link to a file is replaced by a file,
    as ``mv`` does. A ``target`` that is there and is no regular file (a FIFO, a device, a socket, a folder, or a
    link to one) is refused: the rename would replace it with a file.

    Raises:
        InputError: one line naming ``target`` and the system's reason, or saying that it is no regular file; the
            temporary file is removed.
    """
    refuse_special_file(target, what)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # umask applies, never clobbers
        try:
            if target.is_file() and not target.is_symlink():
                os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
            temporary.write_text(text, encoding="utf-8")
            with open(temporary, "rb") as written:
                os.fsync(written.fileno())  # on disk before the rename makes it the only copy
            os.replace(temporary, target)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except OSError as error:
        raise InputError(f"{target}: cannot write {what} ({error.strerror or error})") from None


def refuse_special_file(target: Path, what: str = "the file") -> None:
    """Refuse a ``target`` that is there and is not a regular file (followed through links): writing a file
    over a FIFO, a device or a socket replaces that node, which other programs use.

    Raises:
        InputError: one line naming ``target`` and what it is.
    """
    try:
        mode = os.stat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return  # nothing there (or a link to nothing): a new file is written
    except OSError as error:
        raise InputError(f"{target}: cannot write {what} ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{target} is {_kind(mode)}, not a regular file: cannot write {what} over it; give a file "
                         "name")


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


__all__ = ["refuse_special_file", "write_atomically"]
