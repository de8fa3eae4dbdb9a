"""The default storage of frame images (settings.STORAGES["frames"]): Django's FileSystemStorage,
except that a file appears under its name only once it is whole, so a reader on any machine that
shares the folder sees the whole file or none. (FileSystemStorage writes into the final name, and
moves a temporary file across file systems by copying into it: a reader can see half a file.)"""

import os
import uuid

from django.core.files.storage import FileSystemStorage
from django.utils._os import safe_makedirs


class AtomicFileSystemStorage(FileSystemStorage):
    """Writes a temp file beside the target, then links it to its name: the name is never
    overwritten (a taken name gets another one, as FileSystemStorage does), and never half-written."""

    def _save(self, name, content):
        full_path = self.path(name)
        directory = os.path.dirname(full_path)
        tmp = os.path.join(directory, f".{uuid.uuid4().hex}.part")
        for attempt in (1, 2):
            self._folder_make(directory)
            try:
                self._temp_write(tmp, content)
                break
            except FileNotFoundError:
                if attempt == 2:
                    raise  # a concurrent deletion removed the emptied folder meanwhile: made again once
        try:
            if self.file_permissions_mode is not None:
                os.chmod(tmp, self.file_permissions_mode)
            self._ensure_location_group_id(tmp)
            while True:
                try:
                    self._publish(tmp, full_path)
                    break
                except FileExistsError:
                    name = self.get_available_name(name)
                    full_path = self.path(name)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return os.path.relpath(full_path, self.location).replace("\\", "/")

    def _publish(self, tmp: str, full_path: str) -> None:
        if self._allow_overwrite:
            os.replace(tmp, full_path)
            return
        try:
            os.link(tmp, full_path)  # fails when the name is taken, whoever took it
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links (some network shares)
            if os.path.lexists(full_path):
                raise FileExistsError(full_path) from None
            os.replace(tmp, full_path)

    def _folder_make(self, directory: str) -> None:
        if self.directory_permissions_mode is not None:
            safe_makedirs(directory, self.directory_permissions_mode, exist_ok=True)
        else:
            os.makedirs(directory, exist_ok=True)

    @staticmethod
    def _temp_write(tmp: str, content) -> None:
        if hasattr(content, "temporary_file_path"):
            # A file already on disk: a hard link when it is on the same file system, else a copy.
            try:
                os.link(content.temporary_file_path(), tmp)
                return
            except OSError:
                pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        with os.fdopen(fd, "wb") as out:
            for chunk in content.chunks():
                out.write(chunk if isinstance(chunk, bytes) else chunk.encode())
