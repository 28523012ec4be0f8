package rawjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// AppendCompact validates src as exactly one JSON value (surrounding
// whitespace allowed) and appends it to dst with insignificant whitespace
// removed and invalid UTF-8 inside strings replaced by \ufffd. Everything
// else, numbers, key order, escapes and raw non-ASCII text, is kept byte for
// byte: the text is never decoded into Go values. The result holds no raw
// LF or CR, so it can always be framed as one line.
//
// Invalid input returns dst unchanged and Scan's error.
func AppendCompact(dst, src []byte) ([]byte, error) {
	info, err := Scan(src)
	if err != nil {
		return dst, err
	}
	v := src[info.Start:info.End]
	if !info.Space && !info.BadUTF8 {
		return append(dst, v...), nil
	}
	return rewrite(dst, v, info.BadUTF8), nil
}

// Canonical returns src itself when it already is one compact, valid JSON
// value in valid UTF-8 (the common case for text that came from a
// program), and otherwise what Compact returns: it validates without
// copying what needs no rewriting.
func Canonical(src []byte) (json.RawMessage, error) {
	info, err := Scan(src)
	if err != nil {
		return nil, err
	}
	if !info.Space && !info.BadUTF8 && info.Start == 0 && info.End == len(src) {
		return src, nil
	}
	return rewrite(make([]byte, 0, len(src)), src[info.Start:info.End], info.BadUTF8), nil
}

// Compact is AppendCompact into a new slice.
func Compact(src []byte) (json.RawMessage, error) {
	out, err := AppendCompact(make([]byte, 0, len(src)), src)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rewrite copies validated JSON text, dropping whitespace outside strings
// and, when repair is set, replacing invalid UTF-8 with \ufffd.
func rewrite(dst, v []byte, repair bool) []byte {
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"':
			end := SkipString(v, i)
			if repair {
				dst = appendRepaired(dst, v[i:end])
			} else {
				dst = append(dst, v[i:end]...)
			}
			i = end
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}

// appendRepaired appends s with each invalid UTF-8 byte replaced by the
// escape \ufffd.
func appendRepaired(dst, s []byte) []byte {
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[:size]...)
		}
		s = s[size:]
	}
	return dst
}

// Marshal encodes v as compact JSON without HTML escaping (encoding/json
// escapes <, > and & by default, which would change pass-through text).
// A json.RawMessage or []byte holding JSON text goes through AppendCompact.
func Marshal(v any) (json.RawMessage, error) {
	switch t := v.(type) {
	case json.RawMessage:
		return Compact(t)
	case nil:
		return json.RawMessage("null"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return unescapeSeparators(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// unescapeSeparators writes U+2028 and U+2029 raw, as the rest of the
// package writes non-ASCII text: encoding/json escapes them even without
// HTML escaping (for JavaScript), which changes a caller's bytes for no
// gain on a line-framed stream. An escaped backslash before "u2028" is
// text, not an escape, and is left alone.
func unescapeSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) {
		return b
	}
	out := b[:0:0]
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			out = append(out, b[i])
			continue
		}
		if i+5 < len(b) && b[i+1] == 'u' && string(b[i+2:i+5]) == "202" && (b[i+5] == '8' || b[i+5] == '9') {
			out = append(out, 0xE2, 0x80, 0xA8+(b[i+5]-'8'))
			i += 5
			continue
		}
		// Any other escape: copy the backslash and the escaped byte.
		out = append(out, b[i])
		if i+1 < len(b) {
			out = append(out, b[i+1])
			i++
		}
	}
	return out
}

// AppendString appends s as a JSON string: ", \ and control characters are
// escaped, invalid UTF-8 becomes \ufffd, and everything else, non-ASCII and
// U+2028 included, is written raw. No HTML escaping.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, `\u00`...)
			dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// AppendInt appends an integer.
func AppendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }
