"""MyRecall's capture client for Linux desktops (X11, sway): screenshots with the focused window's app
and title, sent to a MyRecall server, spooled on disk while the server cannot be reached."""

# Sent with each report (POST /api/v1/capture/report), so the server can tell which program reports.
CLIENT_NAME = "myrecall-capture/1"
