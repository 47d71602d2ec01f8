"""The 2025 surface of the tools through the MCP Python SDK: titles and
annotations, output schemas with structured results the SDK validates,
and the complete result of a shortened answer as a resource.

`ClientSession.call_tool` validates `structuredContent` against the tool's
`outputSchema` (listed first) for every result that is not an error; for an
error (isError) it does not, so the tests call the SDK's own
`validate_tool_result` on those.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from conftest import HANDSHAKE, MODERN, figure, headline_of
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

HANGING = "tests/test_hang.py::test_hangs_with_stubborn_child"
# A budget no answer here reaches: the whole JSON, to compare with.
WHOLE = {"format": "json", "max_tokens": 1_000_000}
RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602
STATUSES = {"success", "failure", "no_tests", "interrupted", "error", "timeout", "crash", "cancelled"}


def markdown_of(result: CallToolResult) -> str:
    """The text block (the first content block; a resource link may follow)."""
    assert result.content and result.content[0].type == "text", result
    return result.content[0].text


def links_of(result: CallToolResult) -> list[Any]:
    return [c for c in result.content if c.type == "resource_link"]


async def call(conn, tool: str, args: dict[str, Any]) -> CallToolResult:
    """Calls the tool; the SDK validates a result's structuredContent."""
    result = await conn.session.call_tool(tool, args)
    assert result.structured_content is not None, result
    if result.is_error:
        await conn.session.validate_tool_result(tool, result)
    return result


def failing_cases_project(make_project, cases: int = 1200, every: int = 12):
    """One parametrized test of `cases` cases, all but every `every`th failing."""
    return make_project(
        "many_failing_cases",
        {
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "tests/test_many.py": (
                "import pytest\n\n\n"
                f"@pytest.mark.parametrize('n', range({cases}))\n"
                "def test_case(n):\n"
                f"    assert n % {every} == 0\n"
            ),
        },
    )


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
async def test_tools_have_titles_honest_annotations_and_output_schemas(project, connect, protocol):
    with anyio.fail_after(20):
        async with connect(project("one_failure"), protocol=protocol) as conn:
            listed = await conn.session.list_tools()
    tools = {t.name: t for t in listed.tools}
    run, discover = tools["execute_tests"], tools["discover_tests"]
    assert (run.title, discover.title) == ("Run pytest tests", "List pytest tests")
    hints = lambda t: (  # noqa: E731
        t.annotations.read_only_hint,
        t.annotations.destructive_hint,
        t.annotations.idempotent_hint,
        t.annotations.open_world_hint,
    )
    assert hints(run) == (False, False, False, False), run.annotations
    assert hints(discover) == (True, False, True, False), discover.annotations
    for tool in (run, discover):
        schema = tool.output_schema
        assert schema["type"] == "object", schema
        assert set(schema["properties"]["status"]["enum"]) == STATUSES, schema
        assert "$ref" not in json.dumps(schema), schema
    assert {"status", "summary", "failures", "collection_errors"} <= set(run.output_schema["required"])
    assert {"status", "count", "tests"} <= set(discover.output_schema["required"])
    wire = json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools], separators=(",", ":"))
    figure(f"tools/list ({protocol}): {len(wire):,} bytes of JSON (o200k tokens: cargo test --test tools_list)")


async def test_the_instructions_say_how_to_get_more_detail(project, connect):
    with anyio.fail_after(20):
        async with connect(project("one_failure")) as conn:
            pass
    (instructions,) = [m["result"]["instructions"] for m in conn.received if "instructions" in m.get("result", {})]
    for hint in ("node_ids", "last_failed", "max_tokens", "structuredContent", "pytest-mcp://runs/<n>"):
        assert hint in instructions, (hint, instructions)


async def test_a_mixed_run_and_a_discovery_have_structured_results(project, connect):
    with anyio.fail_after(90):
        async with connect(project("mixed")) as conn:
            markdown = await call(conn, "execute_tests", {})
            as_json = await call(conn, "execute_tests", WHOLE)
            found = await call(conn, "discover_tests", {})
            found_json = await call(conn, "discover_tests", WHOLE)
    # The text is what `format` asked for; the structure is the same.
    text = markdown_of(markdown)
    headline_of(text, markdown.structured_content)
    data = json.loads(markdown_of(as_json))
    for result in (markdown, as_json):
        s = result.structured_content
        assert not result.is_error and not links_of(result), result
        assert s["status"] == "failure" and s["exit_code"] == 1, s
        assert "truncated" not in s, s
        expected = {k: v for k, v in data["summary"].items() if k != "duration"}
        assert s["summary"] == expected, (s["summary"], data["summary"])
        # Every failing test is in exactly one group, named by its id.
        problems = [t["node_id"] for t in data["tests"] if t["outcome"] in ("failed", "error")]
        assert sum(g["count"] for g in s["failures"]) == len(problems), s["failures"]
        named = [i for g in s["failures"] for i in g["node_ids"]]
        assert sorted(named) == sorted(problems), (named, problems)
        for g in s["failures"]:
            assert g["kind"] in ("failed", "error", "setup error", "teardown error"), g
            assert g["message"] and ":" in g.get("at", ":"), g
    assert any(g["kind"] != "failed" for g in s["failures"]), s["failures"]

    listing = json.loads(markdown_of(found_json))
    for result in (found, found_json):
        d = result.structured_content
        assert d["status"] == "success" and d["exit_code"] == 0, d
        assert d["count"] == listing["count"] == data["summary"]["total"], (d, listing["count"])
        assert [t["node_id"] for t in d["tests"]] == [t["node_id"] for t in listing["tests"]]
    headline_of(markdown_of(found), found.structured_content)


async def test_a_timeout_has_a_structured_result(project, connect, reaper):
    root = project("runner_hang")
    reaper(root)
    with anyio.fail_after(40):
        async with connect(root) as conn:
            # 8 s: room for pytest to reach the hanging test on a loaded machine.
            result = await call(conn, "execute_tests", {"timeout": 8})
    assert result.is_error is True, result
    s = result.structured_content
    headline_of(markdown_of(result), s)
    assert s["status"] == "timeout" and "exit_code" not in s, s
    assert HANGING in s["error"] and "timeout of 8 seconds" in s["error"], s
    assert s["summary"]["passed"] == 1 and s["failures"] == [], s


async def test_hundreds_of_failures_have_a_structured_result(project, connect):
    with anyio.fail_after(90):
        async with connect(project("root_causes")) as conn:
            result = await call(conn, "execute_tests", {})
            data = json.loads(markdown_of(await call(conn, "execute_tests", WHOLE)))
    s = result.structured_content
    failing = [t["node_id"] for t in data["tests"] if t["outcome"] in ("failed", "error")]
    assert len(failing) >= 400 and s["summary"]["failed"] + s["summary"]["errors"] == len(failing), s
    assert s["failures"][0]["count"] >= 400, s["failures"][0]
    counted = sum(g["count"] for g in s["failures"])
    # A few ids per group; `more` counts the tests they do not name.
    assert "truncated" not in s and all(len(g["node_ids"]) <= 5 for g in s["failures"]), s
    unnamed = sum(g.get("more", 0) for g in s["failures"])
    ids = [i for g in s["failures"] for i in g["node_ids"]]
    # An id names a test, or every case of a parametrized function.
    named = [t for t in failing if any(t == i or t.startswith(i + "[") for i in ids)]
    assert counted == len(failing) and len(named) + unnamed == len(failing), (counted, len(named), unnamed)
    assert any(i.endswith("::test_parse_amount") for i in ids), ids
    # The Markdown answer, for clients that show a model only the structure.
    assert s["markdown"] == markdown_of(result), s["markdown"]
    figure(
        f"root_causes ({len(failing)} failures): structuredContent {len(json.dumps(s)):,} bytes, "
        f"{len(s['failures'])} groups, {len(ids)} ids, Markdown {len(markdown_of(result)):,} bytes"
    )


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
async def test_a_shortened_answer_links_its_complete_result(make_project, connect, protocol):
    """1,100 failing cases: at the default budget the answer is whole (five
    ids named, `more` counting the rest) and nothing is kept; within 200
    tokens it is shortened, and the whole ADR-006 result is a resource,
    linked and named in the structured result."""
    root = failing_cases_project(make_project)
    with anyio.fail_after(90):
        async with connect(root, protocol=protocol) as conn:
            roomy = await call(conn, "execute_tests", {})
            result = await call(conn, "execute_tests", {"max_tokens": 200})
            listed = await conn.session.list_resources()
            (link,) = links_of(result)
            read = await conn.session.read_resource(link.uri)
            with pytest.raises(MCPError) as missing:
                await conn.session.read_resource("pytest-mcp://runs/99")
    whole_answer = roomy.structured_content
    assert not links_of(roomy) and "truncated" not in whole_answer, whole_answer
    (group,) = whole_answer["failures"]
    assert group["count"] == 1100 and len(group["node_ids"]) == 5 and group["more"] == 1095, group
    s = result.structured_content
    assert s["summary"]["failed"] == 1100 and s["summary"]["passed"] == 100, s["summary"]
    # 200 tokens hold the text or the structured fields, not both: the
    # fields name the group (as the text does) and carry no Markdown.
    (group,) = s["failures"]
    assert group["count"] == 1100 and group["node_ids"][0] == "tests/test_many.py::test_case[1]", group
    assert "markdown" not in s, s
    assert link.uri == s["full_result"] == "pytest-mcp://runs/1", (link, s.get("full_result"))
    assert link.mime_type == "application/json", link
    assert [r.uri for r in listed.resources] == [link.uri], listed
    (contents,) = read.contents
    assert contents.mime_type == "application/json", contents
    whole = json.loads(contents.text)
    assert len(whole["tests"]) == whole["summary"]["total"] == 1200, whole["summary"]
    assert sum(t["outcome"] == "failed" for t in whole["tests"]) == 1100
    assert whole["exit_code"] == 1 and "1100 failed" in whole["text_output"], sorted(whole)
    # A Markdown call does not keep pytest-json-report's own document.
    assert whole["json_report"] is None, sorted(whole["json_report"])
    assert link.size == len(contents.text.encode()), (link.size, len(contents.text))
    # The 2026 revision says invalid params where 2025's said "not found".
    expected_code = RESOURCE_NOT_FOUND if protocol == HANDSHAKE else INVALID_PARAMS
    assert missing.value.error.code == expected_code, missing.value.error
    assert "does not exist" in missing.value.error.message, missing.value.error
    figure(
        f"1,100 failing cases ({protocol}): structuredContent {len(json.dumps(s)):,} bytes "
        f"({len(group['node_ids'])} ids named at the default budget), complete result {link.size:,} bytes"
    )


async def test_a_shortened_markdown_or_json_answer_links_its_complete_result(project, connect):
    """root_causes' 1,000 failures within 300 tokens: the Markdown (600
    tokens in full) is shortened and links the whole ADR-006 result; so is
    the JSON, whose kept result still has pytest-json-report's document."""
    with anyio.fail_after(120):
        async with connect(project("root_causes")) as conn:
            markdown = await call(conn, "execute_tests", {"max_tokens": 300})
            as_json = await call(conn, "execute_tests", {"format": "json", "max_tokens": 300})
            reads = [await conn.session.read_resource(links_of(r)[0].uri) for r in (markdown, as_json)]
            listed = await conn.session.list_resources()
    wholes = [json.loads(r.contents[0].text) for r in reads]
    assert [links_of(r)[0].uri for r in (markdown, as_json)] == ["pytest-mcp://runs/1", "pytest-mcp://runs/2"]
    # Newest first.
    assert [r.uri for r in listed.resources] == ["pytest-mcp://runs/2", "pytest-mcp://runs/1"], listed
    shortened = json.loads(markdown_of(as_json))
    assert shortened["truncated"]["max_tokens"] == 300, shortened["truncated"]
    assert "Shortened to fit 300 tokens" in markdown_of(markdown), markdown_of(markdown)
    for whole, result in zip(wholes, (markdown, as_json)):
        s = result.structured_content
        assert len(whole["tests"]) == whole["summary"]["total"] == s["summary"]["total"] > 1000
        failed = sum(t["outcome"] == "failed" for t in whole["tests"])
        assert failed == s["summary"]["failed"], (failed, s["summary"])
        assert s["truncated"]["max_tokens"] == 300 and s["full_result"] == links_of(result)[0].uri, s
    # Within 300 tokens the text lists all 5 groups, one line each; the
    # Markdown the structured result could carry beside its fields would
    # list 2, so its fields name the 5 instead, and it carries none. The
    # JSON's keeps the largest first.
    md = markdown.structured_content
    assert [g["count"] for g in md["failures"]] == [400, 350, 250, 50, 1], md
    assert "markdown" not in md, md
    assert as_json.structured_content["failures"][0]["count"] == 400, as_json.structured_content
    assert wholes[0]["json_report"] is None and wholes[1]["json_report"]["tests"], sorted(wholes[1])
    figure(
        f"root_causes within 300 tokens: Markdown {len(markdown_of(markdown)):,} bytes, "
        f"JSON {len(markdown_of(as_json)):,} bytes; complete results {reads[0].contents[0].text.__len__():,} "
        f"and {reads[1].contents[0].text.__len__():,} bytes"
    )
