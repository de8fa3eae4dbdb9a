from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from frames.selectors import frames_range_counts, retention_cutoff
from frames.services import frames_retention_apply


class Command(BaseCommand):
    help = (
        "Delete every copy of the frames older than the retention (MYRECALL_RETENTION_DAYS, or --days): "
        "images, thumbnails, OCR text, keyword index rows, vectors and the snippets chat answers quoted; "
        "then give the database's free space back. The worker does the same as frames pass "
        "the retention, when it is set. Safe while the server runs; an interrupted run is finished by running it again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, help="Keep this many days (default: MYRECALL_RETENTION_DAYS).")

    def handle(self, *args, days=None, **options):
        days = settings.RETENTION_DAYS if days is None else days
        if days is None or days <= 0:
            raise CommandError("Nothing to prune: give --days N (N >= 1) or set MYRECALL_RETENTION_DAYS.")
        cutoff = retention_cutoff(days=days)
        total = sum(frames_range_counts(end=cutoff).values())
        if not total:
            self.stdout.write(f"No frames older than {days} day(s) (before {cutoff:%Y-%m-%d %H:%M} UTC).")
            return
        with tqdm(total=total, unit="frame", desc=f"deleting frames before {cutoff:%Y-%m-%d %H:%M} UTC") as bar:
            job = frames_retention_apply(days=days, progress=bar.update)
        removed = ", ".join(f"{kind} {count}" for kind, count in sorted(job.removed.items()))
        self.stdout.write(f"Removed: {removed}.")
        if job.status != "done":
            self.stdout.write(f"Not finished: {job.error}. Run prune again (or leave it to the worker) once that is fixed.")
