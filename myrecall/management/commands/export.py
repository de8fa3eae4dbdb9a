from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from myrecall.archive import archive_export
from myrecall.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Write the whole memory (database, frame images, settings) to one archive, PATH.tar or PATH.tar.gz, "
        "while the server keeps running. The vector index is not copied: `import` has it rebuilt."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)

    def handle(self, *args, path: Path, **options):
        bars: dict[str, tqdm] = {}

        def progress(step: str, done: int, total: int) -> None:
            bar = bars.get(step)
            if bar is None:
                bar = bars[step] = tqdm(total=total, desc=step, unit="B", unit_scale=True, disable=None)
            bar.update(done - bar.n)

        try:
            report = archive_export(path=path, progress=progress)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        finally:
            for bar in bars.values():
                bar.close()
        counts = ", ".join(f"{count:,} {label.replace('_', ' ')}" for label, count in report.counts.items())
        self.stdout.write(
            f"Wrote {report.path} in {report.seconds:.1f} s: {counts}; database {report.database_bytes / 2**20:,.1f} MiB, "
            f"{report.files:,} images ({report.file_bytes / 2**20:,.1f} MiB)."
        )
        if report.missing:
            self.stdout.write(f"{len(report.missing)} image(s) were deleted meanwhile or missing; their rows are in the archive.")
        self.stdout.write("It holds every screen you captured: keep it as safe as the data dir (it is written mode 0600).")
