from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"

    def ready(self):
        from frames.signals import frame_text_ready
        from myrecall.worker_hooks import worker_startup_register
        from search.selectors import index_layout_note
        from search.services import frame_index_on_text_ready

        frame_text_ready.connect(frame_index_on_text_ready, dispatch_uid="search.frame_index")
        worker_startup_register(index_layout_note)
