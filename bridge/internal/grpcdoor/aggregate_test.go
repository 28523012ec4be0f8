package grpcdoor

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// aggregateOf adds to core the aggregate cfg of its servers.
func aggregateOf(t *testing.T, core *testCore, cfg aggregate.Config) {
	t.Helper()
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	if core.aggs == nil {
		core.aggs = map[string]*aggregate.Server{}
	}
	core.aggs[cfg.Name] = aggregate.NewServer(cfg)
}

// TestAggregate serves the aggregates "all" (prefixed) and "pri"
// (priority) of a legacy and a modern fixture: the lists merged, each
// typed RPC, Call and the streams routed to the member the name leads to,
// a resource two members list told apart, an answer to a member's
// elicitation sent to the aggregate, and the aggregate described.
func TestAggregate(t *testing.T) {
	t.Parallel()
	core := newCore(startEras(t)...)
	aggregateOf(t, core, aggregate.Config{Name: "all", Members: []string{"legacy", "modern"}})
	aggregateOf(t, core, aggregate.Config{Name: "pri", Members: []string{"modern", "legacy"}, Conflicts: aggregate.Priority})
	client := serve(t, core)
	ctx := testCtx(t)

	tools, err := client.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: "all"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.GetTools() {
		names = append(names, tool.GetName())
	}
	if !slices.Contains(names, "legacy_echo") || !slices.Contains(names, "modern_echo") || slices.Contains(names, "echo") {
		t.Errorf("ListTools on all = %v, want each member's under its prefix", names)
	}
	for _, member := range []string{"legacy", "modern"} {
		res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "all", Name: member + "_echo", Arguments: args(t, map[string]any{"text": member})})
		if err != nil || text(t, res) != member {
			t.Errorf("CallTool %s_echo on all = %v, %v", member, res, err)
		}
	}
	_, err = client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "all", Name: "nobody_echo"})
	wantStatus(t, "an unknown prefix", err, codes.InvalidArgument, rpcerr.ReasonChildError, jsonrpc.CodeInvalidParams)
	_, err = client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "all"})
	wantStatus(t, "no name", err, codes.InvalidArgument, rpcerr.ReasonInvalidInput, jsonrpc.CodeInvalidParams)

	// Under priority the first member's tool wins.
	res, err := client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "pri", Name: "echo", Arguments: args(t, map[string]any{"text": "x"})})
	if err != nil || text(t, res) != "x" {
		t.Errorf("CallTool echo on pri = %v, %v", res, err)
	}
	if v := core.aggs["pri"].View(aggregate.Tools); v == nil {
		t.Error("pri kept no view of its tools")
	} else if tg, _ := v.Route("echo"); tg.Member != "modern" {
		t.Errorf("pri routes echo to %s, want modern, its first member", tg.Member)
	}
	_, err = client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "pri", Name: "nobody"})
	wantStatus(t, "a name no member lists", err, codes.InvalidArgument, rpcerr.ReasonChildError, jsonrpc.CodeInvalidParams)

	// Resources: mem://a is both members'; the second is told apart.
	rl, err := client.ListResources(ctx, &mcpbridgev1.ListResourcesRequest{Server: "all"})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rl.GetResources() {
		uris = append(uris, r.GetUri())
	}
	want := []string{"mem://a", aggregate.MemberURI("modern", "mem://a")}
	if !slices.Equal(uris, want) {
		t.Errorf("ListResources on all = %v, want %v", uris, want)
	}
	for _, uri := range append(want, "mem://items/7") {
		rr, err := client.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: "all", Uri: uri})
		if err != nil || len(rr.GetContents()) == 0 {
			t.Errorf("ReadResource %s on all = %v, %v", uri, rr, err)
		}
	}
	_, err = client.ReadResource(ctx, &mcpbridgev1.ReadResourceRequest{Server: "all", Uri: "zz://nothing"})
	wantStatus(t, "a URI no member has", err, codes.NotFound, rpcerr.ReasonChildError, -32002)
	tl, err := client.ListResourceTemplates(ctx, &mcpbridgev1.ListResourceTemplatesRequest{Server: "all"})
	if err != nil || len(tl.GetResourceTemplates()) != 2 {
		t.Errorf("ListResourceTemplates on all = %v, %v; want both members'", tl, err)
	}

	pl, err := client.ListPrompts(ctx, &mcpbridgev1.ListPromptsRequest{Server: "all"})
	if err != nil || len(pl.GetPrompts()) != 2 || pl.GetPrompts()[0].GetName() != "legacy_greet" {
		t.Errorf("ListPrompts on all = %v, %v", pl, err)
	}
	gp, err := client.GetPrompt(ctx, &mcpbridgev1.GetPromptRequest{Server: "all", Name: "modern_greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || len(gp.GetMessages()) == 0 {
		t.Errorf("GetPrompt modern_greet on all = %v, %v", gp, err)
	}
	cp, err := client.Complete(ctx, &mcpbridgev1.CompleteRequest{Server: "all", Ref: &mcpbridgev1.CompleteRequest_PromptName{PromptName: "legacy_greet"},
		ArgumentName: "name", ArgumentValue: "A"})
	if err != nil {
		t.Errorf("Complete legacy_greet on all = %v, %v", cp, err)
	}

	// Call: a list as JSON, a call routed, another method to the first member.
	raw, err := client.Call(ctx, &mcpbridgev1.CallRequest{Server: "all", Method: "tools/list"})
	if err != nil || !strings.Contains(raw.GetResultJson(), `"legacy_echo"`) {
		t.Errorf("Call tools/list on all = %v, %v", raw, err)
	}
	raw, err = client.Call(ctx, &mcpbridgev1.CallRequest{Server: "all", Method: "tools/call", ParamsJson: `{"name":"modern_echo","arguments":{"text":"raw"}}`})
	if err != nil || !strings.Contains(raw.GetResultJson(), "raw") {
		t.Errorf("Call tools/call modern_echo on all = %v, %v", raw, err)
	}
	_, err = client.Call(ctx, &mcpbridgev1.CallRequest{Server: "all", Method: "tools/list", ParamsJson: `{"cursor":"bogus"}`})
	wantStatus(t, "a cursor not the aggregate's", err, codes.InvalidArgument, rpcerr.ReasonInvalidInput, jsonrpc.CodeInvalidParams)
	_, err = client.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: "all", Cursor: "bogus"})
	wantStatus(t, "a typed list's bad cursor", err, codes.InvalidArgument, rpcerr.ReasonInvalidInput, jsonrpc.CodeInvalidParams)

	// Streams, and an answer to a member's elicitation sent to the aggregate.
	st, err := client.CallToolStream(ctx, &mcpbridgev1.CallToolStreamRequest{Server: "all", Name: "legacy_ask", ServerRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Recv()
	if err != nil || m.GetServerRequest().GetMethod() != "elicitation/create" {
		t.Fatalf("CallToolStream legacy_ask on all: %v, %v; want the member's elicitation", m, err)
	}
	if _, err := client.RespondToServerRequest(ctx, &mcpbridgev1.RespondToServerRequestRequest{Server: "all", Id: m.GetServerRequest().GetId(),
		Outcome: &mcpbridgev1.RespondToServerRequestRequest_ResultJson{ResultJson: `{"action":"accept","content":{"name":"Ada"}}`}}); err != nil {
		t.Fatalf("RespondToServerRequest on all = %v", err)
	}
	if msgs, err := recvAll(st); err != nil || len(msgs) != 1 || text(t, msgs[0].GetResult()) != "hello Ada" {
		t.Errorf("after the answer: %v, %v", msgs, err)
	}
	cs, err := client.CallStream(ctx, &mcpbridgev1.CallStreamRequest{Server: "all", Method: "tools/call", ParamsJson: `{"name":"modern_echo","arguments":{"text":"s"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if msgs, err := recvAll(cs); err != nil || len(msgs) != 1 || !strings.Contains(msgs[0].GetResult().GetResultJson(), "s") {
		t.Errorf("CallStream modern_echo on all = %v, %v", msgs, err)
	}
	ping, err := client.Ping(ctx, &mcpbridgev1.PingRequest{Server: "all"})
	if err != nil || ping.GetMethod() != "ping" {
		t.Errorf("Ping on all = %v, %v; want the first member's (legacy) ping", ping, err)
	}

	// The aggregate described, and listed.
	gs, err := client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "all"})
	if err != nil || gs.GetPolicy() != mcpbridgev1.ServerPolicy_SERVER_POLICY_AGGREGATE || len(gs.GetMembers()) != 2 || gs.GetMembers()[1].GetName() != "modern" {
		t.Errorf("GetServer all = %v, %v", gs, err)
	}
	core.hidden["legacy"] = true
	gs, _ = client.GetServer(ctx, &mcpbridgev1.GetServerRequest{Server: "all"})
	if len(gs.GetMembers()) != 1 {
		t.Errorf("GetServer all for a caller who may not use legacy shows %d members, want 1", len(gs.GetMembers()))
	}
	delete(core.hidden, "legacy")
	ls, err := client.ListServers(ctx, &mcpbridgev1.ListServersRequest{})
	var listed []string
	for _, s := range ls.GetServers() {
		listed = append(listed, s.GetName())
	}
	if err != nil || !slices.Equal(listed, []string{"all", "legacy", "modern", "pri"}) {
		t.Errorf("ListServers = %v, %v", listed, err)
	}
}

// A member that is gone leaves its items out of the lists, and a request
// to it says which member.
func TestAggregateMemberGone(t *testing.T) {
	t.Parallel()
	servers := startEras(t)
	core := newCore(servers...)
	aggregateOf(t, core, aggregate.Config{Name: "all", Members: []string{"legacy", "modern", "gone"}})
	client := serve(t, core)
	ctx := testCtx(t)
	tools, err := client.ListTools(ctx, &mcpbridgev1.ListToolsRequest{Server: "all"})
	if err != nil || len(tools.GetTools()) == 0 {
		t.Fatalf("ListTools with a member gone = %v, %v; want the others'", tools, err)
	}
	_, err = client.CallTool(ctx, &mcpbridgev1.CallToolRequest{Server: "all", Name: "gone_echo"})
	if err == nil || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("CallTool gone_echo = %v; want the member named", err)
	}
	var _ *pool.Server = servers[0]
}
