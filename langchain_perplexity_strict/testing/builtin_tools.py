"""What the emulator's server-side tools return: people/finance search, the sandbox, MCP servers and connectors.

Pure functions of the request, so the same request always gets the same items.
Shapes are the published output items (`perplexity.generated.api`):
`SearchResultsOutputItemOutput`, `SandboxResultsOutputItemOutput` and the
sandbox file operations, `ShareFileOutputItemOutput`, `McpListToolsOutputItemOutput`,
`ToolSearchOutputItemOutput`, `McpCallOutputItemOutput`,
`McpApprovalRequestOutputItemOutput`. Choices the schema leaves open are listed
in docs/perplexity-rules.md ("Where the schema is silent").
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from langchain_perplexity_strict.testing.errors import invalid

# The emulator's prices per invocation, in USD (Perplexity publishes its own on its pricing page).
TOOL_PRICES = {
    "web_search": 0.005,
    "people_search": 0.005,
    "finance_search": 0.005,
    "image_search": 0.005,
    "fetch_url": 0.0005,
    "sandbox": 0.01,
    "mcp": 0.0,
    "connector": 0.0,
}
# Every emulated MCP server offers these two tools (chosen here), plus any `allowed_tools` it names.
DEFAULT_MCP_TOOLS = (
    {"name": "search", "description": "Search the server's documents.", "read_only": True},
    {"name": "write", "description": "Write a document on the server.", "read_only": False},
)
_MCP_INPUT_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
SANDBOX_DIR = "/home/user"


def digest(*parts: str) -> str:
    """A short stable id fragment for `parts`."""
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12]


def vertical_results(kind: str, question: str) -> list[dict[str, Any]]:
    """`people_search` / `finance_search` records: `SearchResultOutput`s (the schema has no item of their own)."""
    slug = re.sub(r"[^a-z0-9]+", "-", question.lower()).strip("-")[:40] or "query"
    host, label = ("people.example.com", "Profile") if kind == "people_search" else ("finance.example.com", "Quote")
    return [
        {
            "id": n,
            "url": f"https://{host}/{slug}/{n}",
            "title": f"{label} {n} for {question[:60]}",
            "snippet": f"{label} {n} about {question[:80]}.",
            "date": "2026-11-01",
            "source": "web",
        }
        for n in (1, 2)
    ]


# ---- the sandbox ---------------------------------------------------------------------------------


def sandbox_items(question: str) -> tuple[list[dict[str, Any]], str]:
    """One sandbox session: run code, then one of each file operation, then share the file.

    Returns the output items and a sentence for the answer text.
    """
    seed = digest("sandbox", question)
    call = [f"call_sbx{n}_{seed}" for n in range(8)]
    path = f"{SANDBOX_DIR}/answer.md"
    words = len(question.split())
    content = f"# Answer\n\nThe question has {words} words.\n"
    size = len(content.encode())
    code = f"text = {question!r}\nprint(len(text.split()))"
    stdout = f"{words}\n"
    items: list[dict[str, Any]] = [
        {
            "type": "sandbox_results",
            "call_id": call[0],
            "code": code,
            "language": "python",
            "container_id": f"cntr_{seed}",
            "status": "completed",
            "results": [{"stdout": stdout, "stderr": "", "exit_code": 0, "duration_ms": 12, "status": "completed"}],
        },
        {"type": "sandbox_write_file", "call_id": call[1], "file_path": path, "size_bytes": size},
        {
            "type": "sandbox_read_file",
            "call_id": call[2],
            "file_path": path,
            "content": content,
            "start_line": 1,
            "total_lines": content.count("\n"),
        },
        {"type": "sandbox_edit_file", "call_id": call[3], "file_path": path, "message": "1 replacement made"},
        {"type": "sandbox_grep", "call_id": call[4], "files": [path], "count": 1, "truncated": False},
        {"type": "sandbox_glob", "call_id": call[5], "files": [path], "count": 1, "truncated": False},
        {
            "type": "sandbox_apply_patch",
            "call_id": call[6],
            "added": [f"{SANDBOX_DIR}/notes.txt"],
            "modified": [path],
            "deleted": [],
        },
        {
            "type": "share_file",
            "call_id": call[7],
            "file_id": f"file_{seed}",
            "filename": "answer.md",
            "size_bytes": size,
            "url": f"https://files.example.com/file_{seed}/answer.md",
        },
    ]
    return items, f"The sandbox counted {words} words and shared answer.md."


# ---- MCP servers and connectors --------------------------------------------------------------------


def server_tools(tool: dict[str, Any]) -> list[dict[str, Any]]:
    """The tools an emulated MCP server (or connector) lists (`McpToolDefOutput`), `allowed_tools` applied."""
    known = {t["name"]: t for t in DEFAULT_MCP_TOOLS}
    names = tool.get("allowed_tools") or list(known)
    out = []
    for name in names:
        spec = known.get(name, {"name": name, "description": f"The {name} tool.", "read_only": True})
        out.append(
            {
                "name": name,
                "description": spec["description"],
                "input_schema": _MCP_INPUT_SCHEMA,
                "annotations": {"read_only": spec["read_only"]},
            }
        )
    return out


def needs_approval(tool: dict[str, Any], definition: dict[str, Any]) -> bool:
    """Whether calling `definition` on `tool` waits for the app's approval.

    `require_approval`: "always" / "never", or filters `{"always": F, "never": F}`
    where `F` matches by `tool_names` or by the tool's `read_only` annotation.
    `never` wins over `always`; absent (or matched by neither filter) means
    "always", as OpenAI's Responses API does (chosen here: Perplexity does not say).
    """
    rule = tool.get("require_approval")
    if rule is None or rule == "always":
        return True
    if rule == "never":
        return False

    def matches(spec: dict[str, Any] | None) -> bool:
        if not spec:
            return False
        if definition["name"] in (spec.get("tool_names") or []):
            return True
        read_only = spec.get("read_only")
        return read_only is not None and definition["annotations"]["read_only"] == read_only

    return not matches(rule.get("never"))


def _label(tool: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    extra = {"connector_id": tool["id"]} if tool["type"] == "connector" else {}
    return str(tool["server_label"]), extra


def mcp_items(tool: dict[str, Any], question: str) -> tuple[list[dict[str, Any]], list[str], bool]:
    """One MCP server's part of an answer: its tool listing, then a call or an approval request.

    Returns (items, outputs for the answer text, whether the answer waits for approval).
    `defer_loading: true` lists the tools through `tool_search_output` (chosen
    here: the published item for tools loaded on demand) instead of `mcp_list_tools`.
    """
    label, extra = _label(tool)
    seed = digest("mcp", label, question)
    definitions = server_tools(tool)
    items: list[dict[str, Any]] = []
    if tool.get("defer_loading"):
        functions = [
            {"type": "function", "name": d["name"], "description": d["description"], "parameters": d["input_schema"]}
            for d in definitions
        ]
        items.append(
            {
                "type": "tool_search_output",
                "id": f"ts_{seed}",
                "call_id": f"call_ts_{seed}",
                "arguments": json.dumps({"query": question[:100]}),
                "execution": "server",
                "status": "completed",
                "tools": [
                    {
                        "type": "namespace",
                        "name": label,
                        "description": f"Tools of the {label} server.",
                        "tools": functions,
                    }
                ],
            }
        )
    else:
        items.append(
            {"type": "mcp_list_tools", "id": f"mcpl_{seed}", "server_label": label, "tools": definitions, **extra}
        )
    lowered = question.lower()
    chosen = next((d for d in definitions if d["name"].lower() in lowered), definitions[0])
    arguments = json.dumps({"query": question[:100]})
    if needs_approval(tool, chosen):
        items.append(
            {
                "type": "mcp_approval_request",
                "id": f"mcpr_{seed}",
                "server_label": label,
                "name": chosen["name"],
                "arguments": arguments,
                **extra,
            }
        )
        return items, [], True
    call = mcp_call(label, chosen["name"], arguments, f"mcp_{seed}", extra)
    items.append(call)
    return items, [call["output"]], False


def mcp_call(label: str, name: str, arguments: str, item_id: str, extra: dict[str, Any]) -> dict[str, Any]:
    """`McpCallOutputItemOutput`: the server's answer is a pure function of the call."""
    query = json.loads(arguments).get("query", "")
    output = f"{name} on {label} answered: {query}"
    return {
        "type": "mcp_call",
        "id": item_id,
        "server_label": label,
        "name": name,
        "arguments": arguments,
        "output": output,
        **extra,
    }


def approval_answers(items: list[dict[str, Any]], first_input: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The trailing `mcp_approval_response` items of a conversation, each with the request it answers.

    A request is found in the conversation (a stored response's, through
    `previous_response_id`, or sent back in `input`); an unknown
    `approval_request_id` is a 400 naming the input item (`first_input`: the
    index in `items` of the request's first `input` item).
    """
    requests = {i.get("id"): i for i in items if i.get("type") == "mcp_approval_request"}
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if item.get("type") != "mcp_approval_response":
            if "role" in item or item.get("type") == "message":
                break
            continue
        request = requests.get(item["approval_request_id"])
        if request is None:
            where = f"input[{index - first_input}].approval_request_id"
            raise invalid(
                "invalid_request",
                f"{where}: no mcp_approval_request with id {item['approval_request_id']!r} in this conversation",
                where,
            )
        pairs.insert(0, (item, request))
    return pairs


def resolve(item: dict[str, Any], request: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """An approval answered: the `mcp_call` and its output (approved), or no call and a refusal (denied)."""
    extra = {"connector_id": request["connector_id"]} if request.get("connector_id") else {}
    if not item["approve"]:
        reason = f" ({item['reason']})" if item.get("reason") else ""
        name, label = request["name"], request["server_label"]
        return [], f"The call to {name} on {label} was not approved{reason}, so it was not made"
    call = mcp_call(
        request["server_label"],
        request["name"],
        request["arguments"],
        "mcp_" + request["id"].removeprefix("mcpr_"),
        extra,
    )
    call["approval_request_id"] = request["id"]
    return [call], str(call["output"])


def tool_details(invocations: dict[str, int]) -> tuple[dict[str, Any], float]:
    """`usage.tool_calls_details` (per tool: `invocation`, `cost_usd`) and the total tool cost."""
    details = {
        name: {"invocation": count, "cost_usd": round(count * TOOL_PRICES.get(name, 0.0), 8)}
        for name, count in invocations.items()
        if count
    }
    return details, round(sum(d["cost_usd"] for d in details.values()), 8)
