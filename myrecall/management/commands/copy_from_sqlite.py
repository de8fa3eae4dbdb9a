from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from tqdm import tqdm

from myrecall.errors import ApplicationError
from myrecall.moving import memory_move


class Command(BaseCommand):
    help = (
        "Copy the memory of an embedded MyRecall data dir (its SQLite database, frame images and vector index) "
        "into the database, image storage and vector index this command is configured with (DATABASE_URL, "
        "MYRECALL_IMAGES_DIR, CHROMA_URL): the move from one machine to several. Stop MyRecall on the old data dir "
        "first. It can be stopped and run again: it goes on where it stopped."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", type=Path, help="the old data dir (MYRECALL_DATA_DIR of the embedded MyRecall)")
        parser.add_argument(
            "--images-from", type=Path, default=None,
            help="where the old MyRecall kept its images, if MYRECALL_IMAGES_DIR was set there (default: the old data dir)",
        )

    def handle(self, *args, source: Path, images_from: Path | None, **options):
        if connection.vendor == "sqlite":
            self.stderr.write(
                "Note: DATABASE_URL is not set, so this copies into another SQLite database "
                "(set DATABASE_URL=postgres://... to copy into PostgreSQL)."
            )

        def progress(what: str, total: int):
            return tqdm(total=total, desc=what, unit="row" if what.startswith("copy ") else "frame", disable=None, mininterval=1)

        try:
            report = memory_move(source_dir=source, images_dir=images_from, progress=progress)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        copied = sum(report.tables.values())
        earlier = sum(report.skipped.values())
        self.stdout.write(
            f"Copied {copied:,} rows from {source}"
            + (f" ({earlier:,} were copied by an earlier run)" if earlier else "")
            + f"; {report.files:,} images copied"
            + (f" ({report.files_there:,} were there already)" if report.files_there else "")
            + "; "
            + ", ".join(f"{name.replace('_', ' ')}: {value:,}" for name, value in report.finished.items())
            + "."
        )
        if report.files_missing:
            self.stderr.write(
                f"{len(report.files_missing):,} images the database names were not in the old folder "
                f"(e.g. {report.files_missing[0]}): those frames show no image; their text and search are kept."
            )
