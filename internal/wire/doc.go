// Package wire is the JSON-RPC 2.0 wire format of the stdio transport, both
// halves: [Decode] validates one line and splits it into a [Message] whose
// raw members stay JSON text; [Reader] reads newline-delimited lines with
// a hard limit, discarding an over-long line in constant memory; the
// Append functions build complete frames ready for one Write; and
// [DecodeError] reads the error member of a response.
//
// The bounds of docs/stdio.md, "Framing", are enforced here and in package
// rawjson: ids are strings of at most [MaxIDBytes] bytes or int64
// integers, number literals have at most 64 integer digits, and nesting
// stops at 10,000 levels.
package wire
