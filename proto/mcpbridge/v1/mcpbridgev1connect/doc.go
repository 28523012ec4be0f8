// Package mcpbridgev1connect is the Go code that buf generates from
// bridge.proto with protoc-gen-connect-go: connect-go's handlers and client
// of mcpbridge.v1.BridgeService. The bridge's HTTP listener serves the API
// as the Connect protocol, gRPC-Web and gRPC through its handlers; a Go
// program may call the API over HTTP with its client
// (NewBridgeServiceClient), as with package mcpbridgev1's gRPC client over
// the gRPC listener.
//
// Every file here but this one is generated: edit bridge.proto and run
// `buf generate` (see .ci/buf), never bridge.connect.go.
package mcpbridgev1connect
