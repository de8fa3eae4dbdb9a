"""A Django storage of another layout than a folder tree, for the tests of MYRECALL_IMAGES_STORAGE:
every file lies flat in one folder under the SHA-256 of its name (`<hash>.blob`, its name beside it
in `<hash>.name`), and it has no local path (path() is not implemented). Nothing can find a frame's
image there except through the storage API, so a test that passes with it proves no code goes
around that API. Several processes may share the folder (writes are atomic renames)."""

import hashlib
import os
import uuid
from pathlib import Path

from django.core.exceptions import SuspiciousFileOperation
from django.core.files import File
from django.core.files.storage import Storage
from django.utils.deconstruct import deconstructible


@deconstructible
class HashedFolderStorage(Storage):
    def __init__(self, location: str):
        self.location = Path(location)
        self.location.mkdir(parents=True, exist_ok=True)

    def _key(self, name: str) -> Path:
        if not name or name.startswith("/") or ".." in name.split("/"):
            raise SuspiciousFileOperation(f"not a name of this storage: {name!r}")
        return self.location / hashlib.sha256(name.encode()).hexdigest()

    def _open(self, name, mode="rb"):
        return File(open(self._key(name).with_suffix(".blob"), mode), name=name)

    def _save(self, name, content):
        key = self._key(name)
        tmp = self.location / f".{uuid.uuid4().hex}.part"
        with open(tmp, "wb") as out:
            for chunk in content.chunks():
                out.write(chunk)
        key.with_suffix(".name").write_text(name)
        os.replace(tmp, key.with_suffix(".blob"))
        return name

    def delete(self, name):
        key = self._key(name)
        key.with_suffix(".blob").unlink(missing_ok=True)
        key.with_suffix(".name").unlink(missing_ok=True)

    def exists(self, name):
        return self._key(name).with_suffix(".blob").exists()

    def size(self, name):
        return self._key(name).with_suffix(".blob").stat().st_size

    def listdir(self, path):
        prefix = path.rstrip("/") + "/" if path else ""
        folders, names = set(), []
        for entry in self.location.glob("*.name"):
            try:
                stored = entry.read_text()
            except FileNotFoundError:
                continue  # deleted meanwhile
            if stored.startswith(prefix) and entry.with_suffix(".blob").exists():
                rest = stored[len(prefix) :]
                if "/" in rest:
                    folders.add(rest.split("/", 1)[0])
                else:
                    names.append(rest)
        return sorted(folders), sorted(names)

    def names(self, path: str = "") -> list[str]:
        """Every name it holds under path, in all its folders (for tests)."""
        folders, names = self.listdir(path)
        prefix = f"{path}/" if path else ""
        return [prefix + name for name in names] + [item for folder in folders for item in self.names(prefix + folder)]
