from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from myrecall.archive import archive_import, memory_restored
from myrecall.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Restore an archive made by `export` into an empty data dir (MYRECALL_DATA_DIR), with the server "
        "stopped. Keyword search answers as soon as it is done; the worker rebuilds the vector index from "
        "the database in the background (about 10 frames a second here)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)

    def handle(self, *args, path: Path, **options):
        bar = None

        def progress(step: str, done: int, total: int) -> None:
            nonlocal bar
            if bar is None:
                bar = tqdm(total=total, desc="restoring", unit="B", unit_scale=True, disable=None)
            bar.update(done - bar.n)

        try:
            report = archive_import(path=path, progress=progress)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        finally:
            if bar is not None:
                bar.close()
        call_command("migrate", interactive=False, verbosity=0)  # an archive from an older version
        memory_restored.send(sender=self.__class__)
        counts = ", ".join(f"{count:,} {label.replace('_', ' ')}" for label, count in report.counts.items())
        self.stdout.write(f"Restored {report.path} in {report.seconds:.1f} s: {counts}; {report.files:,} images.")
        self.stdout.write(
            "Start MyRecall as usual: keyword search works at once, and the worker re-embeds every frame for "
            "search by meaning in the background. Log in with the accounts of the exported memory."
        )
