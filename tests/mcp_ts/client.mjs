// `pytest-mcp serve` through the official TypeScript MCP client
// (@modelcontextprotocol/sdk 1.x), run by tests/mcp_ts.rs.
//
// `Client.callTool` validates a result's structuredContent against the
// tool's outputSchema (cached by `listTools`) with the SDK's own Ajv
// validator, errors (isError) included, and throws when it does not match;
// a result without structuredContent is refused unless it is an error.
// Every scenario here goes through that path, and one check feeds the SDK's
// validator a broken result to show it is strict.
//
// Environment: PYTEST_MCP_BIN (the server), PYTEST_MCP_TEST_PYTHON (the
// interpreter it runs pytest with), PYTEST_MCP_PROJECTS (a directory with
// copies of mixed, many_cases, runner_hang, root_causes and failing_cases).
// Prints one line per check and `ALL OK` at the end; exits 1 on the first
// failure.

import assert from "node:assert/strict";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const BIN = process.env.PYTEST_MCP_BIN;
const PYTHON = process.env.PYTEST_MCP_TEST_PYTHON;
const PROJECTS = process.env.PYTEST_MCP_PROJECTS;
const STATUSES = ["success", "failure", "no_tests", "interrupted", "error", "timeout", "crash", "cancelled"];

/** An initialized client of a server for `projects/<name>`, tools listed. */
async function connect(name) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["serve", "--root", path.join(PROJECTS, name), "--python", PYTHON, "--kill-grace", "0.2"],
    stderr: "ignore",
  });
  const client = new Client({ name: "pytest-mcp-ts-test", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return { client, tools: Object.fromEntries(tools.map((t) => [t.name, t])) };
}

/**
 * The answer's first line, its headline: not empty, and the first line of
 * the Markdown the structured result carries, when it carries it. Its words
 * are not checked (they are worded in one place, src/render/view/status.rs):
 * what it says is checked through structuredContent's status and summary.
 */
function headline(result) {
  const text = result.content[0].text;
  assert.ok(text && text.trim(), `empty answer: ${JSON.stringify(result.content)}`);
  const first = text.split("\n")[0];
  assert.ok(first.trim(), text);
  const carried = result.structuredContent?.markdown;
  if (carried !== undefined) {
    assert.equal(first, carried.split("\n")[0]);
  }
  return first;
}

/** Calls a tool: the SDK validates the structured result, or throws. */
async function call(client, tool, args) {
  const result = await client.callTool({ name: tool, arguments: args });
  assert.ok(result.structuredContent, `${tool}: no structuredContent: ${JSON.stringify(result)}`);
  assert.equal(result.content[0].type, "text");
  return result;
}

async function tools() {
  const { client, tools } = await connect("mixed");
  try {
    const run = tools.execute_tests;
    const discover = tools.discover_tests;
    assert.equal(run.title, "Run pytest tests");
    assert.equal(discover.title, "List pytest tests");
    assert.deepEqual(run.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    assert.deepEqual(discover.annotations, {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    for (const tool of [run, discover]) {
      assert.equal(tool.outputSchema.type, "object");
      assert.deepEqual(tool.outputSchema.properties.status.enum, STATUSES);
    }
    // The SDK's validator refuses what the schema does not describe.
    const validate = new AjvJsonSchemaValidator().getValidator(run.outputSchema);
    const good = { status: "success", summary: { total: 1 }, failures: [], collection_errors: [] };
    assert.ok(validate(good).valid, validate(good).errorMessage);
    for (const bad of [{ ...good, status: "green" }, { ...good, summary: { total: "1" } }, { status: "success" }]) {
      assert.equal(validate(bad).valid, false, JSON.stringify(bad));
    }
    const bytes = Buffer.byteLength(JSON.stringify(Object.values(tools)));
    console.log(`ok tools: titles, annotations, output schemas; tools/list ${bytes} bytes of JSON`);
  } finally {
    await client.close();
  }
}

async function mixedRunAndDiscovery() {
  const { client } = await connect("mixed");
  try {
    const run = await call(client, "execute_tests", {});
    const s = run.structuredContent;
    assert.equal(s.status, "failure");
    headline(run);
    assert.equal(s.exit_code, 1);
    assert.equal(s.summary.total, s.summary.passed + s.summary.failed + s.summary.skipped + s.summary.errors);
    const grouped = s.failures.reduce((n, g) => n + g.count, 0);
    assert.equal(grouped, s.summary.failed + s.summary.errors);
    const json = await call(client, "execute_tests", { format: "json" });
    const data = JSON.parse(json.content[0].text);
    assert.equal(data.summary.total, s.summary.total);
    console.log(`ok mixed run: ${s.summary.total} tests, ${s.failures.length} failure groups`);

    const found = await call(client, "discover_tests", {});
    const d = found.structuredContent;
    assert.equal(d.status, "success");
    assert.equal(d.count, s.summary.total);
    assert.ok(d.tests.length > 0 && d.tests.every((t) => t.node_id.includes("::")));
    console.log(`ok discovery (mixed): ${d.count} tests in ${d.tests.length} functions`);
  } finally {
    await client.close();
  }
}

async function discoveryOfManyCases() {
  const { client } = await connect("many_cases");
  try {
    const found = await call(client, "discover_tests", { format: "json" });
    const d = found.structuredContent;
    const listing = JSON.parse(found.content[0].text);
    assert.equal(d.count, listing.count);
    assert.deepEqual(
      d.tests.map((t) => t.node_id),
      listing.tests.map((t) => t.node_id),
    );
    assert.ok(d.tests.some((t) => t.cases > 100), JSON.stringify(d.tests));
    console.log(`ok discovery (many_cases): ${d.count} tests in ${d.tests.length} functions`);
  } finally {
    await client.close();
  }
}

async function timeout() {
  const { client } = await connect("runner_hang");
  try {
    // 8 s: room for pytest to reach the hanging test on a loaded machine
    // (2 s was once too little beside other CI jobs).
    const result = await call(client, "execute_tests", { timeout: 8 });
    assert.equal(result.isError, true);
    const s = result.structuredContent;
    assert.equal(s.status, "timeout");
    headline(result);
    assert.match(s.error, /timeout of 8 seconds while running tests\/test_hang\.py::/);
    assert.equal(s.summary.passed, 1);
    console.log(`ok timeout: isError with structured status ${s.status}`);
  } finally {
    await client.close();
  }
}

async function hundredsOfFailures() {
  const { client } = await connect("root_causes");
  try {
    const result = await call(client, "execute_tests", {});
    const s = result.structuredContent;
    assert.ok(s.summary.failed >= 400, JSON.stringify(s.summary));
    const grouped = s.failures.reduce((n, g) => n + g.count, 0);
    assert.equal(grouped, s.summary.failed + s.summary.errors);
    const bytes = Buffer.byteLength(JSON.stringify(s));
    console.log(`ok root_causes: ${s.summary.failed} failed in ${s.failures.length} groups, structuredContent ${bytes} bytes`);

    // Within 300 tokens the Markdown is shortened, and links the whole result.
    const short = await call(client, "execute_tests", { max_tokens: 300 });
    assert.match(short.content[0].text, /Shortened to fit 300 tokens/);
    assert.equal(short.structuredContent.truncated.max_tokens, 300);
    const [link] = short.content.filter((c) => c.type === "resource_link");
    const whole = JSON.parse((await client.readResource({ uri: link.uri })).contents[0].text);
    assert.equal(whole.tests.length, s.summary.total);
    console.log(`ok root_causes within 300 tokens: ${link.uri} reads back ${whole.tests.length} tests`);
  } finally {
    await client.close();
  }
}

async function shortenedAnswer() {
  const { client } = await connect("failing_cases");
  try {
    // At the default budget the answer is whole: five ids, `more` the rest.
    const roomy = await call(client, "execute_tests", {});
    const group = roomy.structuredContent.failures[0];
    assert.equal(group.node_ids.length, 5, JSON.stringify(group));
    assert.equal(group.more, 1095, JSON.stringify(group));
    assert.equal(roomy.structuredContent.markdown, roomy.content[0].text);
    assert.ok(!roomy.structuredContent.truncated, JSON.stringify(roomy.structuredContent));
    // Within 300 tokens it is shortened, and the complete result is kept.
    const result = await call(client, "execute_tests", { max_tokens: 300 });
    const s = result.structuredContent;
    assert.ok(s.truncated, JSON.stringify(s));
    assert.equal(s.truncated.max_tokens, 300);
    const links = result.content.filter((c) => c.type === "resource_link");
    assert.equal(links.length, 1, JSON.stringify(result.content));
    const [link] = links;
    assert.equal(s.full_result, link.uri);
    assert.equal(link.mimeType, "application/json");
    const listed = await client.listResources();
    assert.deepEqual(
      listed.resources.map((r) => r.uri),
      [link.uri],
    );
    assert.equal(listed.resources[0].mimeType, "application/json");
    const read = await client.readResource({ uri: link.uri });
    const whole = JSON.parse(read.contents[0].text);
    assert.equal(whole.tests.length, whole.summary.total);
    assert.equal(whole.summary.failed, s.summary.failed);
    assert.equal(
      whole.tests.filter((t) => t.outcome === "failed").length,
      s.summary.failed,
    );
    await assert.rejects(client.readResource({ uri: "pytest-mcp://runs/99" }), /does not exist/);
    console.log(
      `ok shortened answer: ${link.uri} reads back ${whole.tests.length} tests (${read.contents[0].text.length} bytes)`,
    );
  } finally {
    await client.close();
  }
}

for (const scenario of [tools, mixedRunAndDiscovery, discoveryOfManyCases, timeout, hundredsOfFailures, shortenedAnswer]) {
  try {
    await scenario();
  } catch (error) {
    console.log(`FAILED ${scenario.name}: ${error.stack ?? error}`);
    process.exit(1);
  }
}
console.log("ALL OK");
