// host.mjs: the official TypeScript SDK client (@modelcontextprotocol/sdk)
// as an MCP host of a stdio server, for cmd/mcpbridge/hosts_typescript_test.go.
//
//   node host.mjs <scenario> <command> [args...]
//   node host.mjs <scenario> <url>
//
// It launches <command> with StdioClientTransport, the way a host launches
// a stdio server, or connects to the Streamable HTTP endpoint <url> (an
// http:// or https:// URL) with StreamableHTTPClientTransport, sending
// $MCPBRIDGE_HOST_TOKEN, when set, as a bearer token; then it runs the scenario (demo: `mcpbridge demo -conformance`;
// everything: @modelcontextprotocol/server-everything) and prints one JSON
// line per operation: {"op": name, "result": what the host got, "check":
// "" or what is wrong with it}. The test runs it once on the server itself
// and once on `mcpbridge connect` in front of the same server, and compares
// the lines. An operation that fails is a line too (its error); the script
// exits 0 once every operation has run, and 1 when it cannot run them.
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Inbox, cancelAfterFirstReport, describe, emit, record, text, transportFor } from "./hostkit.mjs";

// The one root the host declares, and the message its model samples.
const hostRoot = { uri: "file:///tmp/mcpbridge-host-root", name: "host-root" };
const sampledText = "a sampled answer";

// What each scenario calls; mirrors goHostScenario in hosts_gosdk_test.go.
const scenarios = {
  demo: {
    echo: { name: "echo", arguments: { message: "from the host" } },
    echoWant: "from the host",
    progress: { name: "progress", arguments: { seconds: 0.3, steps: 3 } },
    progressSteps: 3,
    slow: { name: "progress", arguments: { seconds: 60, steps: 120 } },
    subscribe: "demo://counter",
    logTool: "test_tool_with_logging",
    logCount: 3,
    logMatch: (m) => m.logger === "test_tool_with_logging",
    elicit: { name: "ask", arguments: { question: "Your name?" } },
    elicitAnswer: { answer: "Ada" },
    roots: { name: "test_input_required_result_list_roots", arguments: {} },
    sampling: { name: "test_sampling", arguments: { prompt: "Say hello" } },
  },
  everything: {
    echo: { name: "echo", arguments: { message: "from the host" } },
    echoWant: "Echo: from the host",
    progress: { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
    progressSteps: 3,
    slow: { name: "trigger-long-running-operation", arguments: { duration: 60, steps: 120 } },
    subscribe: "", // the first resource listed
    updates: "toggle-subscriber-updates",
    logTool: "toggle-simulated-logging",
    logToggles: true,
    logCount: 1,
    logMatch: (m) => /level[- ]message/.test(String(m.data)),
    elicit: { name: "trigger-elicitation-request", arguments: {} },
    elicitAnswer: { name: "Ada Lovelace", check: true, integer: 42 },
    roots: { name: "get-roots-list", arguments: {} },
    sampling: { name: "trigger-sampling-request", arguments: { prompt: "Say hello", maxTokens: 20 } },
  },
};

// connect launches argv under a client with capabilities, returning the
// client, the initialize result it read and an Inbox of every message it
// received.
async function connect(argv, capabilities, handlers = {}) {
  const transport = transportFor(argv);
  // Every message the host receives, as it comes in: the SDK keeps the
  // negotiated protocol version to itself, and it drops a progress report
  // that it reads in the same chunk as the result, after the result
  // (notification handlers run a microtask later), so reports are counted
  // here.
  const received = record(transport);
  const client = new Client({ name: "mcpbridge-host-test", version: "1.0.0" }, { capabilities });
  for (const [schema, handler] of handlers.requests ?? []) client.setRequestHandler(schema, handler);
  for (const [schema, handler] of handlers.notifications ?? []) client.setNotificationHandler(schema, handler);
  await client.connect(transport);
  const initialize = received.items.find((m) => m.result?.protocolVersion !== undefined)?.result;
  return { client, initialize, received };
}

async function run(sc, argv) {
  const logs = new Inbox();
  const updated = new Inbox();
  const elicits = new Inbox();
  const samples = new Inbox();
  const { client, initialize, received } = await connect(
    argv,
    { roots: { listChanged: true }, sampling: {}, elicitation: {} },
    {
      requests: [
        [
          ElicitRequestSchema,
          async (req) => {
            elicits.add(req.params);
            return { action: "accept", content: sc.elicitAnswer };
          },
        ],
        [
          CreateMessageRequestSchema,
          async (req) => {
            samples.add(req.params);
            return { model: "host-model", role: "assistant", stopReason: "endTurn", content: { type: "text", text: sampledText } };
          },
        ],
        [ListRootsRequestSchema, async () => ({ roots: [hostRoot] })],
      ],
      notifications: [
        [LoggingMessageNotificationSchema, (n) => logs.add(n.params)],
        [ResourceUpdatedNotificationSchema, (n) => updated.add(n.params.uri)],
      ],
    },
  );
  const bare = [];
  let check;
  try {
    emit("initialize/protocolVersion", initialize?.protocolVersion ?? null);
    emit("initialize/serverInfo", client.getServerVersion() ?? null);
    emit("initialize/capabilities", client.getServerCapabilities() ?? null);
    emit("initialize/instructions", client.getInstructions() ?? null);

    // The lists, names in order.
    for (const [op, list, key] of [
      ["tools/list", () => client.listTools(), (r) => r.tools.map((t) => t.name)],
      ["resources/list", () => client.listResources(), (r) => r.resources.map((x) => x.uri)],
      ["prompts/list", () => client.listPrompts(), (r) => r.prompts.map((p) => p.name)],
    ]) {
      try {
        const names = key(await list());
        if (op === "resources/list" && !sc.subscribe) sc.subscribe = names[0];
        emit(op, names, names.length ? "" : "an empty list");
      } catch (err) {
        emit(op, describe(err), "failed");
      }
    }

    // call calls a tool and returns its result, or the error as the host sees it.
    const call = async (params, options) => {
      try {
        return await client.callTool(params, undefined, options);
      } catch (err) {
        return describe(err);
      }
    };

    let res = await call(sc.echo);
    emit("tools/call echo", res, text(res) === sc.echoWant ? "" : `want ${JSON.stringify(sc.echoWant)}`);

    // Progress, with a token of the host's own (with onprogress the SDK
    // would use the request's id, and drop late reports: see connect).
    const reportsOf = (token) => (m) => m.method === "notifications/progress" && m.params?.progressToken === token;
    const withToken = (call, token) => ({ ...call, _meta: { progressToken: token } });
    res = await call(withToken(sc.progress, "progress-1"));
    let reports;
    check = "";
    try {
      reports = (await received.wait(sc.progressSteps, reportsOf("progress-1"))).map((m) => m.params);
    } catch (err) {
      reports = received.items.filter(reportsOf("progress-1")).map((m) => m.params);
      check = `progress reports: ${err.message}`;
    }
    emit(
      "tools/call with progress",
      // Normalised: the demo says how long the work took.
      { result: JSON.parse(JSON.stringify(res).replace(/(done: \d+ steps) in [0-9.]+[µnm]?s/, "$1 in (duration)")), reports },
      check || (res.error ? "failed" : ""),
    );

    // A call cancelled after its first report; then a call that works.
    {
      let waited;
      ({ res, waited } = await cancelAfterFirstReport(received, "cancel-1", (signal) => call(withToken(sc.slow, "cancel-1"), { signal })));
      emit("tools/call cancelled", res, waited || (res.error ? "" : "the cancelled call succeeded"));
      res = await call(sc.echo);
      emit("tools/call after the cancellation", res, text(res) === sc.echoWant ? "" : `want ${JSON.stringify(sc.echoWant)}`);
    }

    // Logging at debug: what the tool logs arrives.
    try {
      emit("logging/setLevel", await client.setLoggingLevel("debug"));
    } catch (err) {
      emit("logging/setLevel", describe(err), "failed");
    }
    res = await call({ name: sc.logTool, arguments: {} });
    let messages;
    check = "";
    try {
      messages = await logs.wait(sc.logCount, sc.logMatch);
    } catch (err) {
      messages = logs.items;
      check = `log messages: ${err.message}`;
    }
    if (sc.logToggles) {
      // Normalised: server-everything logs at a level it draws at random;
      // what must hold is that the message's text names its level.
      messages = messages.map((m) => ({
        ...m,
        level: `(random, said in the text: ${String(m.data).toLowerCase().startsWith(m.level)})`,
        data: "(random)",
      }));
      const stop = await call({ name: sc.logTool, arguments: {} });
      emit("tools/call stopping the logging", stop, stop.error ? "failed" : "");
    }
    emit("notifications/message", { result: res, messages }, check || (res.error ? "failed" : ""));

    // A subscription and its first update.
    try {
      emit("resources/subscribe", { uri: sc.subscribe, result: await client.subscribeResource({ uri: sc.subscribe }) });
    } catch (err) {
      emit("resources/subscribe", { uri: sc.subscribe, ...describe(err) }, "failed");
    }
    if (sc.updates) {
      res = await call({ name: sc.updates, arguments: {} });
      emit("tools/call starting the updates", res, res.error ? "failed" : "");
    }
    try {
      emit("notifications/resources/updated", await updated.wait(1, (uri) => uri === sc.subscribe));
    } catch (err) {
      emit("notifications/resources/updated", updated.items, err.message);
    }
    if (sc.updates) {
      res = await call({ name: sc.updates, arguments: {} });
      emit("tools/call stopping the updates", res, res.error ? "failed" : "");
    }
    try {
      emit("resources/unsubscribe", await client.unsubscribeResource({ uri: sc.subscribe }));
    } catch (err) {
      emit("resources/unsubscribe", describe(err), "failed");
    }

    // Elicitation, accepted: what the host was asked, and the tool's answer.
    res = await call(sc.elicit);
    emit("elicitation/create", elicits.items, elicits.items.length === 1 ? "" : "want one elicitation");
    emit("tools/call with elicitation", res, res.error || res.isError ? "failed" : "");

    // Roots: the server asks the host for them.
    res = await call(sc.roots);
    emit("tools/call with roots/list", res, text(res).includes(hostRoot.uri) ? "" : `want the root ${hostRoot.uri}`);

    // Sampling: what the host was asked, and the tool's answer.
    res = await call(sc.sampling);
    emit("sampling/createMessage", samples.items, samples.items.length === 1 ? "" : "want one sampling request");
    emit("tools/call with sampling", res, text(res).includes(sampledText) ? "" : `want ${JSON.stringify(sampledText)} in it`);

    // An unknown tool.
    res = await call({ name: "no-such-tool", arguments: {} });
    emit("tools/call of an unknown tool", res, res.error || res.isError ? "" : "an unknown tool succeeded");

    // A host that declares nothing (no elicitation, no roots, no sampling):
    // the tools listed to it (server-everything lists those that need a
    // capability only to a host that declares it), and the elicitation
    // tool's answer to it.
    const plain = await connect(argv, {});
    bare.push(plain.client);
    try {
      emit("tools/list, from a host without capabilities", (await plain.client.listTools()).tools.map((t) => t.name));
    } catch (err) {
      emit("tools/list, from a host without capabilities", describe(err), "failed");
    }
    try {
      res = await plain.client.callTool(sc.elicit);
    } catch (err) {
      res = describe(err);
    }
    emit("tools/call with elicitation, from a host without it", res, res.error || res.isError ? "" : "it succeeded");
  } finally {
    // close ends stdin, then stops a server that outlives it (server-everything
    // does while the cancelled operation's timer runs).
    // Over HTTP, the session ends first (DELETE).
    for (const c of [...bare, client]) {
      await c.transport?.terminateSession?.().catch(() => {});
      await c.close();
    }
  }
}

const [name, ...argv] = process.argv.slice(2);
const sc = scenarios[name];
if (!sc || argv.length === 0) {
  process.stderr.write(`usage: node host.mjs ${Object.keys(scenarios).join("|")} <command> [args...]\n`);
  process.exit(2);
}
try {
  await run(sc, argv);
} catch (err) {
  process.stderr.write(`host.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
}
