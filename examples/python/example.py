#!/usr/bin/env python3
"""A walk-through of mcpbridge's gRPC API from Python, with grpcio.

It talks to `mcpbridge serve --config examples/mcpbridge.yaml` (README.md)
at $MCPBRIDGE_ADDR (default 127.0.0.1:50051) and calls every RPC of
mcpbridge.v1.BridgeService on the built-in demo server. Each step checks
what it got and prints one line, "ok <step>: <detail>"; a step that fails
prints "FAIL <step>: <error>", the walk goes on with the next, and the
exit status is 1.
"""

import json
import os
import queue
import sys
import traceback
from pathlib import Path

# `buf generate` writes the stubs into gen/ (README.md). Their own imports
# are absolute (`from mcpbridge.v1 import bridge_pb2`), so gen/ goes on the
# import path, as a directory of generated code would in any project.
sys.path.insert(0, str(Path(__file__).resolve().parent / "gen"))

try:
    import grpc
    from google.protobuf import json_format, struct_pb2
except ImportError as err:
    sys.exit(f"{err}: install grpcio and protobuf (README.md, Prerequisites)")
try:
    from mcpbridge.v1 import bridge_pb2 as pb
    from mcpbridge.v1 import bridge_pb2_grpc

    import mcpbridge_errors
except ImportError as err:
    sys.exit(f"{err}: generate the stubs first: ../../bin/buf generate (README.md)")

ADDR = os.environ.get("MCPBRIDGE_ADDR", "127.0.0.1:50051")
# The fronted servers of examples/mcpbridge.yaml: the demo, the demo again
# behind a rate limit of one call a minute per caller, and `legacy`, the demo
# speaking 2025-11-25 (server_request finds it by its protocol version).
DEMO = "demo"
LIMITED = "limited"
TIMEOUT = 10  # seconds; every call should have a deadline


class StepFailed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise StepFailed(what)


def ok(step, detail):
    print(f"ok {step}: {detail}", flush=True)


# --- Struct and Value: plain Python values in and out -------------------
#
# JSON objects in the API (tool arguments, structured_content, _meta,
# schemas, log data) are google.protobuf.Struct or Value. A dict cannot be
# assigned to such a field: build the message, then CopyFrom or pass it.
# Struct stores every number as a double, so 3 comes back as 3.0.


def to_struct(d):
    s = struct_pb2.Struct()
    s.update(d)  # or json_format.ParseDict(d, struct_pb2.Struct())
    return s


def to_python(msg):
    """A Struct, Value or ListValue as dicts, lists, str, float, bool, None."""
    return json_format.MessageToDict(msg)


def expect_error(code, fn, *args, **kwargs):
    """Calls fn, which must fail with code; returns the decoded details."""
    try:
        fn(*args, **kwargs)
    except grpc.RpcError as err:
        d = mcpbridge_errors.details(err)
        check(d.code == code, f"got {d.code.name} {d.message!r}, want {code.name}")
        return d
    raise StepFailed(f"the call succeeded; want {code.name}")


# --- The steps ---------------------------------------------------------


def get_server(stub):
    # wait_for_ready waits while the child starts, within the deadline.
    r = stub.GetServer(pb.GetServerRequest(server=DEMO, wait_for_ready=True), timeout=20)
    check(r.child.state == pb.CHILD_STATE_READY, f"child is {pb.ChildState.Name(r.child.state)}")
    info = to_python(r.server_info)
    check(info.get("name") == "mcpbridge-demo", f"server_info {info}")
    check("tools" in to_python(r.capabilities), "no tools capability")
    ok("GetServer", f"{info['name']} speaks {r.protocol_version}, child pid {r.child.pid}")


def list_servers(stub):
    r = stub.ListServers(pb.ListServersRequest(), timeout=TIMEOUT)
    names = [s.name for s in r.servers]
    check({DEMO, LIMITED} <= set(names), f"servers {names}")
    described = [f"{s.name} ({s.protocol_version or pb.ChildState.Name(s.child.state)})" for s in r.servers]
    ok("ListServers", ", ".join(described))


def list_tools(stub):
    # Lists come in pages: pass next_cursor back until it is empty.
    tools, cursor = [], ""
    while True:
        r = stub.ListTools(pb.ListToolsRequest(server=DEMO, cursor=cursor), timeout=TIMEOUT)
        tools.extend(r.tools)
        cursor = r.next_cursor
        if not cursor:
            break
    names = sorted(t.name for t in tools)
    check({"echo", "progress", "ask", "fail"} <= set(names), f"tools {names}")
    echo = next(t for t in tools if t.name == "echo")
    props = to_python(echo.input_schema)["properties"]
    check("message" in props, f"echo's input schema {props}")
    ok("ListTools", f"{len(tools)} tools: {', '.join(names)}")


def list_resources(stub):
    r = stub.ListResources(pb.ListResourcesRequest(server=DEMO), timeout=TIMEOUT)
    uris = [res.uri for res in r.resources]
    check("demo://counter" in uris, f"resources {uris}")
    ok("ListResources", ", ".join(uris))


def list_resource_templates(stub):
    r = stub.ListResourceTemplates(pb.ListResourceTemplatesRequest(server=DEMO), timeout=TIMEOUT)
    templates = [t.uri_template for t in r.resource_templates]
    check("demo://greeting/{name}" in templates, f"templates {templates}")
    ok("ListResourceTemplates", ", ".join(templates))


def list_prompts(stub):
    r = stub.ListPrompts(pb.ListPromptsRequest(server=DEMO), timeout=TIMEOUT)
    prompts = {p.name: [a.name for a in p.arguments] for p in r.prompts}
    check(prompts.get("greet") == ["name", "style"], f"prompts {prompts}")
    ok("ListPrompts", ", ".join(f"{n}({', '.join(a)})" for n, a in prompts.items()))


def call_tool(stub):
    r = stub.CallTool(
        pb.CallToolRequest(server=DEMO, name="echo", arguments=to_struct({"message": "hello from Python"})),
        timeout=TIMEOUT,
    )
    check(not r.is_error, "echo failed")
    check(r.content[0].WhichOneof("block") == "text", f"content {r.content}")
    check(r.content[0].text.text == "hello from Python", f"text {r.content[0].text.text!r}")
    structured = to_python(r.structured_content)  # a Value: any JSON value
    check(structured == {"message": "hello from Python"}, f"structured_content {structured}")

    # A tool that ran and failed is an OK response with is_error set.
    f = stub.CallTool(pb.CallToolRequest(server=DEMO, name="fail", arguments=to_struct({"message": "no"})),
                      timeout=TIMEOUT)
    check(f.is_error and f.content[0].text.text == "no", f"fail returned {f}")
    ok("CallTool", f"echo -> structured_content {structured}; fail -> is_error")


def read_resource(stub):
    r = stub.ReadResource(pb.ReadResourceRequest(server=DEMO, uri="demo://greeting/Ada"), timeout=TIMEOUT)
    text = r.contents[0].text
    check(text == "Hello, Ada!", f"greeting {text!r}")
    png = stub.ReadResource(pb.ReadResourceRequest(server=DEMO, uri="demo://pixel.png"), timeout=TIMEOUT).contents[0]
    check(png.WhichOneof("contents") == "blob" and png.blob.startswith(b"\x89PNG"), "pixel.png is not a PNG blob")
    ok("ReadResource", f"demo://greeting/Ada is {text!r}; demo://pixel.png is {len(png.blob)} bytes of {png.mime_type}")


def get_prompt(stub):
    r = stub.GetPrompt(
        # arguments is a map<string, string>: a dict works here.
        pb.GetPromptRequest(server=DEMO, name="greet", arguments={"name": "Ada", "style": "pirate"}),
        timeout=TIMEOUT,
    )
    msg = r.messages[0]
    check(msg.role == pb.ROLE_USER and "Ada" in msg.content.text.text, f"messages {r.messages}")
    ok("GetPrompt", f"{pb.Role.Name(msg.role)}: {msg.content.text.text!r}")


def complete(stub):
    r = stub.Complete(
        pb.CompleteRequest(server=DEMO, prompt_name="greet", argument_name="name", argument_value="A"),
        timeout=TIMEOUT,
    )
    check({"Ada", "Alan"} <= set(r.values), f"values {list(r.values)}")
    total = r.total if r.HasField("total") else "unknown"  # proto3 optional
    ok("Complete", f"greet name 'A' -> {', '.join(r.values)} (total {total})")


def call_tool_stream(stub):
    # Progress, logs and server requests arrive as they happen; the result
    # is always the last message.
    req = pb.CallToolStreamRequest(
        server=DEMO, name="progress", arguments=to_struct({"seconds": 1, "steps": 4}),
        log_level=pb.LOGGING_LEVEL_INFO,
    )
    progress, logs, result = [], [], None
    for msg in stub.CallToolStream(req, timeout=TIMEOUT):
        kind = msg.WhichOneof("event")
        if kind == "progress":
            p = msg.progress
            total = p.total if p.HasField("total") else None
            progress.append((p.progress, total, p.message))
        elif kind == "log":
            # data is a Value: any JSON value.
            logs.append((pb.LoggingLevel.Name(msg.log.level), to_python(msg.log.data)))
        elif kind == "result":
            result = msg.result
    check(result is not None, "the stream ended without a result")
    check([p[0] for p in progress] == [1, 2, 3, 4] and progress[-1][1] == 4, f"progress {progress}")
    text = result.content[0].text.text
    check(text.startswith("done: 4 steps"), f"result {text!r}")
    ok("CallToolStream", f"{len(progress)} progress messages ({progress[-1][2]!r} last), {len(logs)} logs, "
                         f"then {text!r}")


def call(stub):
    # Any MCP method, params and result as JSON text, losslessly.
    params = {"name": "echo", "arguments": {"message": "lossless"}}
    r = stub.Call(pb.CallRequest(server=DEMO, method="tools/call", params_json=json.dumps(params)), timeout=TIMEOUT)
    result = json.loads(r.result_json)
    check(result["structuredContent"] == {"message": "lossless"}, f"result {r.result_json}")
    ok("Call", f"tools/call -> {len(r.result_json)} bytes of JSON, structuredContent {result['structuredContent']}")


def call_stream(stub):
    params = {"name": "progress", "arguments": {"seconds": 0.5, "steps": 2}}
    req = pb.CallStreamRequest(server=DEMO, method="tools/call", params_json=json.dumps(params))
    progress, result = [], None
    for msg in stub.CallStream(req, timeout=TIMEOUT):
        kind = msg.WhichOneof("event")
        if kind == "progress":
            progress.append(msg.progress.progress)
        elif kind == "result":
            result = json.loads(msg.result.result_json)
    check(progress == [1, 2], f"progress {progress}")
    check(result and result["content"][0]["text"].startswith("done: 2 steps"), f"result {result}")
    ok("CallStream", f"{len(progress)} progress messages, then {result['content'][0]['text']!r}")


def subscribe(stub):
    # The first message is the acknowledgement; then events until the
    # client cancels (Subscribe gets no default deadline).
    stream = stub.Subscribe(pb.SubscribeRequest(server=DEMO, resource_subscriptions=["demo://counter"]), timeout=30)
    first = next(stream)
    check(first.WhichOneof("event") == "acknowledged", f"first message {first}")
    check(list(first.acknowledged.resource_subscriptions) == ["demo://counter"], f"acknowledged {first.acknowledged}")
    update = next(stream)
    check(update.WhichOneof("event") == "resource_updated", f"event {update}")
    check(update.resource_updated.uri == "demo://counter", f"updated {update.resource_updated.uri}")
    # An update says only that the resource changed: read it again.
    counter = stub.ReadResource(pb.ReadResourceRequest(server=DEMO, uri="demo://counter"), timeout=TIMEOUT)
    counter = counter.contents[0].text
    ok("Subscribe", f"acknowledged demo://counter, then resource_updated; it reads {counter!r}")

    stream.cancel()
    try:
        for _ in stream:
            pass  # events already received are still delivered
        raise StepFailed("the stream ended with OK after cancel()")
    except grpc.RpcError as err:
        check(err.code() == grpc.StatusCode.CANCELLED, f"ended {err.code().name}")
    check(stream.code() == grpc.StatusCode.CANCELLED, f"code() is {stream.code()}")
    ok("subscribe-cancelled", "cancel() ended the stream with CANCELLED")


def connect(stub):
    # A bidirectional stream of JSON-RPC messages. grpcio reads the request
    # iterator on its own thread: feed it from a queue, None half-closes.
    outbox = queue.Queue()

    def requests():
        while (m := outbox.get()) is not None:
            yield pb.ConnectRequest(message_json=json.dumps(m))

    # The server by metadata: the stream's every message need not name it.
    tunnel = stub.Connect(requests(), metadata=(("mcp-server", DEMO),), timeout=TIMEOUT)
    try:
        # An MCP client's handshake first: the 2025 `initialize` works in front
        # of a child of either era (a 2026 client would send server/discover and
        # the 2026 _meta on every request instead).
        outbox.put({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "example.py", "version": "1.0"}},
        })
        init = json.loads(next(tunnel).message_json)
        check(init.get("id") == 1 and "result" in init, f"initialize -> {init}")
        outbox.put({"jsonrpc": "2.0", "method": "notifications/initialized"})
        outbox.put({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        pong = json.loads(next(tunnel).message_json)
        check(pong == {"jsonrpc": "2.0", "id": 2, "result": {}}, f"ping -> {pong}")
        outbox.put(None)  # half-close: the bridge ends the stream with OK
        rest = [json.loads(m.message_json) for m in tunnel]
        check(tunnel.code() == grpc.StatusCode.OK, f"ended {tunnel.code()}")
        ok("Connect", f"initialize -> {init['result']['serverInfo']['name']} {init['result']['protocolVersion']}, "
                      f"ping -> {{}}, half-close -> OK ({len(rest)} more messages)")
    finally:
        outbox.put(None)  # never leave grpcio's sending thread waiting


def ping(stub):
    r = stub.Ping(pb.PingRequest(server=DEMO), timeout=TIMEOUT)
    check(r.HasField("round_trip") and r.method in ("ping", "server/discover"), f"ping {r}")
    rtt = r.round_trip.ToTimedelta().total_seconds() * 1000  # a Duration
    ok("Ping", f"{r.method} answered in {rtt:.2f} ms by pid {r.child.pid}")


def error_details(stub):
    d = expect_error(grpc.StatusCode.INVALID_ARGUMENT, stub.CallTool,
                     pb.CallToolRequest(server=DEMO, name="no_such_tool"), timeout=TIMEOUT)
    check(d.json_rpc_error is not None and d.json_rpc_error.code == -32602, f"JsonRpcError {d.json_rpc_error}")
    check(d.error_info is not None, "no ErrorInfo")
    info = d.error_info
    check(info.domain == "mcpbridge" and info.reason == "CHILD_ERROR", f"ErrorInfo {info}")
    check(info.metadata["method"] == "tools/call" and info.metadata["server"] == DEMO,
          f"metadata {dict(info.metadata)}")
    data = json.loads(d.json_rpc_error.data_json) if d.json_rpc_error.data_json else None
    ok("error-details", f"{d.code.name} JsonRpcError {d.json_rpc_error.code} {d.json_rpc_error.message!r} data {data}; "
                        f"ErrorInfo {info.reason} ({info.domain}) {dict(sorted(info.metadata.items()))}")


def bad_request(stub):
    found = []
    for text, reason in (("{", "INVALID_JSON"), ("[1]", "WRONG_JSON_TYPE")):
        d = expect_error(grpc.StatusCode.INVALID_ARGUMENT, stub.Call,
                         pb.CallRequest(server=DEMO, method="tools/list", params_json=text), timeout=TIMEOUT)
        check(d.error_info is not None and d.error_info.reason == "INVALID_INPUT", f"ErrorInfo {d.error_info}")
        check(d.bad_request is not None,
              f"params_json={text!r}: no google.rpc.BadRequest in the details ({d.message!r})")
        violations = [(v.field, v.reason) for v in d.bad_request.field_violations]
        check(("params_json", reason) in violations, f"params_json={text!r}: violations {violations}")
        found.append(f"{text!r} -> {reason}")
    ok("bad-request", "BadRequest on field params_json: " + ", ".join(found))


def retry_info(stub):
    # The limited server lets each caller make one call a minute; a caller
    # over the limit is told how long to wait.
    for attempt in range(1, 4):
        try:
            stub.Ping(pb.PingRequest(server=LIMITED), timeout=TIMEOUT)
            continue
        except grpc.RpcError as err:
            d = mcpbridge_errors.details(err)
        check(d.code == grpc.StatusCode.RESOURCE_EXHAUSTED, f"got {d.code.name} {d.message!r}")
        check(d.retry_info is not None, "no RetryInfo")
        delay = d.retry_info.retry_delay.ToTimedelta()  # a real client sleeps this long before retrying
        check(delay.total_seconds() > 0, f"retry_delay {delay}")
        check(d.error_info is not None and d.error_info.reason == "CAPACITY", f"ErrorInfo {d.error_info}")
        ok("retry-info", f"call {attempt} was RESOURCE_EXHAUSTED ({d.error_info.reason}), "
                         f"retry in {delay.total_seconds():.1f}s")
        return
    raise StepFailed("3 calls to the limited server all succeeded")


def deadline(stub):
    # The bridge answers a margin before the deadline, so the status that
    # arrives is its own, with details, not the client's bare timeout.
    slow = pb.CallToolRequest(server=DEMO, name="progress", arguments=to_struct({"seconds": 10}))
    d = expect_error(grpc.StatusCode.DEADLINE_EXCEEDED, stub.CallTool, slow, timeout=1.5)
    check(d.json_rpc_error is not None and d.json_rpc_error.code == -32001, f"JsonRpcError {d.json_rpc_error}")
    check(d.error_info is not None and d.error_info.reason == "TIMEOUT", f"ErrorInfo {d.error_info}")
    ok("deadline", f"a 1.5 s deadline on a 10 s tool: {d.code.name}, JsonRpcError {d.json_rpc_error.code} "
                   f"{d.json_rpc_error.message!r} {d.json_rpc_error.data_json}")


def ask_user(stub, server, question, answer):
    """Calls the demo's `ask` tool and answers its question, whichever way
    the child asks: a 2025 child sends an elicitation/create request, which
    the bridge offers on the stream as a ServerRequest to be answered with
    RespondToServerRequest; a 2026 child answers input_required, and the call
    is repeated with input_responses and request_state (MRTR). Returns the
    final result and the ServerRequests answered."""
    elicit_result = {"action": "accept", "content": {"answer": answer}}
    req = pb.CallToolStreamRequest(server=server, name="ask", arguments=to_struct({"question": question}),
                                   server_requests=True)  # opt in to server requests
    answered = []
    for _ in range(3):  # MRTR rounds
        result = None
        for msg in stub.CallToolStream(req, timeout=TIMEOUT):
            kind = msg.WhichOneof("event")
            if kind == "server_request":
                sr = msg.server_request
                check(sr.method == "elicitation/create", f"server request {sr.method}")
                check(json.loads(sr.params_json)["message"] == question, f"params {sr.params_json}")
                # Answer between reads: the stream goes on while we call.
                stub.RespondToServerRequest(
                    pb.RespondToServerRequestRequest(server=sr.server, id=sr.id, result_json=json.dumps(elicit_result)),
                    timeout=TIMEOUT,
                )
                answered.append(sr)
            elif kind == "result":
                result = msg.result
        check(result is not None, "the stream ended without a result")
        if not result.HasField("input_required"):
            return result, answered
        ir = result.input_required
        asked = to_python(ir.input_requests)
        check(all(r["method"] == "elicitation/create" for r in asked.values()), f"input_requests {asked}")
        req.input_responses.CopyFrom(to_struct({key: elicit_result for key in asked}))
        req.request_state = ir.request_state  # opaque: copy it unchanged
    raise StepFailed("still input_required after 3 rounds")


def input_required(stub):
    # The demo is a 2026-07-28 child: it asks inside its result.
    result, answered = ask_user(stub, DEMO, "Which colour?", "green")
    check(not answered, f"{DEMO} sent a ServerRequest: it is not a 2026 child")
    text = result.content[0].text.text
    check(text == "The user answered: green", f"result {text!r}")
    ok("input-required", f"{DEMO}: input_required, answered with input_responses and request_state -> {text!r}")


def server_request(stub):
    # Only a child of a 2025 revision sends requests to the client. Find a
    # server that speaks one (examples/mcpbridge.yaml's `legacy`).
    servers = stub.ListServers(pb.ListServersRequest(), timeout=TIMEOUT).servers
    legacy = [s.name for s in servers if s.protocol_version.startswith("2025")]
    check(legacy, "no fronted server has a child of a 2025 revision, and only those send server requests")
    result, answered = ask_user(stub, legacy[0], "What is your name?", "Ada")
    check(answered, f"{legacy[0]} sent no ServerRequest")
    text = result.content[0].text.text
    check(text == "The user answered: Ada", f"result {text!r}")
    sr = answered[0]
    ok("server-request", f"{legacy[0]}: {sr.method} {json.loads(sr.params_json)['message']!r} "
                         f"answered with RespondToServerRequest -> {text!r}")
    d = expect_error(grpc.StatusCode.NOT_FOUND, stub.RespondToServerRequest,
                     pb.RespondToServerRequestRequest(server=sr.server, id=sr.id, result_json="{}"), timeout=TIMEOUT)
    ok("RespondToServerRequest", f"answered {sr.id}; a second answer is {d.code.name}")


def tasks(stub):
    """The demo's build as an MCP task: a long-running operation that
    outlives the call that started it (docs/api.md, "Tasks")."""
    args = to_struct({"steps": 2, "seconds": 0.2, "confirm": True})
    t = stub.StartTask(pb.StartTaskRequest(server=DEMO, name="build", arguments=args), timeout=TIMEOUT).task
    check(t.task_id and not t.done and t.state == pb.TASK_STATE_WORKING, f"StartTask gave {t}")
    ok("StartTask", f"task {t.task_id[:6]}… {pb.TaskState.Name(t.state)}, kept {t.ttl.seconds} s, poll every "
                    f"{t.poll_interval.ToMilliseconds()} ms")
    got = stub.GetTask(pb.GetTaskRequest(server=DEMO, task_id=t.task_id), timeout=TIMEOUT).task
    check(got.task_id == t.task_id and not got.done, f"GetTask gave {got}")
    ok("GetTask", f"{pb.TaskState.Name(got.state)} {got.status_message!r}")
    # WaitTask returns once the task is done or has a question; the build
    # asks whether to publish.
    wait = pb.WaitTaskRequest(server=DEMO, task_id=t.task_id)
    wait.timeout.FromSeconds(20)
    w = stub.WaitTask(wait, timeout=25).task
    questions = to_python(w.input_requests)
    check(w.state == pb.TASK_STATE_INPUT_REQUIRED and len(questions) == 1, f"WaitTask gave {w}")
    key, question = next(iter(questions.items()))
    ok("WaitTask", f"{pb.TaskState.Name(w.state)}: {question['method']} {question['params']['message']!r}")
    answers = to_struct({key: {"action": "accept", "content": {"publish": True}}})
    a = stub.AnswerTask(pb.AnswerTaskRequest(server=DEMO, task_id=t.task_id, input_responses=answers), timeout=TIMEOUT).task
    ok("AnswerTask", f"answered {key!r}; now {pb.TaskState.Name(a.state)}")
    # WatchTask streams each change, the last one done, with the outcome.
    seen = []
    for m in stub.WatchTask(pb.WatchTaskRequest(server=DEMO, task_id=t.task_id), timeout=25):
        seen.append(m.task)
    last = seen[-1]
    check(last.done and last.state == pb.TASK_STATE_COMPLETED and last.WhichOneof("result") == "response", f"WatchTask ended with {last}")
    text = last.response.content[0].text.text
    check(text == "built in 2 steps; published", f"the result is {text!r}")
    ok("WatchTask", f"{len(seen)} states, the last {pb.TaskState.Name(last.state)}: {text!r}")
    long = stub.StartTask(pb.StartTaskRequest(server=DEMO, name="build", arguments=to_struct({"steps": 100, "seconds": 1})),
                          timeout=TIMEOUT).task
    c = stub.CancelTask(pb.CancelTaskRequest(server=DEMO, task_id=long.task_id), timeout=TIMEOUT).task
    check(c.done and c.state == pb.TASK_STATE_CANCELLED, f"CancelTask gave {c}")
    ok("CancelTask", f"{pb.TaskState.Name(c.state)} {c.status_message!r}")
    listed = stub.ListTasks(pb.ListTasksRequest(server=DEMO), timeout=TIMEOUT).tasks
    ids = {x.task_id: x for x in listed}
    check(t.task_id in ids and long.task_id in ids, f"ListTasks gave {[x.task_id for x in listed]}")
    ok("ListTasks", ", ".join(f"{i[:6]}… {pb.TaskState.Name(x.state)}" for i, x in ids.items() if i in (t.task_id, long.task_id)))


def main():
    channel = grpc.insecure_channel(ADDR)  # grpc.secure_channel(ADDR, grpc.ssl_channel_credentials()) for TLS
    try:
        grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
    except grpc.FutureTimeoutError:
        print(f"FAIL connect: no bridge at {ADDR} (start it: see README.md)", flush=True)
        return 1
    stub = bridge_pb2_grpc.BridgeServiceStub(channel)

    steps = [
        ("GetServer", get_server),
        ("ListServers", list_servers),
        ("ListTools", list_tools),
        ("ListResources", list_resources),
        ("ListResourceTemplates", list_resource_templates),
        ("ListPrompts", list_prompts),
        ("CallTool", call_tool),
        ("ReadResource", read_resource),
        ("GetPrompt", get_prompt),
        ("Complete", complete),
        ("CallToolStream", call_tool_stream),
        ("Call", call),
        ("CallStream", call_stream),
        ("Subscribe", subscribe),
        ("Connect", connect),
        ("Ping", ping),
        ("error-details", error_details),
        ("retry-info", retry_info),
        ("deadline", deadline),
        ("input-required", input_required),
        ("server-request", server_request),
        ("tasks", tasks),
        ("bad-request", bad_request),
    ]
    failed = []
    for name, step in steps:
        try:
            step(stub)
        except Exception as err:
            failed.append(name)
            if isinstance(err, grpc.RpcError):
                d = mcpbridge_errors.details(err)
                why = f"{d.code.name} {d.message!r} {d.json_rpc_error or ''} {d.error_info or ''}".replace("\n", " ")
            elif isinstance(err, StepFailed):
                why = str(err)
            else:
                why = "".join(traceback.format_exception(type(err), err, err.__traceback__)).strip()
            print(f"FAIL {name}: {why}", flush=True)
    channel.close()
    if failed:
        print(f"{len(failed)} of {len(steps)} steps failed: {', '.join(failed)}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
