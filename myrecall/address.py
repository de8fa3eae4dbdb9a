"""Where this data dir's web server answers. `serve` records it as it starts, so that a process on
the same data dir that a client starts apart (the MCP server over stdio) gives links that open,
whatever port `serve --port` or scripts/run.sh's PORT chose."""

from django.conf import settings

ADDRESS_FILE = "server-url"
DEFAULT_URL = "http://127.0.0.1:8000"  # `serve`'s own default
ANY_ADDRESS = {"0.0.0.0", "::", ""}  # bound to every interface: this machine reaches it at 127.0.0.1


def server_url_record(*, host: str, port: int) -> None:
    """Record the address `serve` answers at (written whole, then moved in place)."""
    host = "127.0.0.1" if host in ANY_ADDRESS else host
    host = f"[{host}]" if ":" in host else host
    path = settings.DATA_DIR / ADDRESS_FILE
    part = path.with_name(path.name + ".part")
    part.write_text(f"http://{host}:{port}\n", encoding="utf-8")
    part.replace(path)


def server_url() -> str:
    """The address `serve` last recorded on this data dir, else its default."""
    try:
        recorded = (settings.DATA_DIR / ADDRESS_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        recorded = ""
    return recorded or DEFAULT_URL
