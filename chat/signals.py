from django.dispatch import Signal

# Answers are being erased (frames they drew on are being deleted): sent inside that transaction,
# so later apps erase what they keep of those answers' turns (an agent's stored tool calls).
# kwargs: message_ids (list of int). A receiver returns a dict of counts by kind.
answers_erasing = Signal()
