// hostkit.mjs: what the host scripts of testdata/peers share (host.mjs,
// fidelity-host.mjs, aggregate-host.mjs): waiting for what a server sends
// on its own, errors as a host sees them, and the lines the tests read.
import process from "node:process";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// waitLimit bounds every wait for something the server sends on its own.
export const waitLimit = 30_000;

// Inbox collects what a handler receives, for the scenario to wait on.
export class Inbox {
  items = [];
  waiters = new Set();
  add(item) {
    this.items.push(item);
    for (const w of this.waiters) w();
  }
  // wait resolves to the first n items that match, or rejects after waitLimit.
  wait(n, match = () => true) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const got = this.items.filter(match);
        if (got.length >= n) {
          cleanup();
          resolve(got.slice(0, n));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.items.filter(match).length} of ${n} within ${waitLimit} ms`));
      }, waitLimit);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }
}

// describe is an error as the host sees it: an MCP error's code, message and
// data, or another error's name and message.
export function describe(err) {
  if (err && typeof err.code === "number") {
    return { error: { code: err.code, message: err.message, data: err.data ?? null } };
  }
  return { error: { name: err?.name ?? typeof err, message: String(err?.message ?? err) } };
}

// text is the text of a tool result's first content block.
export function text(res) {
  return res?.content?.[0]?.type === "text" ? res.content[0].text : "";
}

// emit prints one operation's line: {"op", "result", "check"}, check ""
// when the operation went as it should.
export function emit(op, result, check = "") {
  process.stdout.write(JSON.stringify({ op, result, check }) + "\n");
}

// record returns an Inbox of every message the transport hands its client,
// as it comes in (the SDK keeps some, such as late progress reports, to
// itself).
export function record(transport) {
  const received = new Inbox();
  let inner;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get() {
      return (
        inner &&
        ((message, extra) => {
          received.add(message);
          inner(message, extra);
        })
      );
    },
    set(fn) {
      inner = fn;
    },
  });
  return received;
}

// transportFor is the transport to argv: the Streamable HTTP endpoint of an
// http:// or https:// URL, sending $MCPBRIDGE_HOST_TOKEN, when set, as a
// bearer token; otherwise the stdio command argv, launched as a host
// launches a server, with the test's environment (for the server and for
// mcpbridge connect alike).
export function transportFor(argv) {
  if (/^https?:\/\//.test(argv[0])) {
    const token = process.env.MCPBRIDGE_HOST_TOKEN;
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    return new StreamableHTTPClientTransport(new URL(argv[0]), { requestInit: { headers } });
  }
  return new StdioClientTransport({ command: argv[0], args: argv.slice(1), env: process.env, stderr: "inherit" });
}

// cancelAfterFirstReport starts a call (start(signal)) whose progress token
// is token, waits for its first progress report among received, cancels
// it, and returns what the call returned and "" or why no report came.
export async function cancelAfterFirstReport(received, token, start) {
  const abort = new AbortController();
  const pending = start(abort.signal);
  let waited = "";
  try {
    await received.wait(1, (m) => m.method === "notifications/progress" && m.params?.progressToken === token);
  } catch (err) {
    waited = `no first report: ${err.message}`;
  }
  abort.abort("the host cancelled the call");
  return { res: await pending, waited };
}
