"""A headless GNOME session (Debian's gnome-shell 43: `gnome-shell --headless --wayland
--virtual-monitor 1920x1080`, no GPU, no screen) with the ScreenCast portal (xdg-desktop-portal and
its GNOME backend, started by D-Bus when asked), PipeWire and WirePlumber, MyRecall's GNOME Shell
extension enabled, and real GTK windows, for the capture client's GNOME tests.

What a login gives GNOME is made here: a stand-in system bus (a dbus-daemon anyone may use:
gnome-shell will not start without one; logind is not on it) and a session bus. Run by root (CI),
the session belongs to the system account tests.capture.sway makes; the session bus lets root
connect too, so the test may drive the desktop with Mutter's RemoteDesktop (Escape to leave the
overview GNOME starts in, clicks in the Share dialog). The capture client runs as the session's
user, as it does for real: the portal shares the screen with programs of that user only (it reads
the caller's /proc entry). As root that is Debian's python3 on the venv's packages (the venv's
own interpreter is under /root, which the account cannot read)."""

import os
import subprocess
import time

from jeepney import DBusAddress, MatchRule, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

from tests.capture.session import REPO, UserSession

EXTENSION = "myrecall-focus@myrecall.local"

WAYLAND = "wayland-gnome"
SIZE = (1920, 1080)
# Where GNOME 43's Share dialog (xdg-desktop-portal-gnome) puts its parts on a 1920x1080 monitor
# (the first monitor's row; each next one 55 pixels lower). "Remember this selection" is ticked
# when it opens (persist_mode 2): not clicked.
DIALOG = {"monitor": (959, 582), "share": (1172, 429), "cancel": (749, 429)}
ROW_HEIGHT = 55
KEY_ESCAPE = 0xFF1B
BUTTON_LEFT = 0x110  # BTN_LEFT

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>{kind}</type>
  <listen>unix:path={path}</listen>
  <auth>EXTERNAL</auth>
  {services}
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
"""
RD = "org.gnome.Mutter.RemoteDesktop"
SC = "org.gnome.Mutter.ScreenCast"
FOCUS = DBusAddress("/org/myrecall/Focus", bus_name="org.gnome.Shell", interface="org.myrecall.Focus")


class Gnome(UserSession):
    def __init__(self, *, monitors: int = 1):
        """monitors: 1920x1080 each, side by side."""
        super().__init__("myrecall-gnome-")
        for kind, name, services in (("system", "system_bus_socket", ""), ("session", "bus", "<standard_session_servicedirs/>")):
            (self.dir / f"{kind}.conf").write_text(BUS_CONFIG.format(kind=kind, path=self.dir / name, services=services))
        for path in [self.dir, *self.dir.rglob("*")]:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)
        self.session_bus = f"unix:path={self.dir}/bus"
        base = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir), "XDG_RUNTIME_DIR": str(self.dir),
            "LANG": "C.UTF-8", "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "GNOME", "WAYLAND_DISPLAY": WAYLAND,
            "DBUS_SESSION_BUS_ADDRESS": self.session_bus, "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={self.dir}/system_bus_socket",
            "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1",
        }
        try:
            self._extension_install(base)
            for kind in ("system", "session"):
                self._start(["dbus-daemon", "--nofork", f"--config-file={self.dir}/{kind}.conf"], base)
            self._wait(lambda: (self.dir / "bus").exists() and (self.dir / "system_bus_socket").exists(), "the buses")
            subprocess.run(["gsettings", "set", "org.gnome.shell", "enabled-extensions", f"['{EXTENSION}']"],
                           env=base, check=True, timeout=30, **self._as_user())
            self._start(["pipewire"], base)
            self._start(["wireplumber"], base)
            self.shell = self._start(["gnome-shell", "--headless", "--wayland", "--no-x11", "--wayland-display", WAYLAND,
                                      *[option for _ in range(monitors) for option in ("--virtual-monitor", f"{SIZE[0]}x{SIZE[1]}")]],
                                     base)
            # What the capture client is given, as a GNOME session gives its apps (no X display here).
            self.env = {key: value for key, value in os.environ.items()
                        if key not in ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK", "XDG_CURRENT_DESKTOP")}
            self.env.update({key: base[key] for key in ("XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP",
                                                        "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS")})
            self.env["XDG_STATE_HOME"] = str(self.dir / "client-state")  # the restore token's home (the client's default state dir)
            self.base = base
            self.bus = self._wait(self._connect, "gnome-shell and the extension")
            self._wait(lambda: self.focus() is not None, "the extension")
            self.remote = Remote(self.bus)
            self.remote.key(KEY_ESCAPE)  # out of the overview GNOME starts in
        except BaseException:
            self.close()
            raise

    def _extension_install(self, env: dict) -> None:
        """MyRecall's extension installed as the README says (`capture.sh gnome-extension`: the
        client's command), by the session's user, for the gnome-shell here."""
        python, path = self._python()
        done = subprocess.run([python, "-m", "capture", "gnome-extension"], cwd=REPO, env={**env, **path}, capture_output=True,
                              text=True, timeout=60, **self._as_user())
        assert done.returncode == 0 and f"enable {EXTENSION}` and start capture" in done.stdout, done

    def _connect(self):
        bus = open_dbus_connection(bus=self.session_bus)
        if bus.send_and_get_reply(message_bus.NameHasOwner("org.gnome.Shell")).body[0]:
            return bus
        bus.close()
        return None

    def focus(self) -> tuple[str, str] | None:
        """The focused window's app id and title as the extension says (None before it answers)."""
        reply = self.bus.send_and_get_reply(new_method_call(FOCUS, "GetFocus"), timeout=5)
        if reply.header.message_type.name == "error":
            return None
        return reply.body[1], reply.body[2]

    def focus_wait(self, app_id: str, title: str, timeout_s: float = 30) -> None:
        def focused() -> bool:
            if self.focus() == (app_id, title):
                return True
            if time.time() > escape_at[0]:  # still in the overview (an Escape sent as the shell started can be lost)
                self.remote.key(KEY_ESCAPE)
                escape_at[0] = time.time() + 5
            return False

        escape_at = [time.time() + 5]
        self._wait(focused, f"the window {app_id} {title!r}", timeout_s)

    def dialog_answer(self, answer: str, timeout_s: float = 60, monitors: int = 1) -> None:
        """Wait for GNOME's Share dialog, then press Share (the first `monitors` monitors chosen,
        "Remember this selection" left ticked) or Cancel."""
        self._wait(lambda: "portal" in (self.focus() or ("",))[0], "GNOME's Share dialog", timeout_s)  # xdg-desktop-portal-gnome's
        time.sleep(0.5)  # it fades in
        x, y = DIALOG["monitor"]
        places = [(x, y + ROW_HEIGHT * row) for row in range(monitors)] + [DIALOG["share"]] if answer == "share" else [DIALOG["cancel"]]
        for place in places:
            self.remote.click(*place)
            time.sleep(0.3)


class Remote:
    """Keys and clicks through Mutter's RemoteDesktop (a pointer at a place needs a screen cast
    of the monitor linked to the session)."""

    def __init__(self, bus):
        self.bus = bus
        path = self._call(DBusAddress("/org/gnome/Mutter/RemoteDesktop", bus_name=RD, interface=RD), "CreateSession")[0]
        self.session = DBusAddress(path, bus_name=RD, interface=f"{RD}.Session")
        (_, session_id), = self._call(DBusAddress(path, bus_name=RD, interface="org.freedesktop.DBus.Properties"), "Get", "ss",
                                      (f"{RD}.Session", "SessionId"))
        cast = self._call(DBusAddress("/org/gnome/Mutter/ScreenCast", bus_name=SC, interface=SC), "CreateSession", "a{sv}",
                          ({"remote-desktop-session-id": ("s", session_id)},))[0]
        self.stream = self._call(DBusAddress(cast, bus_name=SC, interface=f"{SC}.Session"), "RecordMonitor", "sa{sv}", ("Meta-0", {}))[0]
        rule = MatchRule(type="signal", interface=f"{SC}.Stream", member="PipeWireStreamAdded", path=self.stream)
        self.bus.send_and_get_reply(message_bus.AddMatch(rule))
        with self.bus.filter(rule) as added:
            self._call(self.session, "Start")
            self.bus.recv_until_filtered(added, timeout=30)

    def _call(self, address: DBusAddress, method: str, signature: str | None = None, body: tuple = ()):
        reply = self.bus.send_and_get_reply(new_method_call(address, method, signature, body), timeout=10)
        assert reply.header.message_type.name != "error", (method, reply.body)
        return reply.body

    def key(self, keysym: int) -> None:
        for down in (True, False):
            self._call(self.session, "NotifyKeyboardKeysym", "ub", (keysym, down))

    def click(self, x: float, y: float) -> None:
        self._call(self.session, "NotifyPointerMotionAbsolute", "sdd", (self.stream, float(x), float(y)))
        time.sleep(0.1)
        for down in (True, False):
            self._call(self.session, "NotifyPointerButton", "ib", (BUTTON_LEFT, down))
            time.sleep(0.1)  # a press and a release in the same instant are not a click to every widget
