from django.http import HttpRequest

from myrecall.timezones import request_timezone


def timezone(request: HttpRequest) -> dict:
    """`zone`, the name of the timezone times are shown in, for the header of every page (error
    pages too, which no view of ours renders)."""
    return {"zone": request_timezone(request).key}
