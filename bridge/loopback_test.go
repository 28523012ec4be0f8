package bridge

import (
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// Helpers for tests that serve a Service over real gRPC on loopback.

// loopbackBridge serves svc's gRPC server on a loopback port and returns a
// client connection. Cleanup stops both and closes svc.
func loopbackBridge(t *testing.T, svc *Service) *grpc.ClientConn {
	t.Helper()
	return loopbackBridgeWith(t, svc, nil)
}

// loopbackBridgeWith is loopbackBridge with a chance to register more
// services before serving.
func loopbackBridgeWith(t *testing.T, svc *Service, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	t.Cleanup(func() { svc.Close() }) // after serveLoopback's cleanup
	gs := svc.NewGRPCServer()
	if register != nil {
		register(gs)
	}
	return serveLoopback(t, gs)
}

// newService starts a Service and closes it at cleanup.
func newService(t *testing.T, cfg Config) *Service {
	t.Helper()
	svc, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// splitStatus splits err's status into its details.
func splitStatus(err error) (*status.Status, *mcpbridgev1.JsonRpcError, *errdetails.ErrorInfo, *errdetails.RetryInfo) {
	st := status.Convert(err)
	var (
		rpc  *mcpbridgev1.JsonRpcError
		info *errdetails.ErrorInfo
		ri   *errdetails.RetryInfo
	)
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *mcpbridgev1.JsonRpcError:
			rpc = d
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.RetryInfo:
			ri = d
		}
	}
	return st, rpc, info, ri
}
