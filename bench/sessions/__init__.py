"""Working sessions captured from real programs on a virtual screen (Xvfb), for bench/storage.py:
what the pages show (pages.py), how each session is driven and captured (capture.py), and which
sessions there are (manifest.json)."""
