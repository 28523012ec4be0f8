// Package mcpbridgev1 is the Go code that buf generates from bridge.proto,
// the wire contract of mcpbridge's gRPC API (service
// mcpbridge.v1.BridgeService). The comments in bridge.proto are the API's
// documentation: server selection, deadlines, the error mapping and the
// routing of requests from legacy children are described at its top.
//
// Every file here but this one and bridge_test.go is generated: edit
// bridge.proto and run `buf generate` (see .ci/buf), never the .pb.go files.
package mcpbridgev1
