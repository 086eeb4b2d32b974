"""The official Python MCP client (the `mcp` package) against a Bourdon server.

Usage: python-mcp-client.py <cases.json> stdio <command> [args...]
       python-mcp-client.py <cases.json> http <url>

Lists the tools (name, title, annotations, whether an outputSchema is declared), then calls
each case of cases.json ([{"name": ..., "arguments": {...}}]) with ClientSession.call_tool,
which validates structured content against the tool's outputSchema for every result that is
not an error. Prints one JSON report on stdout: the tools, and per call whether it is an
error, its first text item (what a Python peer reads) and any exception the client raised.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def exercise(session: ClientSession, cases: list) -> dict:
    await session.initialize()
    listed = await session.list_tools()
    tools = []
    for tool in listed.tools:
        annotations = tool.annotations.model_dump(exclude_none=True, by_alias=True) if tool.annotations else None
        tools.append({
            "name": tool.name,
            "title": tool.title,
            "annotations": annotations,
            "has_output_schema": tool.output_schema is not None,
        })
    calls = []
    for case in cases:
        try:
            result = await session.call_tool(case["name"], case["arguments"])
            texts = [item.text for item in result.content if getattr(item, "type", None) == "text"]
            calls.append({
                "name": case["name"],
                "is_error": bool(result.is_error),
                "text": texts[0] if texts else None,
                "notice": texts[1] if len(texts) > 1 else None,
                "structured": result.structured_content,
                "exception": None,
            })
        except Exception as error:  # the client's own validation failure is what the test looks for
            calls.append({"name": case["name"], "exception": f"{type(error).__name__}: {error}"})
    return {"tools": tools, "calls": calls}


async def main() -> None:
    cases = json.load(open(sys.argv[1], encoding="utf-8"))
    mode = sys.argv[2]
    if mode == "stdio":
        params = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                report = await exercise(session, cases)
    else:
        async with streamable_http_client(sys.argv[3]) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                report = await exercise(session, cases)
    print(json.dumps(report))


asyncio.run(main())
