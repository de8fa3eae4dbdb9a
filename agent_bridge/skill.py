"""The Pi agent's skill (skills/myrecall-search/SKILL.md), written from MyRecall's read tools
(myrecall/tools.py) and agent_bridge/skill_template.md: each tool with a REST route becomes an
operation Pi calls with curl, with its parameters and their limits; the search tool's parameters
are the skill's input_schema. `manage.py skill_write` writes it; a test checks it is current."""

import json
from pathlib import Path

from django.conf import settings

from myrecall.tools import LONG_ENUM, Tool, tools

TEMPLATE = Path(__file__).with_name("skill_template.md")
API_PREFIX = "/api/v1"


def skill_path() -> Path:
    return Path(settings.BASE_DIR) / "skills" / "myrecall-search" / "SKILL.md"


def _plain(prop: dict) -> dict:
    """A property's schema without the null of an optional value."""
    options = [p for p in prop.get("anyOf", []) if p.get("type") != "null"]
    if len(options) == 1:
        return {**{k: v for k, v in prop.items() if k != "anyOf"}, **options[0]}
    return prop


def _kind(prop: dict) -> str:
    if 0 < len(prop.get("enum", ())) <= LONG_ENUM:
        return " | ".join(str(value) for value in prop["enum"])
    return {"integer": "integer", "number": "number", "string": "text", "boolean": "true or false"}.get(prop.get("type"), "value")


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value}"


def _limits(prop: dict) -> list[str]:
    said = []
    if "minimum" in prop and "maximum" in prop and prop["maximum"] < 10**9:
        said.append(f"{_number(prop['minimum'])} to {_number(prop['maximum'])}")
    elif "maximum" in prop and prop["maximum"] < 10**9:
        said.append(f"at most {_number(prop['maximum'])}")
    if "maxLength" in prop:
        said.append(f"up to {prop['maxLength']} characters")
    if prop.get("default") not in (None, ""):
        said.append(f"default {prop['default']}")
    return said


def _parameters(tool: Tool) -> list[str]:
    schema = tool.params.model_json_schema()
    required = set(schema.get("required", []))
    lines = [f"- `{pid.name}` (in the path, required): {pid.description}" for pid in tool.path_ids]
    for name, raw in schema.get("properties", {}).items():
        prop = _plain(raw)
        notes = ["required"] if name in required else []
        notes += [_kind(prop), *_limits(prop)]
        description = raw.get("description") or prop.get("description") or ""
        lines.append(f"- `{name}` ({', '.join(notes)})" + (f": {description}" if description else ""))
    return lines


def _curl(tool: Tool) -> str:
    path = tool.path
    for pid in tool.path_ids:
        path = path.replace("{" + pid.name + "}", pid.name.upper())
    # Built from words: the command users see is the rendered one in SKILL.md (tests run it).
    lines = [" ".join(["curl", "-s", "-G", f'"$MYRECALL_URL{API_PREFIX}{path}"', "-H", '"Authorization: Bearer $MYRECALL_TOKEN"'])]
    lines += [f'  --data-urlencode "{name}={value}"' for name, value in tool.example.items()]
    return " \\\n".join(lines)


def _operation(tool: Tool) -> str:
    return "\n".join(
        [
            f"### {tool.title}: `GET {API_PREFIX}{tool.path}`",
            "",
            tool.description,
            "",
            "```bash",
            _curl(tool),
            "```",
            "",
            "Parameters:",
            "",
            *_parameters(tool),
        ]
    )


def _input_schema(tool: Tool) -> str:
    schema = tool.params.model_json_schema()
    lines = ["  type: object", "  properties:"]
    for name, raw in schema.get("properties", {}).items():
        prop = _plain(raw)
        kept = {key: prop[key] for key in ("type", "enum", "minimum", "maximum", "maxLength", "default") if prop.get(key) is not None}
        if len(kept.get("enum", ())) > LONG_ENUM:
            del kept["enum"]
        if raw.get("description") or prop.get("description"):
            kept["description"] = raw.get("description") or prop.get("description")
        lines.append(f"    {name}: {json.dumps(kept, ensure_ascii=False)}")
    lines.append(f"  required: {json.dumps(schema.get('required', []))}")
    return "\n".join(lines)


def skill_render() -> str:
    offered = [tool for tool in tools() if tool.path is not None]
    search = next(tool for tool in offered if tool.name == "search")
    ordered = [search, *(tool for tool in offered if tool is not search)]
    text = TEMPLATE.read_text(encoding="utf-8")
    return text.replace("{input_schema}", _input_schema(search)).replace(
        "{operations}", "\n\n".join(_operation(tool) for tool in ordered)
    )
