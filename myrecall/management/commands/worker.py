from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from frames.ocr import ocr_warm_up


class Command(BaseCommand):
    help = "Run the background worker (OCR and other tasks), with the OCR models loaded up front."

    def handle(self, *args, **options):
        ocr_warm_up()
        self.stdout.write(f"[worker] OCR engine {settings.OCR_ENGINE} ready", ending="\n")
        self.stdout.flush()
        call_command("db_worker", queue_name="*", interval=settings.WORKER_INTERVAL, startup_delay=False, verbosity=0)
