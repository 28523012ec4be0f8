package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
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

// Reader reads newline-delimited lines with a size limit, in bounded
// memory: one ReadBufferSize buffer and at most the limit for a line being
// read (twice the line's length while a line over 1 MiB is joined).
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
	long       []byte            // accumulates lines that do not fit in br's buffer, up to maxKeep
	more       [][]byte          // the rest of a line longer than maxKeep, in maxKeep chunks
	joined     bool              // the line last returned was joined from long and more
	discarding bool              // inside an over-long line, not yet reported
	tooLong    *LineTooLongError // the over-long line being discarded
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
	r.long = r.long[:0] // its capacity is at most maxKeep (appendLong)
	r.joined = false
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
				line = r.takeLong()
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
	e.Tail = appendTail(nil, r.long)
	for _, c := range r.more {
		e.Tail = appendTail(e.Tail, c)
	}
	e.Tail = appendTail(e.Tail, frag)
	r.long, r.more = r.long[:0], putChunks(r.more)
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
// when that costs nothing: it returns true when the line was longer than
// the buffer kept between lines (1 MiB) and so lives in memory of its own,
// which stays valid after the next call. Otherwise it returns false and the
// line is valid until the next call, as usual.
func (r *Reader) Detach() bool {
	return r.joined
}

// appendLong appends frag to the line being accumulated. Up to maxKeep
// bytes it goes into long, whose capacity doubles (up to the limit), where
// append would grow a large slice by a quarter at a time; long is kept for
// the next line. Past maxKeep it goes into chunks of maxKeep bytes that
// are never moved, and takeLong joins them once, at the line's end, into
// memory of the line's own size: a line of n bytes costs about 2n bytes
// allocated, where doubling one buffer to its size cost up to 4n (a 10 MiB
// result took 3.2 bytes per byte; docs/performance.md), and about n once
// chunkPool holds the chunks of an earlier huge line. That bounds the
// reader's memory while a line is read to the limit and one maxKeep
// chunk, and while it is joined to twice that (docs/stdio.md, "Memory and
// timing").
func (r *Reader) appendLong(frag []byte) {
	if len(r.more) == 0 {
		if need := len(r.long) + len(frag); need > cap(r.long) && cap(r.long) < maxKeep {
			c := min(max(2*cap(r.long), need, ReadBufferSize), maxKeep, max(r.limit, ReadBufferSize))
			grown := make([]byte, len(r.long), c)
			copy(grown, r.long)
			r.long = grown
		}
		n := min(len(frag), cap(r.long)-len(r.long))
		r.long = append(r.long, frag[:n]...)
		frag = frag[n:]
	}
	for len(frag) > 0 {
		if len(r.more) == 0 || len(r.more[len(r.more)-1]) == maxKeep {
			r.more = append(r.more, getChunk())
		}
		last := &r.more[len(r.more)-1]
		n := min(len(frag), maxKeep-len(*last))
		*last = append(*last, frag[:n]...)
		frag = frag[n:]
	}
}

// takeLong returns the accumulated line: long itself, or long and the
// chunks joined into one new slice (bytes.Join allocates it without
// zeroing), after which the chunks go back to chunkPool.
func (r *Reader) takeLong() []byte {
	if len(r.more) == 0 {
		return r.long
	}
	line := bytes.Join(append([][]byte{r.long}, r.more...), nil)
	r.long, r.more, r.joined = r.long[:0], putChunks(r.more), true
	return line
}

// chunkPool holds the maxKeep chunks of huge lines between lines, for
// every Reader of the process: a 10 MiB line takes ten, which fresh
// memory would take page faults to fill on every such line
// (docs/performance.md, "A large result"). A sync.Pool lets the collector
// take them back when no huge line comes for a while, so a burst of huge
// lines pins nothing.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, maxKeep); return &b }}

func getChunk() []byte { return (*chunkPool.Get().(*[]byte))[:0] }

// putChunks returns chunks, all of getChunk's making, to chunkPool and
// returns nil.
func putChunks(chunks [][]byte) [][]byte {
	for _, c := range chunks {
		c = c[:0]
		chunkPool.Put(&c)
	}
	return nil
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
	if total > r.limit {
		r.startTooLong(nil)
		return nil, r.endTooLong(nil)
	}
	line := r.takeLong()
	if n := len(line); line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}
