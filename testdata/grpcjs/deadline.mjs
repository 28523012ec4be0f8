// deadline.mjs: a grpc-js client of mcpbridge for the deadline test
// (cmd/mcpbridge/grpcjs_test.go). It makes `count` CallTool calls of the
// demo's progress tool that take longer than their `deadlineMs` deadline,
// all at once, and prints one JSON line per call: the status code, the
// message, and whether the status carried details (the trailer
// grpc-status-details-bin, which only a status the bridge made has).
//
//   node deadline.mjs <address> <count> <deadlineMs> <repo root>
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js");
const loader = require("@grpc/proto-loader");

const [address, count, deadlineMs, root] = process.argv.slice(2);
const def = loader.loadSync("mcpbridge/v1/bridge.proto", {
  includeDirs: [path.join(root, "proto")],
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const pkg = grpc.loadPackageDefinition(def);
const client = new pkg.mcpbridge.v1.BridgeService(address, grpc.credentials.createInsecure());

function call() {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + Number(deadlineMs));
    client.CallTool(
      { name: "progress", arguments: { fields: { seconds: { numberValue: 5 }, steps: { numberValue: 1 } } } },
      { deadline },
      (err) => {
        if (!err) {
          resolve({ code: 0, message: "", details: false });
          return;
        }
        resolve({
          code: err.code,
          message: err.details,
          details: err.metadata.get("grpc-status-details-bin").length > 0,
        });
      },
    );
  });
}

const results = await Promise.all(Array.from({ length: Number(count) }, call));
for (const r of results) {
  console.log(JSON.stringify(r));
}
client.close();
