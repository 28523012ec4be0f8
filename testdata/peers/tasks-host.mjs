// tasks-host.mjs: the official TypeScript SDK client's tasks API (2025-11-25
// core tasks: client.experimental.tasks) driving a server written on the
// project's runtime, for cmd/mcpbridge's tasks tests (docs/server.md,
// "Tasks"). Run directly against `mcpbridge demo -conformance` and through
// the bridge, its lines must be the same.
//
//   node tasks-host.mjs tasks SERVER-ARGV...   (a stdio command, or an http(s) URL)
//
// (The first argument names the scenario, as host.mjs's does; there is one.)
//
// One JSON line per operation ({"op", "result", "check"}: hostkit.mjs), with
// what differs from run to run (task ids, times) left out: create and poll
// a task to its result, a task that asks for input (answered), a tool error
// and a JSON-RPC error as the tasks API reports them, list, and cancel.
import process from "node:process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateTaskResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, emit, text, transportFor } from "./hostkit.mjs";

const client = new Client({ name: "tasks-host", version: "1.0.0" }, { capabilities: { elicitation: {} } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push({ message: req.params.message, related: Boolean(req.params._meta?.["io.modelcontextprotocol/related-task"]?.taskId) });
  return { action: "accept", content: { confirm: true } };
});
await client.connect(transportFor(process.argv.slice(3)));
const tasks = client.experimental.tasks;

// stream runs callToolStream and returns what a host sees: the first
// status (which statuses it polls in between depends on timing: a question
// answered before the first poll is never seen input_required), and the
// result or the error.
async function stream(name, args) {
  const seen = [];
  let outcome;
  for await (const m of tasks.callToolStream({ name, arguments: args })) {
    if (m.type === "taskCreated" || m.type === "taskStatus") {
      if (seen[seen.length - 1] !== m.task.status) seen.push(m.task.status);
    } else if (m.type === "result") {
      outcome = { text: text(m.result), isError: m.result.isError ?? false };
    } else {
      outcome = describe(m.error);
      // The SDK names the task in its message: the same words either way.
      outcome.error.message = outcome.error.message.replace(/Task \S+ /, "Task … ");
    }
  }
  return { first: seen[0] ?? null, outcome };
}

// shape is a Task without what differs from run to run.
function shape(task) {
  return {
    status: task.status,
    ttl: task.ttl,
    pollInterval: task.pollInterval,
    hasTimes: typeof task.createdAt === "string" && typeof task.lastUpdatedAt === "string",
  };
}

try {
  const caps = client.getServerCapabilities();
  emit("capabilities", caps.tasks ?? null, caps.tasks?.requests?.tools?.call ? "" : "no tasks.requests.tools.call");
  const listed = await client.listTools();
  const support = Object.fromEntries(
    listed.tools.filter((t) => ["slow_compute", "confirm_delete", "failing_job"].includes(t.name)).map((t) => [t.name, t.execution?.taskSupport ?? null]),
  );
  emit("support", support);

  const done = await stream("slow_compute", { seconds: 1, label: "sdk" });
  emit("slow_compute", done, done.first === "working" && done.outcome?.text === 'computed "sdk" in 1s' ? "" : "not completed");

  const input = await stream("confirm_delete", { filename: "notes.txt" });
  emit("confirm_delete", { ...input, asked }, input.outcome?.text === "notes.txt: accept" && asked.length === 1 && asked[0].related ? "" : "input not asked or not answered");

  emit("failing_job", await stream("failing_job", {}));
  emit("protocol_error_job", await stream("protocol_error_job", {}));

  // By hand: a long task, got, listed and cancelled.
  const { task } = await client.request(
    { method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 60, label: "long" }, task: { ttl: 60000 } } },
    CreateTaskResultSchema,
  );
  emit("created", shape(task));
  emit("get", shape(await tasks.getTask(task.taskId)));
  const list = await tasks.listTasks();
  emit("list", { count: list.tasks.length, has: list.tasks.some((t) => t.taskId === task.taskId) });
  const cancelled = await tasks.cancelTask(task.taskId);
  emit("cancel", shape(cancelled), cancelled.status === "cancelled" ? "" : "not cancelled");
  try {
    await tasks.cancelTask(task.taskId);
    emit("cancel-again", "accepted", "a final task was cancelled again");
  } catch (err) {
    emit("cancel-again", describe(err));
  }
  try {
    await tasks.getTask("no-such-task");
    emit("get-unknown", "found", "an unknown task was found");
  } catch (err) {
    emit("get-unknown", describe(err));
  }
} catch (err) {
  emit("failed", describe(err), String(err?.stack ?? err));
  process.exitCode = 1;
} finally {
  await client.close();
}
