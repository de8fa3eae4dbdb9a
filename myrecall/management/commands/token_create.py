from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from myrecall.services import api_token_create


class Command(BaseCommand):
    help = "Create an API bearer token; it is printed once, as the last line, and only its hash is kept."

    def add_arguments(self, parser):
        parser.add_argument("name", help="What the token is for, e.g. 'laptop-capture'.")
        parser.add_argument("--read-only", action="store_true", help="The token may search and read (GET), and change nothing: no frames sent, nothing deleted, no chat kept.")

    def handle(self, *args, name, read_only, **options):
        # A token may be made before the first `serve`, which is what creates the tables otherwise.
        call_command("migrate", interactive=False, verbosity=0)
        token, raw = api_token_create(name=name, read_only=read_only)
        # A token made in another data dir than the server's is refused (401) with no other clue.
        can = (
            "It is read-only: it can search and read (GET) and change nothing (no frames sent, nothing deleted, no chat kept)."
            if read_only
            else "It can read and change (send frames, delete, change settings, chat)."
        )
        self.stderr.write(
            f"Created token {token.name!r} (id {token.id}) in the data dir {settings.DATA_DIR}: a server started "
            f"with another MYRECALL_DATA_DIR does not know it. {can} It is shown once; keep it:"
        )
        self.stdout.write(raw)
