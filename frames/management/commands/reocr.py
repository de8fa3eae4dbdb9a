from datetime import datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from frames.reading import READER_VERSION
from frames.selectors import frames_read_before_count
from frames.services import frames_reread


def _moment(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"{value!r} is not a date or time such as 2026-11-01 or 2026-11-01T14:00.") from exc
    return timezone.make_aware(moment) if timezone.is_naive(moment) else moment


class Command(BaseCommand):
    help = (
        "Read frames again with this version's OCR reader, so that an existing memory gains the words an older "
        "reader missed: the newest first, with a progress bar. Each frame's text is replaced and indexed as it is "
        "read; search answers meanwhile. Stopped midway, a new run goes on with the frames left. The server and "
        "worker may keep running."
    )

    def add_arguments(self, parser):
        parser.add_argument("--since", help="only frames from this date or time on (local time unless it has an offset)")
        parser.add_argument("--until", help="only frames before this date or time")

    def handle(self, *args, since=None, until=None, **options):
        since_at = _moment(since) if since else None
        until_at = _moment(until) if until else None
        total = frames_read_before_count(reader=READER_VERSION, since=since_at, until=until_at)
        if not total:
            self.stdout.write("Every frame in that range was read by this reader already.")
            return
        with tqdm(total=total, unit="frame", desc="reading frames again, newest first") as bar:
            done, left = frames_reread(since=since_at, until=until_at, progress=bar.update)
        self.stdout.write(f"Read {done:,} frame(s) again." + (f" {left:,} left as they were (see the log)." if left else ""))
