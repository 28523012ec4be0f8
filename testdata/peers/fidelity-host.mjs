// fidelity-host.mjs: the official TypeScript SDK client (@modelcontextprotocol/sdk)
// as a host of the "fidelity" fixture, for cmd/mcpbridge/hosts_fidelity_test.go.
//
//   node fidelity-host.mjs fidelity <command> [args...]
//   node fidelity-host.mjs fidelity <url>
//
// It launches <command> with StdioClientTransport, or connects to the
// Streamable HTTP endpoint <url> with StreamableHTTPClientTransport, sending
// $MCPBRIDGE_HOST_TOKEN, when set, as a bearer token. Then it checks that
// what the server received is what the SDK wrote: the progress token the SDK
// picks for onprogress (the request's id), a progress token of the host's
// own, and the id and reason of a call cancelled through its AbortController.
// It prints one JSON line per operation, {"op", "result", "check"}, where
// check is "" or what is wrong; the test compares the lines of the direct
// run, the run through `mcpbridge connect` and the run at the bridge's /mcp.
// It exits 0 once every operation has run, and 1 when it cannot run them.
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Inbox, describe, emit, record, text, transportFor, waitLimit } from "./hostkit.mjs";

// The reason the host gives when it cancels.
const cancelReason = "host-reason-fidelity-8423";


// canonical is v as JSON with the keys of every object sorted.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "(absent)";
}

// connect starts a client on argv, recording every message the SDK writes
// (sent) and every message it reads (received), as they pass the transport.
async function connect(argv) {
  const transport = transportFor(argv);
  const sent = new Inbox();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.add(JSON.parse(JSON.stringify(message)));
    return send(message, options);
  };
  const received = record(transport);
  // Roots, because the fixture's token tool asks for them before it
  // answers, so that the host has handled its progress report by then.
  const client = new Client({ name: "mcpbridge-fidelity-host", version: "1.0.0" }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  await client.connect(transport);
  const initialize = received.items.find((m) => m.result?.protocolVersion !== undefined)?.result;
  return { client, transport, sent, received, initialize };
}

const callsOf = (name) => (m) => m.method === "tools/call" && m.params?.name === name;
const isProgress = (m) => m.method === "notifications/progress";

async function run(argv) {
  const { client, transport, sent, received, initialize } = await connect(argv);
  const call = async (params, options) => {
    try {
      return await client.callTool(params, undefined, options);
    } catch (err) {
      return describe(err);
    }
  };
  try {
    emit("initialize", { protocolVersion: initialize?.protocolVersion ?? null, serverInfo: client.getServerVersion() ?? null });

    // token: once with onprogress (the SDK puts the request's id in _meta
    // as the token, and routes the report by it to onprogress), once with a
    // token of the host's own in _meta (the SDK has no handler for it: the
    // report is seen as it arrives).
    let nth = 0;
    for (const [op, params, options] of [
      ["token, the SDK's own (onprogress)", { name: "token", arguments: {} }, { onprogress: true }],
      ["token, the host's own string", { name: "token", arguments: {}, _meta: { progressToken: "ts-token-1" } }, {}],
    ]) {
      nth++;
      const handled = [];
      const before = new Set(received.items);
      const res = await call(params, options.onprogress ? { onprogress: (p) => handled.push(p) } : undefined);
      let wrote = "(none)";
      let check = "";
      try {
        wrote = canonical((await sent.wait(nth, callsOf("token")))[nth - 1].params?._meta?.progressToken);
      } catch (err) {
        check = `the host's request: ${err.message}`;
      }
      let reported = [];
      try {
        reported = (await received.wait(1, (m) => isProgress(m) && !before.has(m))).map((m) => canonical(m.params?.progressToken));
      } catch (err) {
        check ||= `the server's report: ${err.message}`;
      }
      const result = { wrote, serverSaw: res.error ? res : text(res), reported };
      if (options.onprogress) result.handled = handled.length;
      if (!check && text(res) !== wrote) check = `the server saw ${text(res) || JSON.stringify(res)}, the host wrote ${wrote}`;
      if (!check && reported[0] !== wrote) check = `the report came with ${reported[0]}, the host wrote ${wrote}`;
      if (!check && options.onprogress && handled.length !== 1) check = `onprogress ran ${handled.length} times`;
      emit(op, result, check);
    }

    // wait, cancelled with a reason once it has reported (so it has
    // reached the server); then what the server received.
    {
      const abort = new AbortController();
      let started;
      const reported = new Promise((resolve) => (started = resolve));
      const pending = call({ name: "wait", arguments: {} }, { signal: abort.signal, onprogress: () => started(true) });
      let check = "";
      let timer;
      const timedOut = new Promise((resolve) => (timer = setTimeout(() => resolve(false), waitLimit)));
      if (!(await Promise.race([reported, timedOut]))) check = `no report from wait within ${waitLimit} ms`;
      clearTimeout(timer);
      abort.abort(cancelReason);
      const outcome = await pending;
      const wrote = { id: "(none)", progressToken: "(none)", cancelled: "(none)" };
      try {
        const [req] = await sent.wait(1, callsOf("wait"));
        wrote.id = canonical(req.id);
        wrote.progressToken = canonical(req.params?._meta?.progressToken);
        const [cancel] = await sent.wait(1, (m) => m.method === "notifications/cancelled");
        wrote.cancelled = canonical(cancel.params);
      } catch (err) {
        check ||= `the host's messages: ${err.message}`;
      }
      const res = await call({ name: "last_cancel", arguments: {} });
      let server = null;
      try {
        server = JSON.parse(text(res));
      } catch (err) {
        check ||= `last_cancel answered ${JSON.stringify(res)}`;
      }
      const saw = {
        id: canonical(server?.id),
        progressToken: canonical(server?.progressToken),
        cancelled: (server?.cancelled ?? []).map(canonical),
      };
      if (!check && saw.id !== wrote.id) check = `the server saw id ${saw.id}, the host wrote ${wrote.id}`;
      if (!check && saw.progressToken !== wrote.progressToken) check = `the server saw token ${saw.progressToken}, the host wrote ${wrote.progressToken}`;
      if (!check && (saw.cancelled.length !== 1 || saw.cancelled[0] !== wrote.cancelled)) {
        check = `the server received the cancellations ${JSON.stringify(saw.cancelled)}, the host wrote ${wrote.cancelled}`;
      }
      if (!check && !JSON.stringify(outcome).includes(cancelReason)) check = `the cancelled call returned ${JSON.stringify(outcome)}`;
      emit("wait, cancelled with a reason", { wrote, serverSaw: saw, outcome }, check);
    }
  } finally {
    await transport.terminateSession?.().catch(() => {});
    await client.close();
  }
}

const [name, ...argv] = process.argv.slice(2);
if (name !== "fidelity" || argv.length === 0) {
  process.stderr.write("usage: node fidelity-host.mjs fidelity <command> [args...] | <url>\n");
  process.exit(2);
}
try {
  await run(argv);
} catch (err) {
  process.stderr.write(`fidelity-host.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
}
