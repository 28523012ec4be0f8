// aggregate-host.mjs: the official TypeScript SDK client (@modelcontextprotocol/sdk)
// as an MCP host of an aggregate, for cmd/mcpbridge/aggregate_hosts_test.go.
//
//   node aggregate-host.mjs <url>
//   node aggregate-host.mjs <command> [args...]
//
// It connects to the aggregate "all" of docs/aggregation.md's hosts test
// (members demo and everything, prefixed) at its Streamable HTTP endpoint
// <url>, or through the stdio command (mcpbridge connect --server all),
// and prints one JSON line per operation: {"op", "result", "check"}, check
// "" when the operation went as it should. Before the reload step it
// prints {"op":"reload"} and waits for a line on its stdin: the test has
// added the member demo2 and reloaded the bridge.
import process from "node:process";
import readline from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Inbox, cancelAfterFirstReport, describe, emit, record, transportFor } from "./hostkit.mjs";

// text is every text block of a tool result, joined.
const text = (res) => (res?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

const stdinLines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function run(argv) {
  const transport = transportFor(argv);
  const received = record(transport);
  const elicits = new Inbox();
  const updated = new Inbox();
  const client = new Client({ name: "mcpbridge-aggregate-host", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicits.add(req.params);
    const props = Object.keys(req.params.requestedSchema?.properties ?? {});
    const content = props.includes("answer") ? { answer: "Ada" } : { name: "Ada Lovelace", check: true, integer: 42 };
    return { action: "accept", content };
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.add(n.params.uri));
  await client.connect(transport);
  const call = async (params, options) => {
    try {
      return await client.callTool(params, undefined, options);
    } catch (err) {
      return describe(err);
    }
  };
  const names = async () => (await client.listTools()).tools.map((t) => t.name);
  const changed = (after) => (m) => m.method === "notifications/tools/list_changed" && received.items.indexOf(m) >= after;
  try {
    emit("initialize/serverInfo", client.getServerVersion());

    let tools = await names();
    const want = ["demo_echo", "demo_progress", "everything_echo", "everything_trigger-long-running-operation"];
    emit("tools/list", tools, want.every((n) => tools.includes(n)) && !tools.includes("echo") ? "" : `want ${want} and no unprefixed name`);

    let res = await call({ name: "demo_echo", arguments: { message: "to demo" } });
    emit("tools/call demo_echo", res, text(res) === "to demo" ? "" : "want the demo's echo");
    res = await call({ name: "everything_echo", arguments: { message: "to everything" } });
    emit("tools/call everything_echo", res, text(res) === "Echo: to everything" ? "" : "want everything's echo");

    const reportsOf = (token) => (m) => m.method === "notifications/progress" && m.params?.progressToken === token;
    res = await call({ name: "demo_progress", arguments: { seconds: 0.3, steps: 3 }, _meta: { progressToken: "progress-1" } });
    let check = "";
    try {
      await received.wait(3, reportsOf("progress-1"));
    } catch (err) {
      check = `progress reports: ${err.message}`;
    }
    emit("tools/call demo_progress with progress", received.items.filter(reportsOf("progress-1")).map((m) => m.params), check || (res.error ? "failed" : ""));

    {
      let waited;
      ({ res, waited } = await cancelAfterFirstReport(received, "cancel-1", (signal) =>
        call({ name: "everything_trigger-long-running-operation", arguments: { duration: 60, steps: 120 }, _meta: { progressToken: "cancel-1" } }, { signal }),
      ));
      emit("tools/call cancelled", res, waited || (res.error ? "" : "the cancelled call succeeded"));
      res = await call({ name: "everything_echo", arguments: { message: "after" } });
      emit("tools/call after the cancellation", res, text(res) === "Echo: after" ? "" : "want everything's echo");
    }

    res = await call({ name: "demo_ask", arguments: { question: "Your name?" } });
    emit("elicitation from demo", { asked: elicits.items.length, res }, elicits.items.length === 1 && text(res).includes("Ada") ? "" : "want one elicitation and its answer");
    res = await call({ name: "everything_trigger-elicitation-request", arguments: {} });
    emit("elicitation from everything", { asked: elicits.items.length, res }, elicits.items.length === 2 && !res.error && !res.isError ? "" : "want a second elicitation, accepted");

    try {
      await client.subscribeResource({ uri: "demo://counter" });
      const got = await updated.wait(1, (uri) => uri === "demo://counter");
      emit("notifications/resources/updated", got);
      await client.unsubscribeResource({ uri: "demo://counter" });
    } catch (err) {
      emit("notifications/resources/updated", describe(err), "failed");
    }

    // The demo's child exits: the aggregate's other member keeps
    // answering, and the host hears that the tools changed.
    let mark = received.items.length;
    res = await call({ name: "demo_exit", arguments: { code: 3 } });
    check = "";
    try {
      await received.wait(1, changed(mark));
    } catch (err) {
      check = `list_changed: ${err.message}`;
    }
    res = await call({ name: "everything_echo", arguments: { message: "still here" } });
    emit("a member killed", res, check || (text(res) === "Echo: still here" ? "" : "want everything's echo"));
    // The demo comes back (the bridge restarts it) and answers again.
    check = "never answered again";
    for (let i = 0; i < 100; i++) {
      res = await call({ name: "demo_echo", arguments: { message: "back" } });
      if (text(res) === "back") {
        check = "";
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    emit("the killed member back", res, check);

    // A reload adds the member demo2.
    emit("reload", null);
    mark = received.items.length;
    await stdinLines.next();
    check = "";
    try {
      await received.wait(1, changed(mark));
    } catch (err) {
      check = `list_changed: ${err.message}`;
    }
    tools = await names();
    res = await call({ name: "demo2_echo", arguments: { message: "to demo2" } });
    emit(
      "a member added by a reload",
      { listed: tools.includes("demo2_echo"), res },
      check || (tools.includes("demo2_echo") && text(res) === "to demo2" ? "" : "want demo2_echo listed and answering"),
    );
  } finally {
    await transport.terminateSession?.().catch(() => {});
    await client.close();
  }
}

try {
  await run(process.argv.slice(2));
  process.exit(0);
} catch (err) {
  process.stderr.write(`aggregate-host.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
}
