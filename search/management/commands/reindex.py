import json
import time
from datetime import datetime

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from django.conf import settings

from search.embeddings import EmbeddingError, embedder_info
from search.models import FrameVectors, VectorStatus
from search.services import (
    fts_rebuild_batch,
    fts_rebuild_begin,
    fts_rebuild_finish,
    fts_vocab_reset,
    vectors_embed_pending,
    vectors_migration_resume,
    vectors_rebuild_mark,
)
from search.status import index_periods
from search.vectors import VectorError

# A vector rebuild under way: its range, so that a run after an interruption goes on rather than starts over.
REBUILD_FILE = "vector_rebuild.json"


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
        "Rebuild the keyword index (FTS, week by week) and/or the vector index (every frame re-embedded) "
        "from the database, the source of truth. Searches keep answering meanwhile and new frames keep "
        "being indexed; an interrupted run goes on where it stopped when run again. Without --fts or "
        "--vectors, both are rebuilt."
    )

    def add_arguments(self, parser):
        parser.add_argument("--fts", action="store_true", help="Rebuild the keyword index.")
        parser.add_argument("--vectors", action="store_true", help="Rebuild the vector index (searches by meaning).")
        parser.add_argument("--start", help="Only weeks from this time on (epoch seconds or ISO-8601, e.g. 2026-11-01).")
        parser.add_argument("--end", help="Only weeks up to this time (epoch seconds or ISO-8601).")

    def handle(self, *args, fts, vectors, start, end, **options):
        start_time = _instant(start) if start else None
        end_time = _instant(end) if end else None
        if start_time is not None and end_time is not None and end_time < start_time:
            raise CommandError("--end is before --start.")
        call_command("migrate", interactive=False, verbosity=0)
        if fts or not vectors:
            self._fts(start_time, end_time)
        if vectors or not fts:
            self._vectors(start_time, end_time)

    def _vectors(self, start_time: float | None, end_time: float | None) -> None:
        marker = settings.DATA_DIR / REBUILD_FILE
        # The model too: a rebuild begun for another model starts over.
        wanted = {"start": start_time, "end": end_time, "embedder": embedder_info().key}
        try:
            under_way = json.loads(marker.read_text())
        except (OSError, ValueError):
            under_way = None
        if under_way == wanted:
            self.stdout.write("Going on with the vector rebuild that was interrupted.")
        else:
            marker.write_text(json.dumps(wanted))
            vectors_rebuild_mark(start_time=start_time, end_time=end_time)
        pending = FrameVectors.objects.filter(status=VectorStatus.PENDING).count()
        began = time.monotonic()
        done = 0
        with tqdm(total=pending, desc="Vector index", unit="frame", mininterval=1) as bar:
            while True:
                try:
                    written, left = vectors_embed_pending()
                except (EmbeddingError, VectorError) as exc:
                    raise CommandError(f"{exc}\nRun the command again to go on where it stopped.") from None
                if not written and not left:
                    break
                done += written
                bar.total = max(bar.total, done + left)
                bar.update(written)
        marker.unlink(missing_ok=True)
        try:
            # Another model's vectors: dropped when no frame needs them, else (outside the range) the worker moves those frames.
            vectors_migration_resume()
        except VectorError as exc:
            raise CommandError(f"{exc}\nRun the command again to go on where it stopped.") from None
        elapsed = time.monotonic() - began
        self.stdout.write(f"Vector index rebuilt: {done} frames embedded in {elapsed:.0f} s ({done / max(elapsed, 1e-9):.1f} frames/s).")

    def _fts(self, start_time: float | None, end_time: float | None) -> None:
        periods = index_periods(start_time=start_time, end_time=end_time)
        if not periods:
            self.stdout.write("Keyword index: nothing to index in that range.")
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
