from django.dispatch import Signal

# Sent inside the OCR transaction once a frame's text is final (read or failed
# for good), so later apps (search) can index it without frames importing them.
frame_text_ready = Signal()  # kwargs: frame

# Frames are being deleted: sent inside the transaction that deletes their rows, before the
# rows go, so later apps remove what they keep of them in the database (index rows, quotes).
# kwargs: frames (list of frames.services.FrameGone). A receiver returns a dict of counts by
# kind ({"fts_rows": 12}) that joins the deletion's report.
frames_deleting = Signal()

# The rows of these frames are gone (committed): remove what lives outside the database (the
# vector index). Sent again when an interrupted deletion is finished, so a receiver must be
# idempotent; one that raises leaves the work owed for the next try. Same kwargs and returns.
frames_deleted = Signal()

# Every row of a deletion is gone: erase what the deleted rows may leave behind in the stores a
# later app owns (the keyword index's older segments still hold their words until merged).
# kwargs: start (datetime or None: from the first frame), end (datetime, not included), removed
# (the deletion's counts by kind, as the receivers of frames_deleting reported them). Sent again
# when an interrupted deletion is finished.
frames_erasing = Signal()

# What a stored frame says about its context changed (its browser_url was filled from the browser
# extension's report of its tab): sent inside the transaction that changed the rows, so that a later
# app rewrites what it keeps of them (the keyword index holds the URL). kwargs: frame_ids (list of int).
frames_context_changed = Signal()
