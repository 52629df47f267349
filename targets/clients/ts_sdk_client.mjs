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
import { setTimeout as sleep } from "node:timers/promises";

const require = createRequire(new URL("../../.cache/targets/npm/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { SSEClientTransport } = require("@modelcontextprotocol/sdk/client/sse.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const types = require("@modelcontextprotocol/sdk/types.js");

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
  say(`instructions ${JSON.stringify(client.getInstructions() ?? null)}`);
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

function tourHandlers(client) {
  client.setRequestHandler(types.CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "Hello" },
    model: "mcp-matrix",
  }));
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

function clientFor(scenario) {
  const capabilities = {};
  if (scenario === "with_extension") capabilities.extensions = { [EXTENSION]: {} };
  if (scenario === "schema_tour") Object.assign(capabilities, { sampling: {}, roots: { listChanged: true }, elicitation: {} });
  const client = new Client(CLIENT_INFO, { capabilities });
  if (scenario === "schema_tour") tourHandlers(client);
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
