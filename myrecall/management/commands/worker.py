from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from frames.ocr import ocr_warm_up
from frames.services import frames_ocr_requeue


class Command(BaseCommand):
    help = "Run the background worker (OCR and other tasks), with the OCR models loaded up front."

    def handle(self, *args, **options):
        requeued = frames_ocr_requeue()
        if requeued:
            self.stdout.write(f"[worker] re-queued OCR for {requeued} frame(s) whose task was lost")
        # Finished task records are kept a day for inspection, not forever.
        call_command("prune_db_task_results", min_age_days=1, verbosity=0)
        ocr_warm_up()
        self.stdout.write(f"[worker] OCR engine {settings.OCR_ENGINE} ready", ending="\n")
        self.stdout.flush()
        call_command("db_worker", queue_name="*", interval=settings.WORKER_INTERVAL, startup_delay=False, verbosity=0)
