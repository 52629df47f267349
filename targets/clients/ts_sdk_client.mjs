// The client driver of target ts-sdk-client: the TypeScript SDK's `Client` (@modelcontextprotocol/sdk, pinned in
// targets/package-lock.json, installed by `make targets` into .cache/targets/npm), driven through one scenario.
//
// The contract is the one conformance/fixtures/client.py keeps (the official suite's way of running clients):
//   node ts_sdk_client.mjs URL                          Streamable HTTP
//   node ts_sdk_client.mjs --transport sse URL          2024-11-05's HTTP+SSE (URL: the SSE endpoint)
//   node ts_sdk_client.mjs --transport stdio -- CMD...  stdio: the client launches CMD as its server
// with the scenario's name in MCP_CONFORMANCE_SCENARIO and the revision the peer speaks in MCP_MATRIX_REVISION.
// The scenarios are those of conformance/fixtures/client.py, on this SDK's public API; what the application is
// told is printed as `mcp-matrix: <name> <JSON>`, and `mcp-matrix: scenario completed` ends a run that reached its
// end. A scenario the SDK cannot run (it lacks the feature) prints `mcp-matrix: scenario unsupported <why>` and
// exits 0: the suite reads it as fixture-missing.

import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const require = createRequire(new URL("../../.cache/targets/npm/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { SSEClientTransport } = require("@modelcontextprotocol/sdk/client/sse.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const types = require("@modelcontextprotocol/sdk/types.js");
const { InMemoryTaskStore } = require("@modelcontextprotocol/sdk/experimental/tasks");

const SCENARIO_VARIABLE = "MCP_CONFORMANCE_SCENARIO";
const REVISION_VARIABLE = "MCP_MATRIX_REVISION";
const PREFIX = "mcp-matrix: ";
const MODERN = "2026-07-28";
const TIMEOUT_MS = 10_000; // the whole run
// The values of conformance/fixtures/client.py, which the tests read as the driver's.
const GIVE_UP_MS = 500;
const SHORT_TIMEOUT_MS = 500;
const SESSION_TIMEOUT_MS = 1500;
const PER_REQUEST_TIMEOUTS_MS = [200, 800];
const SLOW_NETWORK_TIMEOUTS = [1.0, 0.15]; // seconds, printed as Python prints them
const IDLE_MS = 1000;
const RETRIES = 3;
const RETRY_PAUSE_MS = 200;
const TOUR_CANCEL_MS = 150;
const MISSING_RESOURCE = "test://mcp-matrix/no-such-resource";
const EXTENSION = "com.example.mcp-matrix/probe";
const NON_ASCII_TEXT = "caf\u00e9 \u65e5\u672c\u8a9e \u{1f642} \u{1d11e}";
const CLIENT_INFO = { name: "mcp-matrix-ts-sdk-client", version: "0.1.0" };

let revisionInUse = "2025-11-25"; // the revision the peer speaks (MCP_MATRIX_REVISION)

function say(line) {
  process.stdout.write(`${PREFIX}${line}\n`);
}

async function quietly(promise) {
  try {
    await promise;
  } catch {
    // what the client does about it is on the wire and in its own logs
  }
}

function pyFloat(seconds) {
  return Number.isInteger(seconds) ? `${seconds}.0` : `${seconds}`;
}

// -- scenarios: each gets the connected client and the request options every request of the run carries ----

async function firstTool(client, options) {
  return (await client.listTools(undefined, options)).tools[0].name;
}

const hello = { text: "hello" };

async function initialize(client, options) {
  await client.listTools(undefined, options);
}

async function toolsCall(client, options) {
  const name = await firstTool(client, options);
  await client.callTool({ name, arguments: hello }, undefined, options);
}

async function ping(client, options) {
  await client.ping(options);
}

async function cancel(client, options) {
  // Call a tool and abandon the call when no answer has come soon: the SDK cancels the request in flight.
  const name = await firstTool(client, options);
  await quietly(client.callTool({ name, arguments: hello }, undefined, { ...options, signal: AbortSignal.timeout(GIVE_UP_MS) }));
}

async function callListedTools(client, options) {
  for (const tool of (await client.listTools(undefined, options)).tools) {
    for (const args of tool.inputSchema?.examples ?? [{}]) {
      try {
        await client.callTool({ name: tool.name, arguments: args }, undefined, options);
      } catch (error) {
        say(`tools/call ${JSON.stringify(tool.name)} failed: ${error}`);
      }
    }
  }
}

async function nameBearingRequests(client, options) {
  for (const tool of (await client.listTools(undefined, options)).tools) {
    await client.callTool({ name: tool.name, arguments: {} }, undefined, options);
  }
  for (const resource of (await client.listResources(undefined, options)).resources) {
    await client.readResource({ uri: resource.uri }, options);
  }
  for (const prompt of (await client.listPrompts(undefined, options)).prompts) {
    await client.getPrompt({ name: prompt.name }, options);
  }
}

async function readThenList(client, options) {
  try {
    await client.readResource({ uri: MISSING_RESOURCE }, options);
  } catch (error) {
    say(`resources/read failed: ${error}`);
  }
  await client.listTools(undefined, options);
}

async function concurrentRequests(client, options) {
  const name = await firstTool(client, options);
  await Promise.all([
    client.listPrompts(undefined, options),
    client.listResources(undefined, options),
    ...[0, 1, 2].map(() => client.callTool({ name, arguments: hello }, undefined, options)),
  ]);
}

async function rich(client, options) {
  const name = await firstTool(client, options);
  await client.callTool({ name, arguments: hello }, undefined, { ...options, onprogress: () => {} });
  await client.listPrompts(undefined, options);
  await client.listResources(undefined, options);
}

async function instructions(client) {
  say(`instructions: ${JSON.stringify(client.getInstructions() ?? null)}`);
}

async function unnegotiatedFeatures(client, options) {
  await quietly(client.listPrompts(undefined, options));
  await quietly(client.listResources(undefined, options));
  await quietly(client.setLoggingLevel("info", options));
}

async function abandonedCall(client, options, timeout, progress = false) {
  let progressSeen = 0;
  const name = await firstTool(client, options);
  const own = { ...options };
  if (timeout !== undefined) own.timeout = timeout;
  if (progress) own.onprogress = () => { progressSeen += 1; };
  try {
    await client.callTool({ name, arguments: hello }, undefined, own);
    say("call answered");
  } catch (error) {
    say(`call failed: ${error?.constructor?.name ?? "Error"}`);
  }
  if (progress) say(`progress notifications: ${progressSeen}`);
  await client.listPrompts(undefined, options);
}

async function perRequestTimeouts(client, options) {
  const name = await firstTool(client, options);
  for (const timeout of PER_REQUEST_TIMEOUTS_MS) {
    await quietly(client.callTool({ name, arguments: hello }, undefined, { ...options, timeout }));
  }
  await client.listPrompts(undefined, options);
}

async function pingTimeout(client, options) {
  await quietly(client.ping({ ...options, timeout: SHORT_TIMEOUT_MS }));
  await client.listPrompts(undefined, options);
}

async function pingFailures(client, options) {
  await quietly(client.ping({ ...options, timeout: SHORT_TIMEOUT_MS }));
  await quietly(client.ping({ ...options, timeout: SHORT_TIMEOUT_MS }));
  await client.listPrompts(undefined, options);
}

async function pingSlowNetwork(client, options) {
  for (const seconds of SLOW_NETWORK_TIMEOUTS) {
    try {
      await client.ping({ ...options, timeout: seconds * 1000 });
      say(`ping answered within ${pyFloat(seconds)}s`);
    } catch (error) {
      say(`ping failed within ${pyFloat(seconds)}s: ${error?.constructor?.name ?? "Error"}`);
    }
  }
}

async function idle(client, options) {
  await client.listTools(undefined, options);
  await sleep(IDLE_MS);
}

async function nonAsciiCall(client, options) {
  const name = await firstTool(client, options);
  await client.callTool({ name, arguments: { text: NON_ASCII_TEXT } }, undefined, options);
}

async function progressThenResult(client, options) {
  const name = await firstTool(client, options);
  const result = await client.callTool({ name, arguments: hello }, undefined, {
    ...options,
    onprogress: (progress) => say(`progress ${progress.progress}`),
  });
  const texts = (result.content ?? []).filter((item) => item.type === "text").map((item) => item.text);
  say(`result ${texts.join(" ")}`);
}

async function outliveCrash(client, options) {
  await client.listTools(undefined, options);
  for (let attempt = 0; attempt < RETRIES; attempt += 1) {
    await sleep(RETRY_PAUSE_MS);
    try {
      await client.listTools(undefined, options);
    } catch (error) {
      say(`tools/list after the crash failed: ${error}`);
      continue;
    }
    say("tools/list after the crash answered");
    return;
  }
}

async function schemaTour(client, options) {
  // Every request and notification a client writes that the peer provokes; the answers to the peer's own
  // requests come from the handlers tourHandlers installs.
  const name = await firstTool(client, options);
  const steps = [
    () => client.callTool({ name, arguments: hello }, undefined, { ...options, onprogress: () => {} }),
    () => client.listResources(undefined, options),
    () => client.listResourceTemplates(undefined, options),
    () => client.readResource({ uri: "test://static-text" }, options),
    () => client.listPrompts(undefined, options),
    () => client.getPrompt({ name: "greeting" }, options),
    () => client.ping(options),
    () => client.setLoggingLevel("debug", options),
    () => client.subscribeResource({ uri: "test://static-text" }, options),
    () => client.unsubscribeResource({ uri: "test://static-text" }, options),
    () => client.sendRootsListChanged(),
  ];
  for (const step of steps) await quietly(step());
  await quietly(
    client.complete(
      { ref: { type: "ref/prompt", name: "greeting" }, argument: { name: "who", value: "" } },
      { ...options, signal: AbortSignal.timeout(TOUR_CANCEL_MS) },
    ),
  );
  await sleep(50); // the cancellation leaves before the connection closes
}

const tourSample = () => ({ role: "assistant", content: { type: "text", text: "Hello" }, model: "mcp-matrix" });

async function tourModel(request, extra) {
  // the tour's host samples at once, reporting its progress when the request asks for it
  const token = request.params?._meta?.progressToken;
  if (token !== undefined && extra !== undefined) {
    await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: 1, total: 1 } });
  }
  return tourSample();
}

function tourHandlers(client) {
  client.setRequestHandler(types.CreateMessageRequestSchema, tourModel);
  client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///tmp/mcp-matrix", name: "tour" }],
  }));
  client.setRequestHandler(types.ElicitRequestSchema, async () => ({ action: "accept", content: { name: "mcp-matrix" } }));
}

function unsupported(why) {
  return why; // a scenario given as a string is one the SDK cannot run: why
}

const MODERN_ONLY = `the TypeScript SDK ${"1.32.2"} speaks no 2026-07-28 (its SUPPORTED_PROTOCOL_VERSIONS end at 2025-11-25)`;

const SCENARIOS = {
  initialize,
  tools_call: toolsCall,
  ping,
  cancel,
  call_listed_tools: callListedTools,
  name_bearing_requests: nameBearingRequests,
  modern_only: unsupported(MODERN_ONLY),
  read_then_list: readThenList,
  concurrent_requests: concurrentRequests,
  rich,
  traced: unsupported("the TypeScript SDK's Client propagates no W3C trace context (it has no tracing integration)"),
  with_extension: toolsCall, // by a client that advertises EXTENSION (capabilities.extensions)
  persisted_era: unsupported(MODERN_ONLY),
  reconnect: initialize, // twice: two connections one after the other (CONNECTIONS)
  modern_tools_call: unsupported(MODERN_ONLY),
  instructions,
  unnegotiated_features: unnegotiatedFeatures,
  session_timeout: (client, options) => abandonedCall(client, options), // options carry the session's timeout
  request_timeout: (client, options) => abandonedCall(client, options, SHORT_TIMEOUT_MS),
  per_request_timeouts: perRequestTimeouts,
  progress_timeout: (client, options) => abandonedCall(client, options, SHORT_TIMEOUT_MS, true),
  ping_timeout: pingTimeout,
  ping_failures: pingFailures,
  ping_slow_network: pingSlowNetwork,
  idle,
  // The SDK's Client takes no ping interval and sends no ping of its own: as in conformance/fixtures/client.py
  // (whose SDK has none either) the scenario cannot pass the setting on and idles as "idle" does.
  keepalive: idle,
  schema_tour: schemaTour,
  non_ascii_call: nonAsciiCall,
  progress_then_result: progressThenResult,
  two_subscriptions: unsupported(MODERN_ONLY + "; subscriptions/listen is 2026-07-28's"),
  outlive_crash: outliveCrash,
};
const CONNECTIONS = { reconnect: 2 };

// -- the scenarios the other areas of issue #12 added to conformance/fixtures/client.py, on this SDK's API -------

const COMPLETED_VALUES = ["a", "ab"];
const MAX_PAGES = 20;
const TASK_TTL_MS = 60_000;
const PROGRESS_WAIT_MS = 3000;
const CONCURRENT_CALLS = 3;
const REPORTED_PROGRESS = [[0.5, "Reading the request"], [1.25, "Sampling the model"], [2.0, "Done"]];
const REPORTED_TOTAL = 2.0;
const SAMPLING_HOLD_MS = 2000;
const SAMPLE_TEXT = "mcp-matrix sample";
const SAMPLE_MODEL = "mcp-matrix-model";
const TOOL_USE_ID = "mcp-matrix-use-1";
const ELICITED_TEXT = "mcp-matrix";
const ROOTS = ["file:///tmp/mcp-matrix/project"];
const CHANGED_ROOTS = ["file:///tmp/mcp-matrix/other-project"];
const TRAVERSING_ROOT = "file:///tmp/mcp-matrix/project/../../../etc";
const UNREACHABLE_ROOT = "file:///tmp/mcp-matrix/no-such-directory/gone";

function failure(error) {
  return `${error?.constructor?.name ?? "Error"}: ${error?.message ?? error}`;
}

async function callEachTool(client, options) {
  const results = {};
  let tools;
  try {
    tools = (await client.listTools(undefined, options)).tools;
  } catch (error) {
    say(`tool-results ${JSON.stringify({ "tools/list": `refused: ${failure(error)}` })}`);
    return;
  }
  for (const tool of tools) {
    try {
      const result = await client.callTool({ name: tool.name, arguments: {} }, undefined, options);
      results[tool.name] = result.isError ? "error result" : "accepted";
    } catch (error) {
      results[tool.name] = `refused: ${failure(error)}`;
    }
  }
  say(`tool-results ${JSON.stringify(results)}`);
}

async function completePromptArgument(client, options) {
  const completions = {};
  for (const value of COMPLETED_VALUES) {
    try {
      const result = await client.complete({ ref: { type: "ref/prompt", name: "greeting" }, argument: { name: "name", value } }, options);
      completions[value] = result.completion.values;
    } catch (error) {
      completions[value] = `refused: ${failure(error)}`;
    }
  }
  say(`completions ${JSON.stringify(completions)}`);
  await client.listTools(undefined, options);
}

async function everyPage(listPage, key) {
  const names = [];
  let cursor;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await listPage(cursor);
    names.push(...result[key].map((item) => item.name));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return names;
}

const pageParams = (cursor) => (cursor === undefined ? undefined : { cursor });

async function paginatedLists(client, options) {
  const tools = await everyPage((cursor) => client.listTools(pageParams(cursor), options), "tools");
  const prompts = await everyPage((cursor) => client.listPrompts(pageParams(cursor), options), "prompts");
  say(`listed ${JSON.stringify({ tools, prompts })}`);
}

let opened = 0;
async function paginatedListsReconnect(client, options) {
  opened += 1;
  if (opened === 1) {
    await client.listTools(undefined, options);
    say("listed the first page");
    return;
  }
  await paginatedLists(client, options);
}

const UNLISTED_TOOL = "tool-4";
async function callToolByName(client, options) {
  // Call a tool the application knows by name, without listing the tools first.
  try {
    const result = await client.callTool({ name: UNLISTED_TOOL, arguments: {} }, undefined, options);
    say(`result ${JSON.stringify((result.content ?? []).map((item) => item.text ?? null))}`);
  } catch (error) {
    say(`failed ${JSON.stringify(error?.constructor?.name ?? "Error")}`);
  }
}

async function loggingSetLevel(client, options) {
  await client.setLoggingLevel("warning", options);
  await client.listTools(undefined, options);
}

async function callThenList(client, options) {
  await toolsCall(client, options);
  await client.listTools(undefined, options);
}

async function urlElicitationRequired(client, options) {
  const name = await firstTool(client, options);
  try {
    await client.callTool({ name, arguments: hello }, undefined, options);
    say("refused null");
  } catch (error) {
    const data = error?.data && typeof error.data === "object" ? error.data : {};
    say(`refused ${JSON.stringify({ code: error?.code ?? null, elicitations: data.elicitations ?? null })}`);
  }
  await client.listTools(undefined, options);
}

const roots = { uris: [...ROOTS] };
async function rootsChange(client, options) {
  const name = await firstTool(client, options);
  await client.callTool({ name, arguments: hello }, undefined, options);
  roots.uris = [...CHANGED_ROOTS];
  await client.sendRootsListChanged();
  await client.callTool({ name, arguments: { text: "again" } }, undefined, options);
}

async function samplingCall(client, options) {
  const name = await firstTool(client, options);
  try {
    await client.callTool({ name, arguments: hello }, undefined, options);
  } catch (error) {
    say(`call ${JSON.stringify(`failed: ${error?.constructor?.name ?? "Error"}`)}`);
    return;
  }
  say('call "answered"');
}

async function abandonAtFirstProgress(client, options, name, seen) {
  // Call with a progress callback; abandon the call (abort) once `seen` resolves: by default its own first
  // progress notification, bounded by PROGRESS_WAIT_MS. How the call ended: abandoned, answered, failed: ...
  const controller = new AbortController();
  let outcome = "abandoned";
  let progressed;
  const first = new Promise((resolve) => {
    progressed = resolve;
  });
  const call = client
    .callTool({ name, arguments: hello }, undefined, { ...options, signal: controller.signal, onprogress: () => progressed() })
    .then(
      () => {
        outcome = "answered";
      },
      (error) => {
        if (!controller.signal.aborted) outcome = `failed: ${error?.constructor?.name ?? "Error"}`;
      },
    );
  await Promise.race([first.then(() => seen?.(first)), call, sleep(PROGRESS_WAIT_MS)]);
  controller.abort();
  await call;
  return outcome;
}

async function cancelOnProgress(client, options) {
  const name = await firstTool(client, options);
  const outcome = await abandonAtFirstProgress(client, options, name);
  const after = (await client.listTools(undefined, options)).tools.map((tool) => tool.name);
  say(`calls ${JSON.stringify({ abandoned: outcome, after })}`);
}

async function concurrentProgress(client, options) {
  // CONCURRENT_CALLS calls at once; once each has had progress (or the bound), all are abandoned together.
  const name = await firstTool(client, options);
  let count = 0;
  let release;
  const all = Promise.race([new Promise((resolve) => (release = resolve)), sleep(PROGRESS_WAIT_MS)]);
  const seen = async () => {
    count += 1;
    if (count === CONCURRENT_CALLS) release();
    await all;
  };
  await Promise.all([...Array(CONCURRENT_CALLS)].map(() => abandonAtFirstProgress(client, options, name, seen)));
  await client.listTools(undefined, options);
}

async function reportProgress(client, options) {
  const name = await firstTool(client, options);
  await client.callTool({ name, arguments: hello }, undefined, options);
  await client.listTools(undefined, options);
}

const held = { outcome: "never asked", settled: null };
async function cancelledSampling(client, options) {
  const name = await firstTool(client, options);
  await client.callTool({ name, arguments: hello }, undefined, options);
  await sleep(0);
  if (held.outcome === "started") await Promise.race([held.settled, sleep(SAMPLING_HOLD_MS + 1000)]);
  say(`sampling ${JSON.stringify(held.outcome)}`);
  await client.listTools(undefined, options);
}

async function taskToolCalls(client, options) {
  // Each listed tool called once as a task-aware application does with this SDK: callToolStream decides from
  // the tool's execution.taskSupport (and the server's tasks capability) whether the call becomes a task.
  const results = {};
  for (const tool of (await client.listTools(undefined, options)).tools) {
    const task = client.isToolTask(tool.name) ? { ttl: TASK_TTL_MS } : undefined;
    let outcome = "failed: no result";
    try {
      const stream = client.experimental.tasks.callToolStream({ name: tool.name, arguments: {} }, undefined, { ...options, task });
      for await (const message of stream) {
        if (message.type === "result") outcome = (message.result.content ?? []).map((item) => item.text ?? null);
        if (message.type === "error") outcome = `failed: ${message.error?.message ?? message.error}`;
      }
    } catch (error) {
      outcome = `failed: ${error?.message ?? error}`;
    }
    results[tool.name] = outcome;
  }
  say(`results ${JSON.stringify(results)}`);
}

async function taskList(client, options) {
  const ids = [];
  let cursor;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.experimental.tasks.listTasks(cursor, options);
    ids.push(...result.tasks.map((task) => task.taskId));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  say(`tasks ${JSON.stringify(ids)}`);
}

async function cancelTask(client, options) {
  // Call the tool whose taskSupport is required as a task; once the task exists, abandon it the way this SDK
  // offers: cancel the task (experimental.tasks.cancelTask), then end the stream (abort its signal); then list
  // the tools.
  const tools = (await client.listTools(undefined, options)).tools;
  const tool = tools.find((item) => item.execution?.taskSupport === "required");
  if (tool !== undefined) {
    const controller = new AbortController();
    try {
      const stream = client.experimental.tasks.callToolStream({ name: tool.name, arguments: {} }, undefined, {
        ...options,
        signal: controller.signal,
        task: { ttl: TASK_TTL_MS },
      });
      for await (const message of stream) {
        if (message.type === "taskCreated") {
          await quietly(client.experimental.tasks.cancelTask(message.task.taskId, options));
          controller.abort();
        }
        if (message.type === "result" || message.type === "error") break;
      }
    } catch {
      // abandoned
    }
  }
  await client.listTools(undefined, options);
}

async function abandonedHandshake(client, transport, options) {
  let outcome = "completed";
  try {
    await client.connect(transport, { ...options, timeout: GIVE_UP_MS });
  } catch {
    outcome = "abandoned";
  }
  say(`handshake ${JSON.stringify(outcome)}`);
}

// What the application's host answers with (capabilities and handlers), by scenario.

const sampled = () => ({ role: "assistant", content: { type: "text", text: SAMPLE_TEXT }, model: SAMPLE_MODEL, stopReason: "endTurn" });
const MODELS = {
  sampling: async () => sampled(),
  sampling_with_tools: async (request) => {
    const tools = request.params.tools ?? [];
    if (!tools.length || request.params.toolChoice?.mode === "none") return sampled();
    const required = tools[0].inputSchema?.required ?? [];
    const input = Object.fromEntries(required.map((key) => [key, "Paris"]));
    return { role: "assistant", content: [{ type: "tool_use", id: TOOL_USE_ID, name: tools[0].name, input }], model: SAMPLE_MODEL, stopReason: "toolUse" };
  },
  sampling_user_rejects: async () => {
    throw new types.McpError(-1, "User rejected sampling request");
  },
  sampling_model_fails: async () => {
    throw new Error("mcp-matrix: the model is unavailable");
  },
};

function formAnswer(schema) {
  const samples = { number: 1, integer: 1, boolean: true, string: ELICITED_TEXT };
  const formats = { email: "user@example.com", uri: "https://example.com", date: "2025-01-01" };
  const content = {};
  for (const [name, raw] of Object.entries(schema?.properties ?? {})) {
    const spec = raw && typeof raw === "object" ? raw : {};
    const choices = spec.enum ?? (spec.oneOf ?? spec.anyOf ?? []).map((option) => option.const);
    const items = spec.items && typeof spec.items === "object" ? spec.items : {};
    const itemChoices = items.enum ?? (items.anyOf ?? items.oneOf ?? []).map((option) => option.const);
    if ("default" in spec) content[name] = spec.default;
    else if (spec.type === "array") content[name] = itemChoices.slice(0, 1);
    else if (choices.length) content[name] = choices[0];
    else if (spec.format in formats) content[name] = formats[spec.format];
    else content[name] = samples[spec.type] ?? ELICITED_TEXT;
  }
  return content;
}

function brokenAnswer(schema) {
  const wrong = { string: 42, number: "not a number", integer: "not a number", boolean: "not a boolean" };
  const content = {};
  for (const [name, spec] of Object.entries(schema?.properties ?? {})) {
    if (!spec || typeof spec !== "object") continue;
    content[name] = spec.enum || spec.oneOf ? "mcp-matrix: not a choice" : (wrong[spec.type] ?? 42);
  }
  return content;
}

const elicited = [];
function elicitationHost(action, answer = formAnswer) {
  return (client) => {
    client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
      const { _meta, ...seen } = request.params;
      elicited.push(seen);
      say(`elicited ${JSON.stringify(elicited)}`);
      const ids = Object.fromEntries(elicited.filter((e) => "elicitationId" in e).map((e) => [e.message, e.elicitationId]));
      if (Object.keys(ids).length) say(`elicitation-ids ${JSON.stringify(ids)}`);
      const form = (request.params.mode ?? "form") === "form";
      if (action === "accept" && form) return { action: "accept", content: answer(request.params.requestedSchema) };
      return { action };
    });
  };
}

function rootsHost(uris) {
  return (client) => {
    for (const uri of [...ROOTS, ...CHANGED_ROOTS]) mkdirSync(uri.replace("file://", ""), { recursive: true });
    client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
      roots: uris().map((uri) => ({ uri, name: uri.split("/").pop() })),
    }));
  };
}

function progressReportingHost(client) {
  tourHandlers(client);
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request, extra) => {
    const token = request.params?._meta?.progressToken;
    if (token !== undefined) {
      for (const [progress, message] of REPORTED_PROGRESS) {
        const params = { progressToken: token, progress, total: REPORTED_TOTAL };
        if (revisionInUse !== "2024-11-05") params.message = message;
        await extra.sendNotification({ method: "notifications/progress", params });
      }
    }
    return { role: "assistant", content: { type: "text", text: "Hello" }, model: "mcp-matrix" };
  });
}

function heldSamplingHost(client) {
  tourHandlers(client);
  held.settled = new Promise((resolve) => (held.settle = resolve));
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request, extra) => {
    held.outcome = "started";
    try {
      // a cancellation read with the request (stdio delivers both in one chunk) has aborted the signal already,
      // before the handler could listen for it
      const aborted =
        extra.signal.aborted ||
        (await Promise.race([
          sleep(SAMPLING_HOLD_MS).then(() => false),
          new Promise((resolve) => extra.signal.addEventListener("abort", () => resolve(true))),
        ]));
      held.outcome = aborted ? "cancelled" : "answered";
      if (aborted) throw new Error("sampling cancelled");
      return { role: "assistant", content: { type: "text", text: "Hello" }, model: "mcp-matrix" };
    } finally {
      held.settle();
    }
  });
}

// The client as receiver of task-augmented sampling (``sampling_task_receiver``): the host's task store (the SDK's
// InMemoryTaskStore) and a handler that, as the SDK's own example client does, creates the task the request asks
// for and answers with it at once; the sample is made afterwards, in TASK_STEPS steps of TASK_STEP_MS (each
// reported as progress when the request asked for it), then stored as the task's result. The model that fails
// (``sampling_task_receiver_model_fails``) fails the task with its reason (updateTaskStatus, the store's only way
// to keep one). Nothing in this SDK tells the handler of a tasks/cancel: the work goes on, and storing its
// result into a cancelled task is refused.
const TASK_STEP_MS = 100;
const TASK_RECEIVER_CAPABILITIES = {
  sampling: {},
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } },
};
const taskWork = new Set(); // the works of the tasks created so far, awaited (bounded) before the client leaves

function taskReceivingHost(model) {
  return (client) =>
    client.setRequestHandler(types.CreateMessageRequestSchema, async (request, extra) => {
      if (!request.params.task) return model(request, extra);
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl });
      const token = request.params._meta?.progressToken;
      const work = (async () => {
        for (const [progress, message] of REPORTED_PROGRESS) {
          await sleep(TASK_STEP_MS);
          if (token !== undefined) {
            await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, total: REPORTED_TOTAL, message } });
          }
        }
        try {
          await extra.taskStore.storeTaskResult(task.taskId, "completed", await model(request));
        } catch (error) {
          await extra.taskStore.updateTaskStatus(task.taskId, "failed", failure(error));
        }
      })().catch(() => {}); // a task cancelled meanwhile: the store refuses its result and keeps it cancelled
      taskWork.add(work);
      return { task };
    });
}

async function samplingTaskReceiver(client, options) {
  await samplingCall(client, options);
  await Promise.race([Promise.allSettled([...taskWork]), sleep(TASK_STEP_MS * REPORTED_PROGRESS.length + 1000)]);
}

const TOUR_CAPABILITIES = { sampling: {}, roots: { listChanged: true }, elicitation: {} };
const BOTH_MODES = { elicitation: { form: {}, url: {} } };
const ROOTS_CAPABILITY = { roots: { listChanged: true } };
const failingRoots = (client) =>
  client.setRequestHandler(types.ListRootsRequestSchema, async () => {
    throw new Error("mcp-matrix: the host's roots store is unreachable");
  });
// scenario -> [capabilities, install handlers]
const HOSTS = {
  schema_tour: [TOUR_CAPABILITIES, tourHandlers],
  report_progress: [TOUR_CAPABILITIES, progressReportingHost],
  cancelled_sampling: [TOUR_CAPABILITIES, heldSamplingHost],
  elicitation_accept: [BOTH_MODES, elicitationHost("accept")],
  elicitation_decline: [BOTH_MODES, elicitationHost("decline")],
  elicitation_invalid_answer: [BOTH_MODES, elicitationHost("accept", brokenAnswer)],
  elicitation_form_only: [{ elicitation: { form: {} } }, elicitationHost("accept")],
  url_elicitation_required: [BOTH_MODES, elicitationHost("accept")],
  roots_list: [ROOTS_CAPABILITY, rootsHost(() => [...ROOTS])],
  roots_change: [ROOTS_CAPABILITY, rootsHost(() => [...roots.uris])],
  roots_traversal: [ROOTS_CAPABILITY, rootsHost(() => [TRAVERSING_ROOT])],
  roots_unreachable: [ROOTS_CAPABILITY, rootsHost(() => [...ROOTS, UNREACHABLE_ROOT])],
  roots_failing: [ROOTS_CAPABILITY, failingRoots],
  sampling_task_receiver: [TASK_RECEIVER_CAPABILITIES, taskReceivingHost(async () => sampled())],
  sampling_task_receiver_model_fails: [TASK_RECEIVER_CAPABILITIES, taskReceivingHost(MODELS.sampling_model_fails)],
  ...Object.fromEntries(
    Object.entries(MODELS).map(([name, model]) => [
      name,
      [{ sampling: name === "sampling_with_tools" ? { tools: {} } : {} }, (client) => client.setRequestHandler(types.CreateMessageRequestSchema, model)],
    ]),
  ),
};

const MODERN_SCENARIO = MODERN_ONLY;
Object.assign(SCENARIOS, {
  call_each_tool: callEachTool,
  complete_prompt_argument: completePromptArgument,
  paginated_lists: paginatedLists,
  paginated_lists_reconnect: paginatedListsReconnect,
  logging_set_level: loggingSetLevel,
  call_tool_by_name: callToolByName,
  elicitation_accept: callThenList,
  elicitation_decline: callThenList,
  elicitation_invalid_answer: callThenList,
  elicitation_form_only: callThenList, // this SDK declares the modes it is given: form only here
  url_elicitation_required: urlElicitationRequired,
  roots_list: callThenList,
  roots_change: rootsChange,
  roots_traversal: callThenList,
  roots_unreachable: callThenList,
  roots_failing: callThenList,
  ...Object.fromEntries(Object.keys(MODELS).map((name) => [name, samplingCall])),
  cancel_on_progress: cancelOnProgress,
  concurrent_progress: concurrentProgress,
  report_progress: reportProgress,
  cancelled_sampling: cancelledSampling,
  abandoned_handshake: initialize, // run by OWN_CONNECTION: the handshake is all there is
  task_tool_calls: taskToolCalls,
  task_list: taskList,
  cancel_task: cancelTask,
  sampling_task_receiver: samplingTaskReceiver,
  sampling_task_receiver_model_fails: samplingTaskReceiver,
  aggregate_two_servers: "the TypeScript SDK has no client that aggregates several servers (no ClientSessionGroup)",
  // 2026-07-28's: caching (ttlMs), multi round-trip requests, subscriptions/listen, the core patterns
  ...Object.fromEntries(
    [
      "list_twice", "list_after_expiry", "read_resources", "read_after_input", "idle_after_list", "list_call_list",
      "paged_lists_thrice", "lists_in_two_contexts", "mrtr_tool_call", "mrtr_parallel_request", "listen_partly_honoured",
      "listen_through_crash", "core_patterns", "cancelled_subscription",
    ].map((name) => [name, MODERN_SCENARIO]),
  ),
});
CONNECTIONS.paginated_lists_reconnect = 2;
const OWN_CONNECTION = { abandoned_handshake: abandonedHandshake };

function clientFor(scenario) {
  const capabilities = {};
  if (scenario === "with_extension") capabilities.extensions = { [EXTENSION]: {} };
  let [declared, install] = HOSTS[scenario] ?? [{}, null];
  if (scenario === "schema_tour" && revisionInUse === "2025-11-25") {
    // where tasks are defined, the tour's host takes task-augmented sampling too (its answers are tour messages)
    declared = { ...declared, tasks: TASK_RECEIVER_CAPABILITIES.tasks };
    install = (client) => {
      tourHandlers(client);
      taskReceivingHost(tourModel)(client);
    };
  }
  const taskStore = declared.tasks ? { taskStore: new InMemoryTaskStore() } : {};
  const client = new Client(CLIENT_INFO, { capabilities: { ...capabilities, ...declared }, ...taskStore });
  install?.(client);
  return client;
}

function notificationsInFlight(transport) {
  // The notifications the client has handed its transport and that are still being written (a cancellation the
  // SDK sends on an abort is not awaited by the request it cancels): an application leaving gracefully lets them
  // leave before it closes, since closing the Streamable HTTP transport aborts every fetch still in flight.
  const pending = new Set();
  const send = transport.send.bind(transport);
  transport.send = (message, ...rest) => {
    const sent = send(message, ...rest);
    if (message && message.method !== undefined && message.id === undefined) {
      pending.add(sent);
      sent.then(
        () => pending.delete(sent),
        () => pending.delete(sent),
      );
    }
    return sent;
  };
  return pending;
}

async function leave(client, transport, notifying) {
  // Leave as the SDK's documentation has an application leave: let the notifications still being written go,
  // end the Streamable HTTP session (the SDK sends DELETE only when asked: terminateSession), then close.
  await Promise.allSettled([...notifying]);
  if (typeof transport.terminateSession === "function") await quietly(transport.terminateSession());
  await client.close();
}

function parseArguments(argv) {
  let transport = "streamable-http";
  const rest = [...argv];
  if (rest[0] === "--transport") {
    transport = rest[1];
    rest.splice(0, 2);
  }
  if (transport === "stdio") {
    if (rest[0] === "--") rest.shift();
    if (rest.length === 0) throw new Error("--transport stdio takes the server's command after --");
    return { transport, command: rest[0], args: rest.slice(1) };
  }
  if (!["streamable-http", "sse"].includes(transport) || rest.length !== 1) {
    throw new Error("usage: ts_sdk_client.mjs URL | --transport sse URL | --transport stdio -- CMD [ARG...]");
  }
  return { transport, url: rest[0] };
}

function transportFor(target) {
  if (target.transport === "stdio") return new StdioClientTransport({ command: target.command, args: target.args });
  if (target.transport === "sse") return new SSEClientTransport(new URL(target.url));
  return new StreamableHTTPClientTransport(new URL(target.url));
}

async function main() {
  const target = parseArguments(process.argv.slice(2));
  const scenario = process.env[SCENARIO_VARIABLE] ?? "initialize";
  const revision = process.env[REVISION_VARIABLE] ?? "2025-11-25";
  revisionInUse = revision;
  const body = SCENARIOS[scenario];
  const why =
    body === undefined
      ? `ts_sdk_client.mjs implements no scenario ${JSON.stringify(scenario)} (yet)`
      : revision === MODERN
        ? MODERN_ONLY
        : typeof body === "string"
          ? body
          : null;
  if (why !== null) {
    say(`scenario unsupported ${why}`);
    return;
  }
  const options = scenario === "session_timeout" ? { timeout: SESSION_TIMEOUT_MS } : {};
  for (let connection = 0; connection < (CONNECTIONS[scenario] ?? 1); connection += 1) {
    const client = clientFor(scenario);
    const transport = transportFor(target);
    const notifying = notificationsInFlight(transport);
    if (scenario in OWN_CONNECTION) {
      await OWN_CONNECTION[scenario](client, transport, options);
      await leave(client, transport, notifying);
      continue;
    }
    await client.connect(transport, options);
    try {
      await body(client, options);
    } finally {
      await leave(client, transport, notifying);
    }
  }
  say("scenario completed");
}

const bound = setTimeout(() => {
  process.stderr.write(`ts_sdk_client.mjs: the scenario did not end within ${TIMEOUT_MS / 1000} s\n`);
  process.exit(1);
}, TIMEOUT_MS);

main().then(
  () => {
    clearTimeout(bound);
    process.exit(0);
  },
  (error) => {
    // Exit once what the client still does has ended (Client.connect closes its transport on failure without
    // awaiting it: the stdio transport closes the server's stdin, then waits for it to exit), within the bound.
    process.stderr.write(`ts_sdk_client.mjs: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
    bound.unref();
  },
);
