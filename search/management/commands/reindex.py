import time
from datetime import datetime

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from search.selectors import index_periods
from search.services import fts_rebuild_batch, fts_rebuild_begin, fts_rebuild_finish, fts_vocab_reset


def _instant(value: str) -> float:
    """Epoch seconds, or an ISO-8601 date or date-time (without an offset: this machine's time)."""
    try:
        return float(value)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(f"{value!r} is neither epoch seconds nor an ISO-8601 date such as 2026-11-23.") from None
    return (moment if moment.tzinfo else moment.astimezone()).timestamp()


class Command(BaseCommand):
    help = (
        "Rebuild the keyword index (FTS) from the database, the source of truth, week by week. Searches "
        "keep answering from the old index meanwhile and new frames keep being indexed; an interrupted "
        "run goes on where it stopped when run again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--fts", action="store_true", help="Rebuild the keyword index (the default: the only index so far).")
        parser.add_argument("--start", help="Only weeks from this time on (epoch seconds or ISO-8601, e.g. 2026-11-01).")
        parser.add_argument("--end", help="Only weeks up to this time (epoch seconds or ISO-8601).")

    def handle(self, *args, fts, start, end, **options):
        start_time = _instant(start) if start else None
        end_time = _instant(end) if end else None
        if start_time is not None and end_time is not None and end_time < start_time:
            raise CommandError("--end is before --start.")
        call_command("migrate", interactive=False, verbosity=0)
        periods = index_periods(start_time=start_time, end_time=end_time)
        if not periods:
            self.stdout.write("Nothing to index in that range.")
            return
        if start_time is None and end_time is None:
            fts_vocab_reset()  # everything is rebuilt: so is the vocabulary (words inside longer words)
        # Whole weeks are rebuilt: the index is partitioned by week.
        left = {period: fts_rebuild_begin(period=period) for period in periods}
        began = time.monotonic()
        done = 0
        with tqdm(total=sum(left.values()), desc="Keyword index", unit="frame", mininterval=1) as bar:
            for period in periods:
                while count := fts_rebuild_batch(period=period):
                    bar.update(count)
                    done += count
                fts_rebuild_finish(period=period)
        elapsed = time.monotonic() - began
        self.stdout.write(f"Keyword index rebuilt: {done} frames in {len(periods)} week(s), {elapsed:.0f} s.")
