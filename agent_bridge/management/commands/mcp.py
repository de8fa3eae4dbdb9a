from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection

from agent_bridge.mcp_server import stdio_run
from myrecall.address import DEFAULT_URL, server_url
from myrecall.services import api_token_authenticate


class Command(BaseCommand):
    help = (
        "Serve MyRecall to an MCP client (Claude Desktop, Cursor...) over stdin and stdout: the client starts this "
        "command. The token file holds a MyRecall token (make one with token_create NAME --read-only)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--token-file", required=True, type=Path, help="A file holding the token (only the token).")
        parser.add_argument(
            "--url",
            help="Where MyRecall's web server answers, for the links to frames in answers (default: where `serve` last "
            f"started on this data dir, else {DEFAULT_URL}).",
        )

    def handle(self, *args, token_file: Path, url: str | None, **options):
        try:
            raw = token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise CommandError(f"Cannot read the token file {token_file}: {exc.strerror}.") from exc
        try:
            known = api_token_authenticate(raw=raw)
        except DatabaseError as exc:
            if connection.vendor == "sqlite":
                where, fix = settings.DATA_DIR, "start MyRecall once on this data dir (or set MYRECALL_DATA_DIR to the one it uses)"
            else:
                where = f"the database DATABASE_URL names ({connection.settings_dict['NAME']} on {connection.settings_dict['HOST'] or 'localhost'})"
                fix = "start MyRecall once on it (or set DATABASE_URL to the one MyRecall uses)"
            raise CommandError(
                f"There is no MyRecall database in {where} ({exc}): {fix}, make a token there, then start this again."
            ) from exc
        if known is None:
            raise CommandError(
                f"The token in {token_file} is not a MyRecall token of this data dir: make one with "
                "`.venv/bin/python manage.py token_create NAME --read-only` and put it in the file."
            )
        stdio_run(origin=url or server_url(), read_only=known.read_only)
