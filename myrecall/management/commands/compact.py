from django.core.management.base import BaseCommand
from django.db import connection
from tqdm import tqdm

from frames.services import database_rebuild, database_space_reclaim
from myrecall.space import Compaction, compaction_run_all


class Command(BaseCommand):
    help = (
        "Rewrite, in place, the rows a MyRecall before this one stored in a larger form (OCR lines as JSON, plain OCR "
        "text), and store again the images of frames stored in an older form (frames of a screen as what each adds "
        "to the one before: a fifth of the bytes on dense screens), with a progress bar, then give the freed pages "
        "back to the disk. The worker rewrites rows in the background, images only here; stopped midway, this goes "
        "on where it was. The server may keep running."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=1000, help="rows per transaction")
        parser.add_argument(
            "--vacuum",
            action="store_true",
            help="then rebuild the database (SQLite: VACUUM of its file; PostgreSQL: VACUUM FULL of its tables), which "
            "gives back the space that rows made smaller leave inside its pages: minutes at a million frames, new frames "
            "wait meanwhile (pause capture), and it needs free disk the size of the database",
        )

    def handle(self, *args, batch: int, vacuum: bool, **options):
        bars: dict[str, tqdm] = {}

        def progress(item: Compaction, done: int, total: int) -> None:
            bar = bars.get(item.name)
            if bar is None:
                bar = bars[item.name] = tqdm(total=total, desc=item.label, unit=item.unit, disable=None)
            bar.total = total
            bar.update(done - bar.n)

        try:
            counts = compaction_run_all(batch=batch, progress=progress)
        finally:
            for bar in bars.values():
                bar.close()
        database_space_reclaim()
        self.stdout.write("Rewrote " + ", ".join(f"{count:,} ({name.replace('_', ' ')})" for name, count in counts.items()) + ".")
        if vacuum:
            before, after = database_rebuild()
            what = "file" if connection.vendor == "sqlite" else "tables"
            self.stdout.write(f"Rebuilt the database {what}: {before / 2**20:,.0f} MiB -> {after / 2**20:,.0f} MiB.")
