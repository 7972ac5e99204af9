"""Writing a file all or nothing: the HTML report and the dtype probe's cache, whose readers must never see half a
file."""

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
    new file keeps the old one's permissions (a fresh one gets the umask's). A link is replaced by a file, as
    ``mv`` does.

    Raises:
        InputError: one line naming ``target`` and the system's reason; the temporary file is removed.
    """
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


__all__ = ["write_atomically"]
