// Package rawjson works on JSON text without decoding it into Go values, so
// that what passes through keeps its numbers, key order and escapes byte for
// byte.
//
//   - [Scan] validates one value in one linear pass, within the bounds of the
//     stdio wire format ([MaxDepth], [MaxIntegerDigits]).
//   - [AppendCompact], [Compact] and [Canonical] remove insignificant
//     whitespace and replace invalid UTF-8 inside strings with \ufffd, so
//     that the result can always be framed as one line.
//   - [Member], [Fields], [EachField], [Elements], [SetMember] and
//     [DeleteMember] read and edit validated objects and arrays in place.
//   - [AppendString], [AppendInt], [AppendFloat] and [Marshal] write JSON as
//     the stdio encoder does: UTF-8 raw, no HTML escaping.
//
// Everything but Scan and the compacting functions expects text that has
// already been validated, as every message the wire package decodes is.
package rawjson
