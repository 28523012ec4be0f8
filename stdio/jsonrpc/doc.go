// Package jsonrpc is the JSON-RPC 2.0 layer that both halves of package
// [github.com/mcpbridge/mcpbridge/stdio] and the gRPC bridge share: the
// message model, a validating scanner, the encoder and the line reader.
//
// It works on JSON text, never on decoded Go values, so that everything that
// passes through it keeps its numbers, key order and escapes byte for byte:
//
//   - [Decode] validates one line and splits it into a [Message] whose fields
//     are sub-slices of the line (parameters and results stay raw).
//   - [AppendCompact] validates a JSON value and removes insignificant
//     whitespace, so that pass-through text can never break line framing.
//     Invalid UTF-8 inside strings becomes \ufffd; non-ASCII text is kept raw.
//   - [Reader] reads newline-delimited lines with a hard limit, discarding an
//     over-long line in constant memory and reporting it once.
//   - [AppendRequest], [AppendResponse], [AppendError] and
//     [AppendNotification] build complete frames, ready for one Write.
//
// The bounds of STDIO.md §2 are enforced here: ids are strings of at most
// [MaxIDBytes] bytes or int64 integers, number literals have at most
// [MaxIntegerDigits] integer digits, and nesting stops at [MaxDepth].
package jsonrpc
