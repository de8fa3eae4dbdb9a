from django.core.management.base import BaseCommand, CommandError

from agent_bridge.skill import skill_path, skill_render


class Command(BaseCommand):
    help = "Write the Pi agent's skill (skills/myrecall-search/SKILL.md) from MyRecall's read tools; --check only says whether it is current."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="Change nothing; fail when the skill is not what the tools say.")

    def handle(self, *args, check: bool = False, **options):
        path, text = skill_path(), skill_render()
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if check:
            if current != text:
                raise CommandError(f"{path} is not current: run `.venv/bin/python manage.py skill_write`.")
            self.stdout.write(f"{path} is current.")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.stdout.write(f"Wrote {path} ({'unchanged' if current == text else 'changed'}).")
