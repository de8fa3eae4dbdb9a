from django.core.management.base import BaseCommand

from myrecall.shutdown import exit_now
from myrecall.worker import worker_run


class Command(BaseCommand):
    help = (
        "Run a background worker (OCR and other tasks). Several may share one data dir; a task left "
        "running by a worker that died is taken again. Ctrl-C or SIGTERM: finish the task in flight, "
        "then stop; twice: put it back in the queue and stop now."
    )

    def handle(self, *args, **options):
        def say(line: str) -> None:
            self.stdout.write(f"[worker] {line}")
            self.stdout.flush()

        worker_run(say=say)
        exit_now(0)  # its task given back or done, its registration gone: nothing left to tidy
