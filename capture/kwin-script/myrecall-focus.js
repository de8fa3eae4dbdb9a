/* MyRecall focus: a KWin script (KDE Plasma 5.27 and 6) that tells MyRecall's capture client which
 * window has the focus and which windows are shown, since on KDE's Wayland session no other
 * program may read them. The client loads it into KWin while it runs (org.kde.KWin /Scripting
 * loadScript, with SERVICE replaced by the client's own name on the session bus) and unloads it
 * when it stops: nothing is installed.
 *
 * At its start, and whenever another window takes the focus, a window's title changes, or a window
 * is shown, hidden, opened or closed, it calls the client:
 *   org.myrecall.KWin.Update(state): state is JSON, {"focus": WINDOW or null, "windows": [WINDOW...]}
 *   with the shown windows bottom to top, each {"app", "title", "x", "y", "width", "height"}
 *   (Plasma 5.27 does not give scripts the stacking order: there, the windows in the order they
 *   last had the focus, the focused one last). */
const SERVICE = "MYRECALL_SERVICE";
const PATH = "/org/myrecall/KWin";
const INTERFACE = "org.myrecall.KWin";

function activeWindow() {
    return workspace.activeWindow !== undefined ? workspace.activeWindow : workspace.activeClient;  // Plasma 6 : 5
}

function allWindows() {
    return workspace.windowList ? workspace.windowList() : workspace.clientList();
}

function describe(window) {
    if (!window)
        return null;
    const frame = window.frameGeometry;
    // The Wayland app id (an X11 app's class), as sway and GNOME name apps; else its .desktop file's name.
    return {app: String(window.resourceClass || window.desktopFileName || ""), title: String(window.caption || ""),
            x: Math.round(frame.x), y: Math.round(frame.y), width: Math.round(frame.width), height: Math.round(frame.height)};
}

function onCurrentDesktop(window) {
    if (window.onAllDesktops)
        return true;
    if (typeof window.desktop === "number")  // Plasma 5: the desktop's number (-1 all)
        return window.desktop === workspace.currentDesktop || window.desktop === -1;
    if (window.desktops !== undefined)  // Plasma 6: its desktops
        return window.desktops.indexOf(workspace.currentDesktop) >= 0;
    return true;
}

function shown(window) {
    return window.normalWindow && !window.minimized && !window.hidden && onCurrentDesktop(window);
}

// The windows that had the focus, the most recent last (the stacking order where KWin gives none).
const recent = [];

function remember(window) {
    const at = recent.indexOf(window);
    if (at >= 0)
        recent.splice(at, 1);
    if (window)
        recent.push(window);
}

function forget(window) {
    const at = recent.indexOf(window);
    if (at >= 0)
        recent.splice(at, 1);
}

function bottomToTop() {
    if (workspace.stackingOrder)
        return workspace.stackingOrder;
    const windows = allWindows(), order = [];
    for (let i = 0; i < windows.length; i++) {
        if (recent.indexOf(windows[i]) < 0)
            order.push(windows[i]);
    }
    return order.concat(recent);
}

function send() {
    const order = bottomToTop();
    const windows = [];
    for (let i = 0; i < order.length; i++) {
        if (order[i] && shown(order[i]))
            windows.push(describe(order[i]));
    }
    const active = activeWindow();
    callDBus(SERVICE, PATH, INTERFACE, "Update", JSON.stringify({focus: active && active.normalWindow ? describe(active) : null,
                                                                  windows: windows}));
}

function watch(window) {
    if (!window)
        return;
    window.captionChanged.connect(send);
    if (window.minimizedChanged)
        window.minimizedChanged.connect(send);
}

const added = workspace.windowAdded || workspace.clientAdded;
const removed = workspace.windowRemoved || workspace.clientRemoved;
const activated = workspace.windowActivated || workspace.clientActivated;
added.connect(function (window) { watch(window); send(); });
removed.connect(function (window) { forget(window); send(); });
activated.connect(function (window) { remember(window); send(); });
if (workspace.currentDesktopChanged)
    workspace.currentDesktopChanged.connect(send);
const windows = allWindows();
for (let i = 0; i < windows.length; i++)
    watch(windows[i]);
remember(activeWindow());
send();
