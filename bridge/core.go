package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/mcpbridge/mcpbridge/bridge/internal/aggregate"
	"github.com/mcpbridge/mcpbridge/bridge/internal/convert"
	"github.com/mcpbridge/mcpbridge/bridge/internal/door"
	"github.com/mcpbridge/mcpbridge/bridge/internal/grpcdoor"
	"github.com/mcpbridge/mcpbridge/bridge/internal/pool"
	"github.com/mcpbridge/mcpbridge/bridge/internal/rpcerr"
	"github.com/mcpbridge/mcpbridge/bridge/internal/tunnel"
	"github.com/mcpbridge/mcpbridge/stdio/jsonrpc"
)

// This file is the bridge as the parts below it see it: how a request
// names a fronted server (lookup), the gRPC API's handlers' view of the
// service (grpcdoor.Core), and a session tunnel's view of its server
// (tunnel.Host). The HTTP door's view is httpdoor.go's.

// lookup finds the fronted server a request names, by its server field or
// the mcp-server metadata key; when the bridge fronts one server, an empty
// name selects it. A failure is already a status. Whether the caller may
// use the server is the door's to say (package internal/door).
func (s *Service) lookup(ctx context.Context, field, method string) (*pool.Server, error) {
	name, err := serverName(ctx, field, method)
	if err != nil {
		return nil, err
	}
	set := s.serverSet()
	if agg, ok := s.aggregateSet()[name]; ok {
		return nil, rpcerr.ToStatus(name, method, &rpcerr.CallError{RPC: jsonrpc.Errorf(jsonrpc.CodeMethodNotFound,
			"%q is an aggregate of %s, and %s is not served on an aggregate: name one of its members, or open a session on the aggregate (Connect, /mcp/%s)",
			name, strings.Join(agg.Config().Members, ", "), method, name)})
	}
	srv, ok := set[name]
	if !ok && name == "" && len(set) == 1 {
		for _, only := range set {
			srv, ok = only, true
		}
	}
	if ok {
		return srv, nil
	}
	rpc := jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown server %q", name)
	if name == "" && len(set) > 1 {
		rpc = jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s", s.nameOneOf(ctx, set))
	}
	ce := &rpcerr.CallError{RPC: rpc, Reason: rpcerr.ReasonUnknownServer}
	if name == field { // named by the field, not by the metadata
		reason := convert.ReasonInvalidValue
		if name == "" {
			reason = convert.ReasonRequired
		}
		ce.Field = &convert.FieldError{Field: "server", Reason: reason, Err: ce.RPC}
	}
	return nil, rpcerr.ToStatus(name, method, ce)
}

// serverName is the name of the server a request names: its server field
// or the mcp-server metadata, which may not disagree.
func serverName(ctx context.Context, field, method string) (string, error) {
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(ServerMetadataKey); len(v) > 0 {
			if field != "" && v[0] != field {
				return "", rpcerr.ToStatus(field, method, rpcerr.InvalidInput(field, method, "%v", &convert.FieldError{Field: "server", Reason: convert.ReasonInvalidValue,
					Err: fmt.Errorf("the server field %q and the %s metadata %q disagree", field, ServerMetadataKey, v[0])}))
			}
			return v[0], nil
		}
	}
	return field, nil
}

// aggregateOf is the aggregate a request names, or nil when it names a
// server (or nothing it knows: lookup says so).
func (s *Service) aggregateOf(ctx context.Context, field string) *aggregate.Server {
	set := s.aggregateSet()
	if len(set) == 0 || field != "" && set[field] == nil {
		return nil // a server's name: lookup checks it against the metadata
	}
	name, err := serverName(ctx, field, "")
	if err != nil {
		return nil
	}
	return set[name]
}

// namedServersShown bounds how many server names a refusal lists.
const namedServersShown = 8

// nameOneOf says, for a request that names no server to a bridge that
// fronts several, that it must name one, how, and which: the servers the
// caller may use, sorted, at most namedServersShown of them.
func (s *Service) nameOneOf(ctx context.Context, set map[string]*pool.Server) string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if s.allowServer(ctx, name) {
			names = append(names, fmt.Sprintf("%q", name))
		}
	}
	listed := "none of them open to this caller"
	if len(names) > 0 {
		listed = strings.Join(names[:min(len(names), namedServersShown)], ", ")
		if more := len(names) - namedServersShown; more > 0 {
			listed += fmt.Sprintf(" and %d more", more)
		}
	}
	return fmt.Sprintf("no server named, and this bridge fronts several servers (%s): name one in the request's server field, "+
		"the %s metadata key, the path /mcp/{name} over HTTP, or mcpbridge connect --server NAME", listed, ServerMetadataKey)
}

// tunnelServer is the tunnel's view of its server and of the bridge
// (tunnelHost): the door each of its requests passes, the rules on list
// results, the server's deadlines.
type tunnelServer struct {
	s   *Service
	srv *pool.Server
}

// Admit reads the request once (door.ParseRequest: its target and its
// _meta) and takes it through the door; its deadline is the server's or
// the tool's longest.
func (h *tunnelServer) Admit(ctx context.Context, method string, params json.RawMessage, long bool) (*tunnel.Admission, *jsonrpc.Error) {
	req := door.ParseRequest(door.Via(ctx, door.ViaConnect), h.srv.Door(), method, params)
	req.Long = long
	if name := door.AggregateOf(ctx); name != "" { // a member session of an aggregate's
		req.Aggregate = &door.Aggregated{Server: name}
		if agg := h.s.aggregateSet()[name]; agg != nil && len(req.Names) == 1 {
			req.Aggregate.Name = agg.Config().ListedName(aggregate.KindOf(req.Kind), h.srv.Name(), req.Names[0])
		}
	}
	ps, refused := h.s.door.Admit(ctx, req)
	if refused != nil {
		return nil, refused.RPC
	}
	return &tunnel.Admission{Pass: ps, Meta: req.Meta, Deadline: pool.DeadlinesOf(h.srv.Config(), req.Tool()).Max}, nil
}

func (h *tunnelServer) FilterList(ctx context.Context, method string, res json.RawMessage) json.RawMessage {
	return h.s.door.FilterList(ctx, h.srv.Name(), method, res)
}

func (h *tunnelServer) DefaultDeadline() time.Duration { return h.s.cfg.DefaultDeadline }

func (h *tunnelServer) Logger() *slog.Logger { return h.s.cfg.Logger }

// api is the handlers' type under a name of this package's, so that
// Service embeds it without an exported field: its RPCs are Service's
// methods.
type api = grpcdoor.API

// coreView is the service as the gRPC API's handlers see it.
type coreView struct{ s *Service }

func (v coreView) Lookup(ctx context.Context, field, method string) (*pool.Server, error) {
	return v.s.lookup(ctx, field, method)
}
func (v coreView) Servers() map[string]*pool.Server { return v.s.serverSet() }
func (v coreView) Aggregate(ctx context.Context, field string) *aggregate.Server {
	return v.s.aggregateOf(ctx, field)
}
func (v coreView) Aggregates() []*aggregate.Server {
	set := v.s.aggregateSet()
	out := make([]*aggregate.Server, 0, len(set))
	for _, name := range slices.Sorted(maps.Keys(set)) {
		out = append(out, set[name])
	}
	return out
}
func (v coreView) AllowServer(ctx context.Context, server string) bool {
	return v.s.allowServer(ctx, server)
}
func (v coreView) Authenticate(ctx context.Context) (context.Context, error) {
	return v.s.authenticate(ctx)
}
func (v coreView) Door() *door.Door { return v.s.door }
func (v coreView) LongLived(ctx context.Context) (context.Context, func()) {
	return v.s.longLived(ctx)
}
func (v coreView) Open(ctx context.Context, server string, first []byte) (grpcdoor.Session, error) {
	ss, err := v.s.Open(ctx, server, first)
	if err != nil {
		return nil, err // not a nil *Session in an interface
	}
	return ss, nil
}
func (v coreView) MaxMessageBytes() int           { return v.s.cfg.MaxMessageBytes }
func (v coreView) DefaultDeadline() time.Duration { return v.s.cfg.DefaultDeadline }
func (v coreView) Logger() *slog.Logger           { return v.s.cfg.Logger }
