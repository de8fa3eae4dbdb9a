"""A headless KDE Plasma session on Wayland (Debian 12's KWin 5.27: `kwin_wayland --virtual`, no
GPU, no screen, OpenGL compositing on Mesa's llvmpipe) with the ScreenCast portal (xdg-desktop-portal
and its KDE backend, started by D-Bus when asked), PipeWire and WirePlumber, and real GTK windows,
for the capture client's KDE tests.

What a login gives Plasma is made here, as in tests.capture.gnome: a stand-in system bus and a
session bus, the session run as tests.capture.sway's account when root, the capture client run as
that user too (the portal shares the screen with programs of that user only) with Debian's
python3 on the venv's packages.

The test drives the desktop as a person would: clicks in the portal's "Screen Sharing" dialog
through KWin's fake input protocol (tests/capture/kde_input.py, run as the session's user: KWin
offers the protocol only to a client whose executable it can read, and only with
KWIN_WAYLAND_NO_PERMISSION_CHECKS=1, which also lets any client of this session, the capture
client too, bind KWin's other restricted protocols). Which window KWin says is active comes from a
KWin script loaded over D-Bus (org.kde.KWin /Scripting), which calls this harness's own D-Bus
connection whenever the active window or its caption changes.

Known limit of KWin 5.27's virtual backend: a monitor's screen cast (portal source type 1) starts
and gets its PipeWire node, but KWin sends no frame on it (the virtual outputs never report a
repaint, which 5.27's screen cast waits for); a window's screen cast does get frames."""

import json
import os
import shutil
import subprocess
import threading
import time

from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

from tests.capture.gnome import BUS_CONFIG
from tests.capture.session import REPO, UserSession


WAYLAND = "wayland-kde"
SIZE = (1920, 1080)
KWIN = DBusAddress("/Scripting", bus_name="org.kde.KWin", interface="org.kde.kwin.Scripting")
SCRIPT_NAME = "myrecall-tests-active"
REPORT_PATH, REPORT_INTERFACE = "/org/myrecall/KdeTest", "org.myrecall.KdeTest"
PORTAL_APP = "org.freedesktop.impl.portal.desktop.kde"  # the dialog window's app id (resourceClass)
KEY_ESC = 1
# Where xdg-desktop-portal-kde 5.27's "Screen Sharing" dialog puts its parts, from its frame's top
# left corner (656x536 at (632, 272) on a 1920x1080 monitor, as it opens: centred on the first).
# Its cards are a grid of two columns: "Full Workspace" first when there are several monitors,
# then "New Virtual Output", then each monitor (no title: a virtual output has no model name).
# A card is toggled by a click anywhere on it; the second row is half hidden, its top is clicked.
# "Allow restoring on future sessions" is ticked when it opens: not clicked.
CARD_X, CARD_Y = (169, 463), (238, 418)
DIALOG = {"share": (517, 511), "cancel": (605, 511)}


class Kde(UserSession):
    def __init__(self, *, monitors: int = 1):
        """monitors: 1920x1080 each, side by side (KWin names them Virtual-0, Virtual-1...)."""
        self.monitors = monitors
        super().__init__("myrecall-kde-")
        self.active_window: dict | None = None
        self._lock = threading.Lock()  # the listener thread writes active_window
        self.listener = self.bus = None
        self._reported = False
        self._setup_files()
        self.session_bus = f"unix:path={self.dir}/bus"
        base = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir), "XDG_RUNTIME_DIR": str(self.dir),
            "LANG": "C.UTF-8", "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "KDE", "KDE_FULL_SESSION": "true",
            "KDE_SESSION_VERSION": "5", "WAYLAND_DISPLAY": WAYLAND, "QT_QPA_PLATFORM": "wayland", "GDK_BACKEND": "wayland",
            "DBUS_SESSION_BUS_ADDRESS": self.session_bus, "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={self.dir}/system_bus_socket",
            "KWIN_WAYLAND_NO_PERMISSION_CHECKS": "1", "NO_AT_BRIDGE": "1",
        }
        self.base = base
        try:
            for kind in ("system", "session"):
                self._start(["dbus-daemon", "--nofork", f"--config-file={self.dir}/{kind}.conf"], base)
            self._wait(lambda: (self.dir / "bus").exists() and (self.dir / "system_bus_socket").exists(), "the buses")
            self._start(["pipewire"], base)
            self._start(["wireplumber"], base)
            self.kwin = self._start([str(self.dir / "kwin_wayland"), "--virtual", "--no-lockscreen", "--no-global-shortcuts",
                                     "--no-kactivities", "--width", str(SIZE[0]), "--height", str(SIZE[1]),
                                     "--output-count", str(monitors), "--socket", WAYLAND], base)
            # What the capture client is given, as a Plasma session gives its apps (no X display here).
            self.env = {key: value for key, value in os.environ.items()
                        if key not in ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK", "XDG_CURRENT_DESKTOP")}
            self.env.update({key: base[key] for key in ("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP",
                                                        "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS", "KDE_FULL_SESSION",
                                                        "KDE_SESSION_VERSION")})
            self.env["XDG_STATE_HOME"] = str(self.dir / "client-state")  # the client's default state dir
            self.bus = self._wait(self._connect, "KWin on the session bus")
            self._wait(lambda: (self.dir / WAYLAND).exists(), "KWin's Wayland socket")
            self._watch_start()
        except BaseException:
            self.close()
            raise

    def _setup_files(self) -> None:
        """The buses' configs, KWin's binary, KDE's settings, all the account's."""
        # No notification server runs here (Plasma's is plasmashell): the portal's notifications
        # (a share started) fail at once, where Plasma's own .service file would start a
        # plasma_waitforname that waits 30 s for a plasmashell and outlives the session. The
        # first folder that names a service is the one the bus uses.
        services = self.dir / "services"
        services.mkdir()
        (services / "org.freedesktop.Notifications.service").write_text(
            "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=/bin/false\n")
        session = f"<servicedir>{services}</servicedir><standard_session_servicedirs/>"
        for kind, name, services in (("system", "system_bus_socket", ""), ("session", "bus", session)):
            (self.dir / f"{kind}.conf").write_text(BUS_CONFIG.format(kind=kind, path=self.dir / name, services=services))
        # Debian's kwin_wayland carries a file capability (cap_sys_resource=ep): where the bounding
        # set lacks it (a container), running it fails with EPERM. A copy carries none.
        shutil.copy(shutil.which("kwin_wayland") or "/usr/bin/kwin_wayland", self.dir / "kwin_wayland")
        config = self.dir / ".config"
        config.mkdir()
        (config / "kdeglobals").write_text("[KDE]\nAnimationDurationFactor=0\n")  # no fading dialogs
        (self.dir / "Pictures").mkdir()  # where the KDE portal saves a screenshot (it fails without it)
        for path in [self.dir, *self.dir.rglob("*")]:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def _connect(self):
        bus = open_dbus_connection(bus=self.session_bus)
        if bus.send_and_get_reply(message_bus.NameHasOwner("org.kde.KWin")).body[0]:
            return bus
        bus.close()
        return None

    def _call(self, address: DBusAddress, method: str, signature: str | None = None, body: tuple = ()):
        reply = self.bus.send_and_get_reply(new_method_call(address, method, signature, body), timeout=10)
        assert reply.header.message_type != MessageType.error, (method, reply.body)
        return reply.body

    def _scripting_call(self, method: str, signature: str, body: tuple):
        """The answer of org.kde.KWin /Scripting, or None while KWin has not put that object on the bus yet."""
        reply = self.bus.send_and_get_reply(new_method_call(KWIN, method, signature, body), timeout=10)
        if reply.header.message_type == MessageType.error and "No such object path" in str(reply.body):
            return None
        assert reply.header.message_type != MessageType.error, (method, reply.body)
        return reply.body

    def _watch_start(self) -> None:
        """A KWin script that calls this harness's own connection with the active window (as JSON)
        at once and whenever it or its caption changes (KWin 5.27's script API)."""
        self.listener = open_dbus_connection(bus=self.session_bus)
        script = self.dir / "active.js"
        script.write_text(ACTIVE_SCRIPT.replace("RECEIVER", json.dumps(self.listener.unique_name)))
        script.chmod(0o644)
        threading.Thread(target=self._listen, name="kde-active", daemon=True).start()
        # KWin takes its bus name before its scripting is on the bus: its loadScript is waited for.
        (number,) = self._wait(lambda: self._scripting_call("loadScript", "ss", (str(script), SCRIPT_NAME)), "KWin's scripting")
        # 5.27 puts a loaded script at /<number> (not /Scripting/Script<number>); run() starts it.
        self._call(DBusAddress(f"/{number}", bus_name="org.kde.KWin", interface="org.kde.kwin.Script"), "run")
        self._wait(lambda: self._reported, "the KWin script's first report", 30)

    def _listen(self) -> None:
        while True:
            try:
                message = self.listener.receive()
            except Exception:  # the connection closed (close()), or the bus went away
                return
            fields = message.header.fields
            if message.header.message_type != MessageType.method_call:
                continue
            if (fields.get(HeaderFields.path), fields.get(HeaderFields.member)) == (REPORT_PATH, "Active"):
                with self._lock:
                    self.active_window = json.loads(message.body[0])
                    self._reported = True
            self.listener.send(new_method_return(message))

    def script_loaded(self, name: str) -> bool:
        """Whether KWin has a script of this name loaded."""
        return bool(self._call(KWIN, "isScriptLoaded", "s", (name,))[0])

    def active(self) -> dict | None:
        """The window KWin says is active, as its script sees it: appId (the Wayland app id: KWin's
        desktopFileName, else its resourceClass), caption, resourceClass, resourceName, pid,
        screen (the monitor's number), frame (x, y, width, height); None when none is."""
        with self._lock:
            return self.active_window

    def focus(self) -> tuple[str, str] | None:
        """The active window's app id and title (None when no window is active)."""
        window = self.active()
        return (window["appId"], window["caption"]) if window else None

    def focus_wait(self, app_id: str, title: str, timeout_s: float = 30) -> None:
        self._wait(lambda: self.focus() == (app_id, title), f"the window {app_id} {title!r}", timeout_s)

    def dialog_answer(self, answer: str, timeout_s: float = 60, monitors: int = 1) -> None:
        """Wait for the KDE portal's "Screen Sharing" dialog, then press Share (the first
        `monitors` monitors chosen, "Allow restoring on future sessions" left ticked) or Cancel."""
        dialog = self._wait(lambda: (window := self.active()) and window["resourceClass"] == PORTAL_APP and window,
                            "the KDE portal's Screen Sharing dialog", timeout_s)
        x, y = dialog["frame"]["x"], dialog["frame"]["y"]
        first = 2 if self.monitors > 1 else 1  # after "Full Workspace" (several monitors) and "New Virtual Output"
        cards = [(x + CARD_X[card % 2], y + CARD_Y[card // 2]) for card in range(first, first + monitors)]
        share, cancel = [(x + dx, y + dy) for dx, dy in (DIALOG["share"], DIALOG["cancel"])]
        places = [*cards, share] if answer == "share" else [cancel]
        time.sleep(0.3)  # its cards are laid out after it shows
        self.input(*[word for place in places for word in ("click", str(place[0]), str(place[1]))])
        self._wait(lambda: (self.active() or {}).get("resourceClass") != PORTAL_APP, "the dialog to close", 30)

    def input(self, *actions: str) -> None:
        """Clicks and keys through KWin's fake input ("click", X, Y, "key", CODE...), as the session's user."""
        done = subprocess.run(["/usr/bin/python3", str(REPO / "tests/capture/kde_input.py"), str(self.dir / WAYLAND), *actions],
                              env={**self.base, "PYTHONDONTWRITEBYTECODE": "1"}, capture_output=True, text=True, timeout=60,
                              **self._as_user())
        assert done.returncode == 0, done.stderr

    def close(self) -> None:
        for connection in (self.listener, self.bus):
            if connection is not None:
                connection.close()
        super().close()


# The KWin script (KWin 5.27's JavaScript API: workspace.activeClient, workspace.clientList(),
# the clientAdded and clientActivated signals, a window's captionChanged; callDBus(service, path,
# interface, method, arguments...)): RECEIVER is the harness's unique name on the session bus.
ACTIVE_SCRIPT = """
function describe(window) {
    if (!window) {
        return "null";
    }
    var frame = window.frameGeometry;
    return JSON.stringify({
        appId: window.desktopFileName || String(window.resourceClass), caption: window.caption,
        resourceClass: String(window.resourceClass), resourceName: String(window.resourceName), pid: window.pid,
        screen: window.screen, frame: {x: frame.x, y: frame.y, width: frame.width, height: frame.height}
    });
}
function report(window) {
    callDBus(RECEIVER, "/org/myrecall/KdeTest", "org.myrecall.KdeTest", "Active", describe(window));
}
function watch(window) {
    window.captionChanged.connect(function () {
        if (window.active) {
            report(window);
        }
    });
}
workspace.clientList().forEach(watch);
workspace.clientAdded.connect(watch);
workspace.clientActivated.connect(report);
report(workspace.activeClient);
"""
