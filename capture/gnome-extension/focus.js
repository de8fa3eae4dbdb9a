/* MyRecall focus, the body of MyRecall's GNOME Shell extension: `bash scripts/capture.sh gnome-extension`
 * (capture/gnome_extension.py) writes it out as extension.js in the form the running GNOME Shell
 * loads: with `imports.gi` and init() for GNOME 43 and 44, as an ES module with `export default`
 * for GNOME 45 and later. Gio, Meta and Shell are GNOME's introspected libraries, imported by that
 * wrapper; nothing of GNOME Shell's own JavaScript is used, which is what changed between the two.
 *
 * On GNOME Wayland no other program may read which window has the focus: this extension tells
 * MyRecall's capture client, on the session bus (gnome-shell's own name, org.gnome.Shell), at
 * /org/myrecall/Focus:
 *   GetFocus() -> (app_id, wm_class, title, x, y, width, height): the focused window ("" when none)
 *   WindowAt(x, y, width, height) -> the same for the window on top whose middle is in that area
 *   Changed(): another window took the focus, or the focused one changed its title. */

const IFACE = `<node><interface name="org.myrecall.Focus">
  <method name="GetFocus">
    <arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/>
    <arg type="i" direction="out"/><arg type="i" direction="out"/><arg type="i" direction="out"/><arg type="i" direction="out"/>
  </method>
  <method name="WindowAt">
    <arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="i" direction="in"/>
    <arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/>
    <arg type="i" direction="out"/><arg type="i" direction="out"/><arg type="i" direction="out"/><arg type="i" direction="out"/>
  </method>
  <signal name="Changed"/>
</interface></node>`;

function describe(window) {
    if (!window)
        return ['', '', '', 0, 0, 0, 0];
    const app = Shell.WindowTracker.get_default().get_window_app(window);
    const frame = window.get_frame_rect();
    return [app ? app.get_id() : '', window.get_wm_class() || '', window.get_title() || '',
        frame.x, frame.y, frame.width, frame.height];
}

class FocusService {
    enable() {
        this._window = null;
        this._titleId = 0;
        this._dbus = Gio.DBusExportedObject.wrapJSObject(IFACE, this);
        this._dbus.export(Gio.DBus.session, '/org/myrecall/Focus');
        this._focusId = global.display.connect('notify::focus-window', () => this._focusChanged());
        this._focusChanged();
    }

    disable() {
        global.display.disconnect(this._focusId);
        this._titleUnwatch();
        this._dbus.unexport();
        this._dbus = null;
    }

    _titleUnwatch() {
        if (this._window && this._titleId)
            this._window.disconnect(this._titleId);
        this._window = null;
        this._titleId = 0;
    }

    _focusChanged() {
        this._titleUnwatch();
        this._window = global.display.focus_window;
        if (this._window)
            this._titleId = this._window.connect('notify::title', () => this._changed());
        this._changed();
    }

    _changed() {
        if (this._dbus)
            this._dbus.emit_signal('Changed', null);
    }

    GetFocus() {
        return describe(global.display.focus_window);
    }

    WindowAt(x, y, width, height) {
        const workspace = global.workspace_manager.get_active_workspace();
        const windows = global.display.sort_windows_by_stacking(
            global.display.get_tab_list(Meta.TabList.NORMAL_ALL, workspace));
        for (const window of windows.reverse()) {  // the top one first
            const frame = window.get_frame_rect();
            const middleX = frame.x + frame.width / 2, middleY = frame.y + frame.height / 2;
            if (!window.minimized && middleX >= x && middleX < x + width && middleY >= y && middleY < y + height)
                return describe(window);
        }
        return describe(null);
    }
}
