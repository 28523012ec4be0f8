package rawjson

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// Bounds of the stdio wire format (docs/stdio.md, "Framing").
const (
	// MaxDepth is the deepest nesting of arrays and objects accepted, the
	// same limit as encoding/json.
	MaxDepth = 10000
	// MaxIntegerDigits is the most digits a number literal's integer part
	// may have (sign excluded). The check is one linear pass, so a
	// 2,000,000-digit literal is refused without big-number conversion.
	MaxIntegerDigits = 64
)

// SyntaxError is a parse failure at an offset of the scanned text.
type SyntaxError struct {
	// Msg says what is wrong, in encoding/json's words.
	Msg string
	// Offset is where in the text it was found.
	Offset int
}

func (e *SyntaxError) Error() string { return e.Msg }

var errUnexpectedEnd = errors.New("unexpected end of JSON input")

// scanner validates JSON text in one pass. It records what a later
// rewrite needs: whether the text holds insignificant whitespace and
// whether any string holds invalid UTF-8.
type scanner struct {
	data    []byte
	pos     int
	depth   int
	space   bool // insignificant whitespace seen (inside the value)
	nonASCI bool // a byte >= 0x80 seen inside a string

	// keys, when set, name the top-level members whose values go to vals
	// (a fixed table, not a callback, so that nothing escapes to the heap).
	// vals is the scanner's own array, not the caller's slice: the
	// recursive walk leaks what the scanner points to, and a caller's
	// table would move to the heap on every call.
	keys []string
	vals [maxMembers][]byte
}

// maxMembers is the most members ScanMembers picks in one pass.
const maxMembers = 8

func (s *scanner) fail(msg string) error {
	return &SyntaxError{Msg: msg, Offset: s.pos}
}

// skipSpace skips JSON whitespace and reports whether there was any.
func (s *scanner) skipSpace() bool {
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return s.pos != start
		}
	}
	return s.pos != start
}

// innerSpace skips whitespace between tokens of a value, noting it.
func (s *scanner) innerSpace() {
	if s.skipSpace() {
		s.space = true
	}
}

// value validates one value starting at s.pos (no leading whitespace).
func (s *scanner) value() error {
	if s.pos >= len(s.data) {
		return errUnexpectedEnd
	}
	switch c := s.data[s.pos]; c {
	case '{':
		return s.object()
	case '[':
		return s.array()
	case '"':
		return s.str()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return s.number()
		}
		return s.fail("invalid character looking for beginning of value")
	}
}

func (s *scanner) literal(lit string) error {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return s.fail("invalid literal")
	}
	s.pos += len(lit)
	return nil
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > MaxDepth {
		return s.fail("exceeded max depth")
	}
	return nil
}

func (s *scanner) object() error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '{'
	s.innerSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		if s.pos >= len(s.data) {
			return errUnexpectedEnd
		}
		if s.data[s.pos] != '"' {
			return s.fail("invalid character looking for beginning of object key string")
		}
		keyStart := s.pos
		if err := s.str(); err != nil {
			return err
		}
		keyEnd := s.pos
		s.innerSpace()
		if s.pos >= len(s.data) {
			return errUnexpectedEnd
		}
		if s.data[s.pos] != ':' {
			return s.fail("invalid character after object key")
		}
		s.pos++
		s.innerSpace()
		valStart := s.pos
		if err := s.value(); err != nil {
			return err
		}
		if s.keys != nil && s.depth == 1 {
			s.record(s.data[keyStart:keyEnd], s.data[valStart:s.pos])
		}
		s.innerSpace()
		if s.pos >= len(s.data) {
			return errUnexpectedEnd
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.innerSpace()
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.fail("invalid character after object key:value pair")
		}
	}
}

func (s *scanner) array() error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // '['
	s.innerSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		if err := s.value(); err != nil {
			return err
		}
		s.innerSpace()
		if s.pos >= len(s.data) {
			return errUnexpectedEnd
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.innerSpace()
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return s.fail("invalid character after array element")
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainRun returns how many bytes from the start of b need no attention
// inside a string: not '"', not '\\', not a control character and ASCII.
// It works eight bytes at a time, which keeps long string payloads cheap.
func plainRun(b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		x := binary.LittleEndian.Uint64(b[n:])
		// Bytes < 0x20, == '"', == '\\' or >= 0x80 light their high bit.
		lt := (x - lsb*0x20) & ^x
		q := x ^ (lsb * '"')
		q = (q - lsb) & ^q
		bs := x ^ (lsb * '\\')
		bs = (bs - lsb) & ^bs
		m := (lt | q | bs | x) & msb
		if m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
		n += 8
	}
	for n < len(b) {
		c := b[n]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return n
		}
		n++
	}
	return n
}

func (s *scanner) str() error {
	s.pos++ // opening quote
	for {
		s.pos += plainRun(s.data[s.pos:])
		if s.pos >= len(s.data) {
			return errUnexpectedEnd
		}
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return nil
		case c == '\\':
			if err := s.escape(); err != nil {
				return err
			}
		case c < 0x20:
			return s.fail("invalid character in string literal")
		default: // >= 0x80: UTF-8 is checked, and repaired, by the encoder
			s.nonASCI = true
			s.pos++
			for s.pos < len(s.data) && s.data[s.pos] >= 0x80 {
				s.pos++
			}
		}
	}
}

func (s *scanner) escape() error {
	s.pos++ // backslash
	if s.pos >= len(s.data) {
		return errUnexpectedEnd
	}
	switch s.data[s.pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos++
		return nil
	case 'u':
		if len(s.data)-s.pos < 5 {
			return errUnexpectedEnd
		}
		for _, h := range s.data[s.pos+1 : s.pos+5] {
			if !isHex(h) {
				return s.fail("invalid character in \\u hexadecimal character escape")
			}
		}
		s.pos += 5
		return nil
	default:
		return s.fail("invalid character in string escape code")
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (s *scanner) digits() int {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}

func (s *scanner) number() error {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if s.pos >= len(s.data) {
		return errUnexpectedEnd
	}
	switch c := s.data[s.pos]; {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		if s.digits() > MaxIntegerDigits {
			return s.fail("number literal has too many integer digits")
		}
	default:
		return s.fail("invalid character in numeric literal")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return s.fail("invalid character after decimal point in numeric literal")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return s.fail("invalid character in exponent of numeric literal")
		}
	}
	return nil
}

// Info describes a validated JSON text.
type Info struct {
	// Start and End bound the value, surrounding whitespace excluded.
	Start, End int
	// Space reports insignificant whitespace inside the value.
	Space bool
	// BadUTF8 reports a string holding invalid UTF-8.
	BadUTF8 bool
}

// Scan validates data as exactly one JSON value with optional surrounding
// whitespace, in one pass. The error of invalid text says what is wrong,
// in encoding/json's words; a *SyntaxError also says where.
func Scan(data []byte) (Info, error) {
	return ScanMembers(data, nil, nil)
}

// ScanMembers is Scan that also picks members out of a top-level object
// as it validates them: the raw value of the member named keys[i] (the
// last one, when a key repeats) goes to vals[i], which stays nil when
// there is none. Keys are compared decoded. vals must be as long as keys,
// which are at most 8.
func ScanMembers(data []byte, keys []string, vals [][]byte) (Info, error) {
	if len(keys) > maxMembers {
		panic("rawjson: ScanMembers picks at most 8 members")
	}
	s := scanner{data: data, keys: keys}
	defer copy(vals, s.vals[:len(keys)])
	s.skipSpace()
	info := Info{Start: s.pos}
	if err := s.value(); err != nil {
		return info, err
	}
	info.End = s.pos
	s.skipSpace()
	if s.pos != len(data) {
		return info, s.fail("invalid character after top-level value")
	}
	info.Space = s.space
	info.BadUTF8 = s.nonASCI && !utf8.Valid(data[info.Start:info.End])
	return info, nil
}

// record keeps a top-level member's value when its key is wanted.
func (s *scanner) record(key, value []byte) {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		name, ok := StringValue(key)
		if !ok {
			return
		}
		inner = []byte(name)
	}
	for i, k := range s.keys {
		if string(inner) == k { // compared without allocating
			s.vals[i] = value
			return
		}
	}
}

// SkipValue returns the end of the value starting at data[i], which must be
// the start of a value inside text that has already been validated. It does
// no validation, so it is cheaper than scanning.
func SkipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return SkipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = SkipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number or literal: runs up to a delimiter
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// SkipString returns the index just past the string starting at data[i]
// in validated text. Only its closing quote matters, which is the first
// quote after an even run of backslashes: bytes.IndexByte finds quotes many
// bytes at a time, so skipping a long string costs a fraction of scanning
// it (a nested result is skipped once per level of its walk;
// docs/performance.md, "A large result").
func SkipString(data []byte, i int) int {
	i++
	for {
		k := bytes.IndexByte(data[i:], '"')
		if k < 0 {
			return len(data)
		}
		q := i + k
		bs := 0
		for q-bs > i && data[q-bs-1] == '\\' {
			bs++
		}
		if bs%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// SkipSpace returns the index of the first non-whitespace byte at or after i.
func SkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
