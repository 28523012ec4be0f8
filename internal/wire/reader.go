package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ReadBufferSize is the size of a Reader's buffer. Lines that fit in it are
// returned without copying.
const ReadBufferSize = 64 << 10

// LineTooLongError reports a line longer than the Reader's limit. It is
// returned once per over-long line, when the line has ended (its LF, or the
// end of input), in place of the line; the next ReadLine returns the line
// after it. The line's first and last bytes are kept, so that the message
// it held can still be answered or failed by its id ([LineTooLongError.ID]).
type LineTooLongError struct {
	// Limit is the Reader's limit in bytes.
	Limit int
	// Head is the line's first bytes (at most HeadBytes) and Tail its last
	// (at most TailBytes, line ending excluded). They overlap when the line
	// is short.
	Head, Tail []byte
}

// HeadBytes and TailBytes bound LineTooLongError's Head and Tail.
const (
	HeadBytes = 4 << 10
	TailBytes = 256
)

// Error names the limit.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line exceeds the %d-byte limit", e.Limit)
}

// Reader reads newline-delimited lines with a size limit, in constant
// memory: one ReadBufferSize buffer plus at most the limit.
//
// A line is the bytes up to and including its LF; the limit counts the
// whole line, LF and CR included. One CR directly before the LF is
// stripped, as is a UTF-8 byte order mark opening a line. Lines holding
// only whitespace are skipped. At EOF a final unterminated line within the
// limit is returned, then io.EOF.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	br         *bufio.Reader
	limit      int
	long       []byte            // accumulates lines that do not fit in br's buffer
	discarding bool              // inside an over-long line, not yet reported
	tooLong    *LineTooLongError // the over-long line being discarded
	fromLong   bool              // the line last returned lives in long
	err        error             // sticky read error
}

// NewReader returns a Reader over r that accepts lines of at most limit
// bytes; limit must be positive.
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, ReadBufferSize), limit: limit}
}

// maxKeep bounds the capacity of the long-line buffer kept between lines,
// so that one huge line does not pin memory for the Reader's lifetime.
const maxKeep = 1 << 20

// ReadLine returns the next non-blank line without its line ending. The
// slice is valid until the next call. It returns a *LineTooLongError for
// an over-long line, and the underlying read error (io.EOF at the end)
// once no line is left.
func (r *Reader) ReadLine() ([]byte, error) {
	for {
		line, err := r.readRaw()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimPrefix(line, bom)
		if !blank(line) {
			return line, nil
		}
	}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// readRaw returns the next line, blank or not, with its LF and one
// preceding CR removed.
func (r *Reader) readRaw() ([]byte, error) {
	if cap(r.long) > maxKeep {
		r.long = nil
	}
	r.long = r.long[:0]
	r.fromLong = false
	total := 0
	for {
		if r.err != nil {
			return r.finish(total)
		}
		frag, err := r.br.ReadSlice('\n')
		total += len(frag)
		switch {
		case err == nil: // frag ends in LF
			if r.discarding {
				return nil, r.endTooLong(frag[:len(frag)-1])
			}
			if total > r.limit {
				r.startTooLong(frag[:len(frag)-1])
				return nil, r.endTooLong(nil)
			}
			line := frag
			if len(r.long) > 0 {
				r.appendLong(frag)
				line, r.fromLong = r.long, true
			}
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			switch {
			case r.discarding:
				r.tooLong.Tail = appendTail(r.tooLong.Tail, frag)
			case total > r.limit:
				r.startTooLong(frag)
			default:
				r.appendLong(frag)
			}
		default:
			r.err = err
			if r.discarding {
				r.tooLong.Tail = appendTail(r.tooLong.Tail, frag)
			} else if len(frag) > 0 {
				r.appendLong(frag)
			}
		}
	}
}

// startTooLong begins discarding the line in the long-line buffer and
// frag, keeping its head and tail.
func (r *Reader) startTooLong(frag []byte) {
	e := &LineTooLongError{Limit: r.limit}
	e.Head = append(e.Head, r.long[:min(len(r.long), HeadBytes)]...)
	e.Head = append(e.Head, frag[:min(len(frag), HeadBytes-len(e.Head))]...)
	e.Tail = appendTail(appendTail(nil, r.long), frag)
	r.long = r.long[:0]
	r.tooLong, r.discarding = e, true
}

// endTooLong reports the discarded line, frag being its last fragment
// without the LF.
func (r *Reader) endTooLong(frag []byte) *LineTooLongError {
	e := r.tooLong
	e.Tail = bytes.TrimSuffix(appendTail(e.Tail, frag), []byte{'\r'})
	if over := len(e.Tail) - TailBytes; over > 0 {
		e.Tail = e.Tail[over:]
	}
	e.Head = bytes.TrimSuffix(e.Head, []byte{'\n'})
	e.Head = bytes.TrimSuffix(e.Head, []byte{'\r'})
	r.tooLong, r.discarding = nil, false
	return e
}

// appendTail appends frag to tail, keeping the last TailBytes+1 (one more
// for a CR that the line ending may strip).
func appendTail(tail, frag []byte) []byte {
	const keep = TailBytes + 1
	if len(frag) >= keep {
		return append(tail[:0], frag[len(frag)-keep:]...)
	}
	if over := len(tail) + len(frag) - keep; over > 0 {
		tail = append(tail[:0], tail[over:]...)
	}
	return append(tail, frag...)
}

// Detach hands the line last returned by ReadLine over to the caller
// when that costs nothing: it returns true when the line lives in a
// long-line buffer too big to be kept for the next line anyway (over
// 1 MiB), which the Reader then lets go of, so the line stays valid after
// the next call. Otherwise it returns false and the line is valid until
// the next call, as usual.
func (r *Reader) Detach() bool {
	if !r.fromLong || cap(r.long) <= maxKeep {
		return false
	}
	r.long, r.fromLong = nil, false
	return true
}

// appendLong appends frag to the long-line buffer. It doubles the buffer's
// capacity, up to the limit, where append would grow a large slice by a
// quarter at a time: reaching a 1 MB line through 64 KiB fragments then
// allocates about 2 MB instead of about 5 MB, which is what bounds the
// reader's peak memory on over-long lines (docs/stdio.md,
// "Memory and timing").
func (r *Reader) appendLong(frag []byte) {
	if need := len(r.long) + len(frag); need > cap(r.long) {
		c := max(2*cap(r.long), need, ReadBufferSize)
		if c > r.limit {
			c = max(r.limit, need)
		}
		grown := make([]byte, len(r.long), c)
		copy(grown, r.long)
		r.long = grown
	}
	r.long = append(r.long, frag...)
}

// finish handles the end of input: a final unterminated line within the
// limit is returned once, then the read error.
func (r *Reader) finish(total int) ([]byte, error) {
	if r.discarding {
		return nil, r.endTooLong(nil)
	}
	if len(r.long) == 0 {
		return nil, r.err
	}
	line := r.long
	if total > r.limit {
		r.startTooLong(nil)
		return nil, r.endTooLong(nil)
	}
	r.long = r.long[:0]
	r.fromLong = true
	if n := len(line); line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}
