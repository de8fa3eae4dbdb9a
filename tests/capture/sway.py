"""A headless sway session (Debian's sway, `WLR_BACKENDS=headless WLR_RENDERER=pixman`: no GPU, no
screen) with real Wayland windows (`foot` terminals showing a text file), for the capture
client's sway tests. sway refuses to run as root: run by root (CI), the session belongs to a
system account made for it on first use; the client, run by root, may still connect to its
sockets. Its folder is a fresh one under /tmp (the test's own tmp_path is root's alone)."""

import json
import os
import pwd
import shlex
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

USER = "myrecall-sway"
FONT = "DejaVu Sans Mono:size=26"


def account() -> pwd.struct_passwd:
    """The account sway runs as: this one, or (run as root) USER, made if missing. Run as root,
    the account is also let through the folders above the checkout (repo_reachable)."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    repo_reachable()
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        # Not checked: another test process may have made it meanwhile; getpwnam says whether it is there.
        made = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                               "--shell", "/usr/sbin/nologin", USER], capture_output=True, text=True)
        try:
            return pwd.getpwnam(USER)
        except KeyError:
            raise RuntimeError(f"cannot make the account {USER} for sway: {made.stderr}") from None


def repo_reachable() -> None:
    """The session's account runs the client from the checkout (its files are readable by all, as
    git makes them), which it reaches only through folders others may pass: a clone inside
    `mktemp -d` (0700) is not. Those folders are given others' right to pass (x), not to list."""
    repo = Path(__file__).resolve().parents[2]
    for folder in [repo, *repo.parents]:
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH:
            folder.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)


class Sway:
    def __init__(self, *, outputs=((1280, 800),), border: str = "normal"):
        """border "none": a window's title is not drawn, so a new title alone changes no pixel."""
        self.user = account()
        self.dir = Path(tempfile.mkdtemp(prefix="myrecall-sway-"))  # its XDG_RUNTIME_DIR: 0700, the account's
        os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        config = self.dir / "config"
        lines, x = [f"default_border {border}", "font monospace 10", "focus_on_window_activation focus"], 0
        for number, (width, height) in enumerate(outputs, 1):
            lines.append(f"output HEADLESS-{number} resolution {width}x{height} position {x} 0")
            x += width
        config.write_text("\n".join(lines) + "\n")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir), "XDG_RUNTIME_DIR": str(self.dir), "LANG": "C.UTF-8",
            "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_HEADLESS_OUTPUTS": str(len(outputs)),
        }
        self.log = open(self.dir / "sway.log", "w")
        self.proc = subprocess.Popen(
            ["sway", "-c", str(config)], env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
            **({"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []} if os.geteuid() == 0 else {}),
        )
        self.ipc = self.wayland = ""
        deadline = time.time() + 30
        while not self._ready():
            if self.proc.poll() is not None or time.time() > deadline:
                self.close()
                raise RuntimeError(f"sway did not start: {(self.dir / 'sway.log').read_text()[-2000:]}")
            time.sleep(0.1)
        # What the capture client is given, as a sway session gives its apps (no X display).
        self.env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK")}
        self.env.update(XDG_RUNTIME_DIR=str(self.dir), WAYLAND_DISPLAY=self.wayland, SWAYSOCK=self.ipc)

    def _ready(self) -> bool:
        ipc = next(self.dir.glob("sway-ipc.*.sock"), None)
        wayland = next((p for p in self.dir.glob("wayland-*") if not p.name.endswith(".lock")), None)
        if ipc is None or wayland is None:
            return False
        self.ipc, self.wayland = str(ipc), wayland.name
        return subprocess.run(["swaymsg", "-s", self.ipc, "-t", "get_version"], capture_output=True).returncode == 0

    def command(self, command: str) -> None:
        done = subprocess.run(["swaymsg", "-s", self.ipc, command], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, (command, done.stdout, done.stderr)

    def focused(self) -> tuple[str, str]:
        """The app id and title sway says have the focus."""
        done = subprocess.run(["swaymsg", "-s", self.ipc, "-t", "get_tree"], capture_output=True, text=True, timeout=30)
        nodes = [json.loads(done.stdout)]
        while nodes:
            node = nodes.pop()
            if node.get("focused"):
                return node.get("app_id") or "", node.get("name") or ""
            nodes += node.get("nodes", []) + node.get("floating_nodes", [])
        return "", ""

    def window(self, app_id: str, title: str, *lines: str) -> None:
        """A foot terminal (black on white, large) with this app id and title, showing the lines and
        whatever `write` adds after them; it takes the focus."""
        text = self.dir / f"{app_id}.txt"
        text.write_text("".join(f"{line}\n" for line in lines))
        text.chmod(0o644)
        command = ["foot", f"--app-id={app_id}", f"--title={title}", f"--font={FONT}", "-o", "colors.background=ffffff",
                   "-o", "colors.foreground=000000", "tail", "-n", "+1", "-f", str(text)]
        self.command("exec " + shlex.join(command))

    def write(self, app_id: str, *lines: str, title: str | bytes | None = None) -> None:
        """More lines in the app's window; a new title first when one is given (a terminal escape;
        bytes are set as they are, invalid UTF-8 too)."""
        with open(self.dir / f"{app_id}.txt", "ab") as text:
            if title is not None:
                text.write(b"\033]2;" + (title if isinstance(title, bytes) else title.encode()) + b"\007")
            text.write("".join(f"{line}\n" for line in lines).encode())

    def signal(self, program: str, signum: int) -> None:
        """Send the signal to the session's processes running this program (`swaylock`)."""
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and proc.stat().st_uid == self.user.pw_uid and (proc / "comm").read_text().strip() == program:
                    os.kill(int(proc.name), signum)
            except OSError:
                continue  # ended meanwhile

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
