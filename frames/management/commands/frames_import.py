from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from frames.importing import folder_watch, frames_import, timezone_local

SOURCE_LABELS = {"sidecar": "sidecar JSON", "name": "file name", "mtime": "file mtime"}


class Command(BaseCommand):
    help = (
        "Import a folder of screenshots (.png .jpg .jpeg .webp, recursively). Metadata comes from a "
        "sidecar JSON beside each image (same stem + .json: timestamp as epoch seconds or ISO-8601, "
        "app_name, window_name, browser_url, focused, device_name), else the time from the file name, "
        "else the file's mtime. Re-running it stores nothing twice; a bad file is reported and skipped. "
        "With --watch it keeps running and takes each screenshot saved into the folder as it appears."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument("--device-name", help="Device the frames are filed under (default: the folder's name).")
        parser.add_argument("--app-name", default="", help="App name for images whose sidecar gives none.")
        parser.add_argument(
            "--timezone",
            help="IANA zone of times in file names and sidecars that carry no offset (default: this machine's zone).",
        )
        parser.add_argument(
            "--watch",
            action="store_true",
            help="Keep watching the folder (Ctrl-C stops): screenshots other tools save there are taken as they appear.",
        )

    def handle(self, *args, folder: Path, device_name, app_name, timezone, watch=False, **options):
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder.")
        try:
            tz = ZoneInfo(timezone) if timezone else timezone_local()
        except (ZoneInfoNotFoundError, ValueError):
            raise CommandError(f"Unknown timezone {timezone!r}; use an IANA name such as Europe/Berlin.") from None
        # An import may come before the first `serve`, which is what creates the tables otherwise.
        call_command("migrate", interactive=False, verbosity=0)
        if watch:
            return self._watch(folder, tz, device_name, app_name)
        summary = frames_import(
            root=folder,
            tz=tz,
            device_name=device_name,
            app_name=app_name,
            progress=lambda items: tqdm(items, desc="Importing", unit="file", disable=None),
        )
        sources = ", ".join(f"{count} from {SOURCE_LABELS[source]}" for source, count in summary.timestamp_sources.items())
        self.stdout.write(f"Imported {folder} (times without an offset read in {tz}; times: {sources or 'none'})")
        self.stdout.write(f"  created:            {summary.created}")
        self.stdout.write(f"  already there:      {summary.existing}")
        self.stdout.write(f"  duplicates skipped: {summary.duplicates}")
        self.stdout.write(f"  failed:             {len(summary.failed)}")
        for failure in summary.failed:
            self.stdout.write(f"    {failure.file}: {failure.reason}")
        if summary.created:
            self.stdout.write(
                f"OCR of the {summary.created} new frames is queued: it runs in the background while "
                "`manage.py serve` is running; they become searchable as it finishes."
            )

    def _watch(self, folder: Path, tz, device_name, app_name) -> None:
        self.stdout.write(f"Watching {folder} for screenshots (times without an offset read in {tz}); Ctrl-C stops.")
        try:
            for event in folder_watch(root=folder, tz=tz, device_name=device_name, app_name=app_name or ""):
                if event.status == "failed":
                    self.stdout.write(f"failed    {event.relpath}: {event.reason}")
                else:
                    self.stdout.write(f"{event.status:<9} {event.relpath} (frame {event.frame_id})")
                self.stdout.flush()
        except KeyboardInterrupt:
            self.stdout.write("Stopped watching.")
