"""python -m capture [run|pause|resume|status] — see README "Capture"."""

import argparse
import logging
import os
import sys
from pathlib import Path
from urllib.parse import urlparse

from capture.client import ALL, EXIT_USAGE, FOCUSED, TOKEN_HOW, Client, Config, Fatal, pause_file, state_dir_default, state_dir_private
from capture.desktop import DesktopError, desktop_kind
from capture.gnome_extension import UUID, ExtensionError, install, shell_version
from capture.private import file_touch, token_read
from capture.spool import Spool
from myrecall.privacy_rules import PrivacyRules

# Where `bash scripts/run.sh` serves on this machine: the address used when none is given.
LOCAL_SERVER = "http://127.0.0.1:8000"


def monitor_choice(text: str) -> int | str:
    if text in (ALL, FOCUSED):
        return text
    if text.isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r}: give all, focused or a monitor's number (1 the first)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bash scripts/capture.sh",
        description="Record this desktop (X11, or sway, GNOME, KDE Plasma or another wlroots compositor on Wayland) into MyRecall: "
        "a screenshot of each monitor as it changes, with the window's app and title. `pause` and `resume` (or SIGUSR1) stop and restart capture without restarting it.",
    )
    parser.add_argument("command", nargs="?", default="run", choices=["run", "pause", "resume", "status", "gnome-extension"],
                        help="run (default); pause, resume: capture without restarting it; status: paused or not, what waits in "
                        "the spool; gnome-extension: install MyRecall's GNOME Shell extension for the GNOME here.")
    parser.add_argument("--url", default=os.environ.get("MYRECALL_URL"),
                        help=f"The server (env MYRECALL_URL; default {LOCAL_SERVER}, a server on this machine).")
    parser.add_argument("--token-file", type=Path, help="Read the API token from this file (made yours alone if it is not).")
    parser.add_argument("--token", help="The API token; better MYRECALL_TOKEN or --token-file, as every account on this "
                        "machine can see a command line.")
    parser.add_argument("--interval", type=float, default=3.0, help="Seconds between screenshots (default 3).")
    parser.add_argument("--report-every", type=float, default=60.0, help="Seconds between the reports of what was sent, "
                        "skipped and spooled: a line on stderr, also sent to the server for its timeline (default 60).")
    parser.add_argument("--monitor", type=monitor_choice, default=ALL, help="all (default): a frame of each monitor "
                        "as it changes; focused: of the one with the focused window; 1 the first monitor, 2 the second...; "
                        "0 all as one image (X11).")
    parser.add_argument("--device", default=None, help="The device name frames are stored under (default: host name).")
    parser.add_argument("--state-dir", type=Path, default=state_dir_default(), help="Spool, pause flag and last rules.")
    parser.add_argument("--spool-mb", type=int, default=500, help="The spool's size limit; the oldest frames go first past it.")
    parser.add_argument("--display", default=None, help="Record this X display (default: the Wayland session, when "
                        "there is one, else $DISPLAY).")
    parser.add_argument("--exclude-app", action="append", default=[], help="Never capture this app (also on top of the server's rules).")
    parser.add_argument("--exclude-window", action="append", default=[], help="Never capture a window title matching this.")
    return parser


def gnome_extension_install() -> int:
    """Write MyRecall's GNOME Shell extension for the GNOME Shell here into the user's extensions."""
    data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local/share")
    try:
        version = shell_version()
        folder = install(data_home / "gnome-shell/extensions", version)
    except (ExtensionError, OSError) as exc:
        print(f"capture: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"MyRecall's extension for GNOME Shell {version} is in {folder}. GNOME finds a new extension only as it starts: "
          f"log out and in, then run `gnome-extensions enable {UUID}` and start capture.")
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s capture: %(message)s", datefmt="%H:%M:%S")
    if args.command == "pause":
        file_touch(pause_file(state_dir_private(args.state_dir)))
        print("capture paused; `bash scripts/capture.sh resume` goes on")
        return 0
    if args.command == "resume":
        pause_file(args.state_dir).unlink(missing_ok=True)
        print("capture resumed")
        return 0
    if args.command == "gnome-extension":
        return gnome_extension_install()
    if args.command == "status":
        spool = Spool(args.state_dir / "spool", max_bytes=args.spool_mb * 2**20)
        state = "paused" if pause_file(args.state_dir).exists() else "not paused"
        print(f"{state}; {spool.count()} frame(s) waiting in {spool.dir} ({spool.bytes() / 2**20:.1f} MB)")
        return 0

    if args.url is None:
        args.url = LOCAL_SERVER
        logging.info("no --url (nor MYRECALL_URL): sending to %s, where a MyRecall server on this machine listens", LOCAL_SERVER)
    url = urlparse(args.url)
    if url.scheme not in ("http", "https") or not url.netloc:
        print(f"capture: --url {args.url!r} is not an http(s) address such as {LOCAL_SERVER}", file=sys.stderr)
        return EXIT_USAGE
    if args.token_file:
        try:
            token = token_read(args.token_file)
        except OSError as exc:
            print(f"capture: cannot read the token file {args.token_file}: {exc.strerror}", file=sys.stderr)
            return EXIT_USAGE
    elif args.token is not None:
        token = args.token.strip()
        logging.warning("a token given with --token can be read by every account on this machine (`ps`): "
                        "use --token-file or MYRECALL_TOKEN")
    else:
        token = os.environ.get("MYRECALL_TOKEN", "").strip()
    if not token:
        print(f"capture: no token for {args.url}. Make one on the server with "
              f"`.venv/bin/python manage.py token_create <this machine>`; {TOKEN_HOW}.", file=sys.stderr)
        return EXIT_USAGE
    if args.interval < 0.5:
        print("capture: --interval must be at least 0.5 seconds", file=sys.stderr)
        return EXIT_USAGE
    if not 1 <= args.report_every <= 86400:
        print("capture: --report-every must be from 1 second to 86400 (a day)", file=sys.stderr)
        return EXIT_USAGE
    kind = desktop_kind(display=args.display)
    if kind is None:
        print("capture: no desktop the client knows is set: an X display ($DISPLAY), a sway session ($WAYLAND_DISPLAY and "
              "$SWAYSOCK), a GNOME or KDE Wayland session ($WAYLAND_DISPLAY, and GNOME or KDE in $XDG_CURRENT_DESKTOP) "
              "or another wlroots one ($WAYLAND_DISPLAY: Hyprland, river, labwc...). See README \"Capture\".", file=sys.stderr)
        return EXIT_USAGE
    config = Config(
        url=args.url,
        token=token,
        interval_s=args.interval,
        report_s=args.report_every,
        monitor=args.monitor,
        state_dir=args.state_dir,
        spool_bytes=args.spool_mb * 2**20,
        display=args.display,
        desktop=kind,
        local_rules=PrivacyRules(apps=tuple(args.exclude_app), windows=tuple(args.exclude_window)),
    )
    if args.device:
        config.device_name = args.device
    try:
        return Client(config).run()
    except Fatal as exc:
        print(f"capture: {exc}", file=sys.stderr)
        return exc.code
    except (DesktopError, ValueError) as exc:
        print(f"capture: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
