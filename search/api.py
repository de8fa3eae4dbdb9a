from django.http import HttpRequest
from ninja import Router

from myrecall.inputs import NoQuery
from myrecall.schemas import responses
from myrecall.tools import route_add
from search.schemas import StatusOut
from search.status import index_status
from search.tools import SEARCH

router = Router(tags=["search"])

route_add(router, SEARCH)


@router.get("/status", response=responses({200: StatusOut}))
def status(request: HttpRequest, query: NoQuery):
    """How far indexing has come: frames by OCR state; keyword index rows; vectors; for each
    index the oldest frame not yet searchable through it (and how long it has waited); the
    embedding model, the vector backend and whether it answers; each device heard from in the
    last day, with when its last frame was taken and its capture client's latest report; what
    the memory takes on disk (images, database, indexes), in all and per day, and what keeping
    fewer days would free."""
    return index_status()
