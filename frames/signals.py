from django.dispatch import Signal

# Sent inside the OCR transaction once a frame's text is final (read or failed
# for good), so later apps (search) can index it without frames importing them.
frame_text_ready = Signal()  # kwargs: frame
