"""A desktop window for capture tests: a Tk window (WM_CLASS class "Memowin", or the class
given second) that shows the lines and title written to a JSON file, re-read every 100 ms, in a
large font, and takes the input focus. python tests/capture/window.py STATE.json [CLASS]"""

import json
import sys
import tkinter as tk
from pathlib import Path

state = Path(sys.argv[1])
root = tk.Tk(className=sys.argv[2] if len(sys.argv) > 2 else "memowin")
root.geometry("+0+0")
label = tk.Label(root, text="", font=("DejaVu Sans", 40), justify="left", bg="white", fg="black", padx=30, pady=30)
label.pack(fill="both", expand=True)
shown = None


def refresh():
    global shown
    try:
        data = json.loads(state.read_text())
    except (OSError, ValueError):
        data = None
    if data and data != shown:
        shown = data
        if root.title() != data.get("title", ""):  # set again, the same title would still be a property change
            root.title(data.get("title", ""))
        label.configure(text="\n".join(data.get("lines", [])))
        root.geometry(f"{data.get('width', 1000)}x{data.get('height', 500)}+0+0")
        root.focus_force()
    root.after(100, refresh)


root.after(0, refresh)
root.mainloop()
