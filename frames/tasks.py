from django_tasks import task

from frames.services import frame_ocr_run


@task(queue_name="ocr")
def frame_ocr(frame_id: int) -> str:
    return frame_ocr_run(frame_id=frame_id)
