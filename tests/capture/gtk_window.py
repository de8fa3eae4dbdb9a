"""A GTK 3 window on Wayland for the GNOME capture tests (Debian's python3-gi: run with
/usr/bin/python3, not the venv): app id APP_ID (its Wayland app id), showing the lines and title
written to a JSON file, re-read every 100 ms, in a large font, black on white.
/usr/bin/python3 tests/capture/gtk_window.py APP_ID STATE.json"""

import json
import sys
from pathlib import Path

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import GLib  # noqa: E402

app_id, state = sys.argv[1], Path(sys.argv[2])
GLib.set_prgname(app_id)  # GTK 3 gives the Wayland surface the program's name as its app id: before GTK starts
from gi.repository import Gdk, Gio, Gtk  # noqa: E402

app = Gtk.Application(application_id=app_id, flags=Gio.ApplicationFlags.NON_UNIQUE)  # each process its own window
shown = None


def activate(app):
    window = Gtk.ApplicationWindow(application=app)
    window.set_default_size(1400, 700)
    label = Gtk.Label(xalign=0, yalign=0)
    box = Gtk.EventBox()
    box.override_background_color(Gtk.StateFlags.NORMAL, Gdk.RGBA(1, 1, 1, 1))
    box.add(label)
    window.add(box)

    def refresh():
        global shown
        try:
            data = json.loads(state.read_text())
        except (OSError, ValueError):
            data = None
        if data and data != shown:
            shown = data
            window.set_title(data["title"])
            text = "\n".join(GLib.markup_escape_text(line) for line in data["lines"])
            label.set_markup(f'<span font="DejaVu Sans 40" foreground="black">{text}</span>')
            window.present()
        return True

    refresh()
    window.show_all()
    GLib.timeout_add(100, refresh)


app.connect("activate", activate)
app.run([])
