import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from agent_bridge.mcp_server import http_route  # noqa: E402
from agent_bridge.routing import websocket_urlpatterns as agent_websockets  # noqa: E402
from frames.routing import websocket_urlpatterns as frames_websockets  # noqa: E402
from myrecall.middleware import SameOriginWebsocket  # noqa: E402
from myrecall.worker_hooks import web_startup_hooks  # noqa: E402

for hook in web_startup_hooks:
    hook()

# Each app's websocket routes, in pipeline order.
websocket_urlpatterns = [*frames_websockets, *agent_websockets]

application = ProtocolTypeRouter(
    {
        "http": http_route(django_asgi_app),  # /mcp: the MCP server; the rest: Django
        "websocket": SameOriginWebsocket(AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))),
    }
)
