// Package convert is the one place where MCP's JSON meets the typed
// messages of mcpbridge.v1 (bridge.proto, "JSON payloads"; the fidelity
// rules of docs/protocol.md): child results become typed responses, typed
// requests become the params of a child request, per protocol era.
//
// The rules:
//
//   - Child results are read member by member from the compact JSON the
//     stdio Client returns, never through Go structs, so key matching is
//     exact and nothing is decoded twice. null counts as absent, as MCP's
//     optional fields are. Members the typed message does not model are
//     left out: the bridge's Call RPC returns them.
//   - Object-valued members (schemas, annotations, _meta, arguments) become
//     google.protobuf.Struct verbatim apart from numbers, which Struct keeps
//     as doubles by design.
//   - A content block this API cannot model (an unknown type, or a known
//     type with members of the wrong JSON type or bad base64) becomes
//     other_json with the block's JSON text, so nothing is silently dropped.
//     Anything else of the wrong shape makes the whole result unreadable:
//     the decoder's error becomes INTERNAL at the gRPC edge, and the caller
//     can fetch the result with Call.
//   - Fields are era-gated as bridge.proto's "Eras:" tags say ([Era]):
//     resultType, ttlMs, cacheScope and MRTR are read from 2026-07-28
//     children only, icons from 2025-11-25 and 2026-07-28 children,
//     execution from 2025-11-25 children only. Nothing is synthesized for a
//     legacy child.
//   - Requests are written as compact JSON with Struct keys sorted and
//     numbers formatted as encoding/json does. A builder's error is bad
//     input from the gRPC client: it never reaches a child.
package convert
