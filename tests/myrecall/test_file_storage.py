"""The default storage of frame images writes each file whole before its name appears (a reader on
another machine sharing the folder never opens half an image), and never writes over a name taken."""

from django.core.files.base import ContentFile, File
from django.core.files.storage import FileSystemStorage

from myrecall.file_storage import AtomicFileSystemStorage


class Watched(File):
    """Content that looks at the target name while it is being written."""

    def __init__(self, parts: list[bytes], target):
        super().__init__(None, name="watched")
        self.parts, self.target, self.seen = parts, target, []

    def chunks(self, chunk_size=None):
        for part in self.parts:
            self.seen.append(self.target.exists())
            yield part


def test_a_file_appears_under_its_name_only_when_whole(tmp_path):
    store = AtomicFileSystemStorage(location=str(tmp_path))
    target = tmp_path / "frames/2026/11/26/a.webp"
    content = Watched([b"first half ", b"second half"], target)
    assert store.save("frames/2026/11/26/a.webp", content) == "frames/2026/11/26/a.webp"
    assert content.seen == [False, False]
    assert target.read_bytes() == b"first half second half"
    assert [p.name for p in target.parent.iterdir()] == ["a.webp"]  # its temp file is gone
    # Django's own FileSystemStorage shows the name while it writes: what this class is for.
    plain = Watched([b"first half ", b"second half"], tmp_path / "plain.webp")
    FileSystemStorage(location=str(tmp_path)).save("plain.webp", plain)
    assert plain.seen == [True, True]  # empty, then half written


def test_a_name_taken_keeps_its_file_and_the_new_one_gets_another_name(tmp_path):
    store = AtomicFileSystemStorage(location=str(tmp_path))
    assert store.save("thumbs/1.webp", ContentFile(b"made by one server")) == "thumbs/1.webp"
    other = store.save("thumbs/1.webp", ContentFile(b"made by another"))
    assert other != "thumbs/1.webp" and other.startswith("thumbs/1_")
    assert store.open("thumbs/1.webp").read() == b"made by one server"
    assert store.open(other).read() == b"made by another"


def test_a_file_already_on_disk_is_linked_not_copied(tmp_path):
    staged = tmp_path / "staged.part"
    staged.write_bytes(b"an encoded screen")

    class Staged(File):
        def temporary_file_path(self):
            return str(staged)

    store = AtomicFileSystemStorage(location=str(tmp_path / "images"))
    with open(staged, "rb") as fh:
        name = store.save("frames/x.webp", Staged(fh, name="x"))
    assert (tmp_path / "images" / name).stat().st_ino == staged.stat().st_ino
    assert staged.exists()  # the caller's file is the caller's to remove
