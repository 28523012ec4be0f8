// A web page calling mcpbridge (mcpbridge.v1.BridgeService) over the Connect
// protocol with connect-web: ListServers, CallTool and a CallToolStream whose
// progress appears as it arrives. The bridge's URL comes from the query string
// (?bridge=http://127.0.0.1:7462); the bridge must allow this page's origin
// with --http-cors-origin. When all is done, <body data-state="done">; on a
// failure, data-state="error" and the error is shown.

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { BridgeService, ChildState, type CallToolResponse } from "./gen/mcpbridge/v1/bridge_pb.js";

const baseUrl = new URLSearchParams(location.search).get("bridge") || "http://127.0.0.1:7462";

// The Connect protocol (JSON, readable in the browser's network tab) over
// fetch; createGrpcWebTransport would speak gRPC-Web to the same URL.
const bridge = createClient(BridgeService, createConnectTransport({ baseUrl }));

// Every call gets a deadline, which the bridge passes on to the child.
const CALL = { timeoutMs: 30_000 };

function el(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`no #${id} in the page`);
  return e;
}

function append(list: HTMLElement, text: string): void {
  const li = document.createElement("li");
  li.textContent = text;
  list.append(li);
}

// The text blocks of a tool's result, joined.
function text(res: CallToolResponse): string {
  const parts = res.content.flatMap((c) => (c.block.case === "text" ? [c.block.value.text] : []));
  return (res.isError ? "tool error: " : "") + parts.join("\n");
}

async function main(): Promise<void> {
  el("bridge").textContent = baseUrl;

  // 1. Every fronted server. google.protobuf.Struct fields such as
  // serverInfo are plain objects.
  const { servers } = await bridge.listServers({}, CALL);
  for (const s of servers) {
    const info = s.serverInfo ?? {};
    append(el("servers"), `${s.name || "(default)"}: ${info["name"] ?? "?"} ${info["version"] ?? ""}, ` +
      `MCP ${s.protocolVersion || "-"}, child ${ChildState[s.child?.state ?? ChildState.UNSPECIFIED]}`);
  }

  // 2. A tool call. An empty server names the only fronted server.
  const echo = await bridge.callTool({ name: "echo", arguments: { message: "hello from the browser" } }, CALL);
  el("echo").textContent = text(echo);

  // 3. A stream: progress messages as they come, then one result.
  const stream = bridge.callToolStream({ name: "progress", arguments: { seconds: 1, steps: 5 } }, CALL);
  for await (const msg of stream) {
    switch (msg.event.case) {
      case "progress": {
        const p = msg.event.value;
        append(el("progress"), `progress ${p.progress}/${p.total ?? "?"}: ${p.message}`);
        break;
      }
      case "result":
        el("result").textContent = `result: ${text(msg.event.value)}`;
        break;
    }
  }
}

main().then(
  () => {
    el("state").textContent = "done";
    document.body.dataset.state = "done";
  },
  (err: unknown) => {
    const e = el("error");
    e.textContent = `error: ${err instanceof Error ? err.message : String(err)}`;
    e.hidden = false;
    el("state").textContent = "error";
    document.body.dataset.state = "error";
  },
);
