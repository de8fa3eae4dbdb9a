"""The order of background work: task priorities, highest first (django-tasks' database backend
claims the highest priority first and, within one, the first enqueued first). Kept in one place so
the whole order reads at once; each app enqueues its tasks at one of these.

What is on the screen now comes first: the newest frame each capture device sent as it was taken is
read (OCR, and with it the keyword index) before anything else, then embedded; the backlog (imports,
the watched folder, resends from a client's spool, rebuilds, retries) drains in the slots left, and
a level that goes TASK_TURN_S without a turn gets one (myrecall.worker.Turns), so none waits forever."""

# A task of a level that went TASK_TURN_S without a turn: taken before anything else.
TURN = 100
# OCR of the newest frame each capture device sent as it was taken.
OCR_LIVE = 20
# Embedding new text, newest frames first (search.tasks.vectors_embed); what is left owed after a
# batch (a burst that outran the worker, a restore) goes on at BACKLOG until new text comes.
VECTORS = 10
# OCR of a live frame that a newer frame of its device overtook: after the newest, before the backlog.
OCR_OVERTAKEN = 5
# Everything else, first enqueued first: imports, the watched folder, resends, OCR retries, the rest
# of the vectors owed, housekeeping.
BACKLOG = 0
