package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A Reader reads the record batches of an arrowpack stream, or of several
// streams of one schema written one after another (a spill file appended to,
// say). Truncation, a bad checksum or any corruption ends the reading with
// an error wrapping ErrCorrupt that says which; the Reader never panics and
// never allocates for a frame or a schema more than the bytes that arrive
// (its buffer grows as they do, from 64 KiB), nor more than WithMaxBlockSize
// for any block (FORMAT.md, "Bounds", gives the whole bound). A Reader is
// not safe for concurrent use.
type Reader struct {
	r      io.Reader
	cfg    config
	schema *arrow.Schema
	dec    *Decoder
	pool   *blockPool
	rec    arrow.RecordBatch
	info   BlockInfo
	err    error
	blocks uint64 // blocks read in the current stream
	read   int64  // bytes read from r by readPart
	done   bool
	refs   atomic.Int64
}

// NewReader reads the stream header from r and returns a Reader for the
// stream's batches. The options that apply are the Decoder's:
// WithMaxBlockSize (which also caps the schema and every frame read from r),
// WithAllocator and WithConcurrency (for decompressing a block's chunks);
// options of the Encoder are accepted and ignored. The Reader starts with a
// reference count of 1.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("NewReader: %w", err)
	}
	rd := &Reader{r: r, cfg: cfg, pool: &blockPool{}}
	rd.refs.Store(1)
	schema, err := rd.readStreamHeader(nil)
	if err != nil {
		return nil, err
	}
	rd.schema = schema
	if rd.dec, err = NewDecoder(schema, opts...); err != nil {
		return nil, err
	}
	return rd, nil
}

// Schema returns the stream's schema.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Next advances to the next batch and reports whether there is one. At the
// end of the input, or on an error, it returns false; Err tells which.
func (r *Reader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.err != nil || r.done {
		return false
	}
	for {
		rec, err := r.next()
		if err != nil {
			if err != io.EOF {
				r.err = err
			} else {
				r.done = true
			}
			return false
		}
		if rec != nil {
			r.rec = rec
			return true
		}
	}
}

// Read returns the next batch, or (nil, io.EOF) at a clean end of the
// input, or (nil, err) with the error that ended the reading, so that a
// Reader is an arrio.Reader (arrio.Copy can read from it). Like
// RecordBatch's, the batch is the Reader's until the next call of Read or
// Next.
func (r *Reader) Read() (arrow.RecordBatch, error) {
	if r.Next() {
		return r.rec, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	return nil, io.EOF
}

// RecordBatch returns the current batch. The Reader releases it at the next
// call of Next or Read, or when its reference count drops to 0; Retain the
// batch to keep it longer (it stays valid: its memory is reused only once
// every array of it is released).
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record returns the current batch.
//
// Deprecated: Use RecordBatch, as arrow-go's RecordReader says.
func (r *Reader) Record() arrow.RecordBatch { return r.rec }

// BlockInfo describes the block the current batch was decoded from.
func (r *Reader) BlockInfo() BlockInfo { return r.info }

// Err returns the error that ended the reading, or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// Retain increases the Reader's reference count by 1, as for arrow-go's
// readers.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release decreases the Reader's reference count by 1. When it reaches 0
// the current batch is released and the Reader reads no more (Next returns
// false). The Reader never closes the underlying io.Reader.
func (r *Reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	r.done = true
}

// next reads one frame: a batch, or nil at an end frame followed by another
// stream, or io.EOF at the end of the input.
func (r *Reader) next() (arrow.RecordBatch, error) {
	n, crc, err := r.frameHeader()
	if err != nil || n == 0 {
		return nil, err
	}
	buf, err := r.readGrowing(int(n), "block", r.pool.Allocate, r.pool.Free)
	if err != nil {
		return nil, err
	}
	if got, want := Checksum(buf), crc; got != want {
		r.pool.Free(buf)
		return nil, corruptf("block %d: checksum %#08x, the frame says %#08x", r.blocks, got, want)
	}
	if r.info, err = ReadBlockInfo(buf); err != nil {
		r.pool.Free(buf)
		return nil, fmt.Errorf("block %d: %w", r.blocks, err)
	}
	mb := memory.NewBufferWithAllocator(buf, r.pool)
	rec, err := r.dec.DecodeBuffer(mb)
	mb.Release()
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", r.blocks, err)
	}
	r.blocks++
	return rec, nil
}

// frameHeader reads the header of the next frame and checks it. It returns
// the length and CRC32C of the block the frame holds; or a length of 0 at an
// end frame followed by another stream (whose header it has read); or
// io.EOF at the end of the input.
func (r *Reader) frameHeader() (n uint64, crc uint32, err error) {
	var fh [frameHeaderSize]byte
	if err := r.readFull(fh[:], "frame header"); err != nil {
		return 0, 0, err
	}
	n = binary.LittleEndian.Uint64(fh[:])
	if n == 0 {
		if count := binary.LittleEndian.Uint64(fh[8:]); count != r.blocks {
			return 0, 0, corruptf("end frame counts %d blocks, the stream held %d", count, r.blocks)
		}
		// Another stream may follow.
		var magic [4]byte
		if n, err := io.ReadFull(r.r, magic[:]); err != nil {
			switch {
			case err == io.EOF:
				return 0, 0, io.EOF
			case err == io.ErrUnexpectedEOF:
				return 0, 0, corruptf("%d stray bytes after an end frame", n)
			default:
				return 0, 0, fmt.Errorf("reading after an end frame: %w", err)
			}
		}
		if _, err := r.readStreamHeader(magic[:]); err != nil {
			return 0, 0, err
		}
		r.blocks = 0
		return 0, 0, nil
	}
	if binary.LittleEndian.Uint32(fh[12:]) != 0 {
		return 0, 0, corruptf("frame header has nonzero reserved bytes")
	}
	if n < headerSize || n%8 != 0 || n > uint64(r.cfg.maxBlock)+headerSize {
		return 0, 0, corruptf("frame of %d bytes: not a block of at most %d bytes (WithMaxBlockSize)", n, r.cfg.maxBlock+headerSize)
	}
	return n, binary.LittleEndian.Uint32(fh[8:]), nil
}

// readFull fills b from the input; running out is ErrCorrupt (truncation).
func (r *Reader) readFull(b []byte, what string) error {
	return r.readPart(b, 0, len(b), what)
}

// readPart fills b, bytes from..from+len(b) of a part of n bytes, from the
// input; running out is ErrCorrupt (truncation).
func (r *Reader) readPart(b []byte, from, n int, what string) error {
	got, err := io.ReadFull(r.r, b)
	r.read += int64(got)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return corruptf("stream truncated in a %s (%d of %d bytes)", what, from+got, n)
	default:
		return fmt.Errorf("reading a %s: %w", what, err)
	}
}

// readStart is the most the Reader allocates for a frame or a schema before
// its bytes arrive, beyond the bytes it has read of the input so far.
const readStart = 64 << 10

// readGrowing reads a part of n bytes (a block, a schema) whose length the
// input claims into memory from alloc (and free, if not nil, for the
// buffers it outgrows), allocating no more than the bytes that arrive:
// it starts with room for min(n, max(readStart, bytes read so far)) and
// doubles it as the bytes fill it. A stream cut short so costs about what
// it held, and a stream of blocks of one size, once it has read one,
// reads each block into one buffer of its size.
func (r *Reader) readGrowing(n int, what string, alloc func(int) []byte, free func([]byte)) ([]byte, error) {
	buf := alloc(int(min(int64(n), max(readStart, r.read))))
	got := 0
	for {
		if err := r.readPart(buf[got:], got, n, what); err != nil {
			if free != nil {
				free(buf)
			}
			return nil, err
		}
		got = len(buf)
		if got == n {
			return buf, nil
		}
		next := alloc(got + min(n-got, got)) // doubling, without overflow on 32 bits
		copy(next, buf)
		if free != nil {
			free(buf)
		}
		buf = next
	}
}

// readStreamHeader reads a stream header, whose magic may have been read
// already, and its schema. The schema of every stream after the first must
// match the first's.
func (r *Reader) readStreamHeader(magic []byte) (*arrow.Schema, error) {
	var h [streamHeaderSize]byte
	copy(h[:], magic)
	if err := r.readFull(h[len(magic):], "stream header"); err != nil {
		return nil, err
	}
	if [4]byte(h[:4]) != streamMagic {
		return nil, corruptf("bad stream magic %q, want %q%s", h[:4], streamMagic[:], ipcHint(h[:]))
	}
	if h[4] != streamVersion {
		return nil, corruptf("stream version %d, this library reads %d", h[4], streamVersion)
	}
	if h[5]|h[6]|h[7] != 0 || binary.LittleEndian.Uint32(h[20:]) != 0 {
		return nil, corruptf("stream header has nonzero reserved bytes")
	}
	n := binary.LittleEndian.Uint64(h[8:])
	if limit := min(maxSchemaSize, r.cfg.maxBlock); n > uint64(limit) {
		return nil, corruptf("schema of %d bytes is above the limit of %d", n, limit)
	}
	sch, err := r.readGrowing(pad8(int(n)), "schema", func(n int) []byte { return make([]byte, n) }, nil)
	if err != nil {
		return nil, err
	}
	sch = sch[:n]
	if got, want := Checksum(sch), binary.LittleEndian.Uint32(h[16:]); got != want {
		return nil, corruptf("schema checksum %#08x, the header says %#08x", got, want)
	}
	schema, err := ReadSchema(sch)
	if err != nil {
		return nil, err
	}
	// ReadSchema bounded the schema's depth and size, which bounds the
	// work of fingerprinting a later stream's schema.
	if r.schema != nil && fingerprint(schema) != r.dec.fingerprint {
		diff := SchemaDiff(r.schema, schema, "the first stream")
		if diff == "" {
			diff = "its fields' metadata or a nested field differs"
		}
		return nil, fmt.Errorf("%w: a stream of other fields follows the first: %s", ErrSchemaMismatch, diff)
	}
	return schema, nil
}

// ReadSchema reads a schema serialized as an Arrow IPC stream: one schema
// message, optionally followed by the end-of-stream marker (what arrow-go's
// ipc.Writer writes for a stream without batches, and what a stream header
// holds). Unlike arrow-go's IPC reader, which trusts the message's counts
// and offsets (a hostile one crashes the process or allocates without
// bound), it verifies every offset, count and depth first, so any bytes give
// a schema or an error wrapping ErrCorrupt. Recovering from a panic inside
// arrow-go is a second line only, reported to onRecoveredPanic like any
// other.
func ReadSchema(b []byte) (schema *arrow.Schema, err error) {
	if err := verifySchemaMessage(b); err != nil {
		return nil, err
	}
	defer recoverCorrupt(&err)
	ir, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		if arrowRecovered(err) && onRecoveredPanic != nil {
			onRecoveredPanic(err, nil)
		}
		return nil, corruptf("schema: %v", err)
	}
	defer ir.Release()
	return ir.Schema(), nil
}

// ipcHint says what a stream that is not arrowpack looks like, when it
// begins as an Arrow IPC stream (a continuation marker) or file ("ARROW1")
// does: such bytes are read with arrow-go's ipc package.
func ipcHint(head []byte) string {
	switch {
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == 0xFFFFFFFF:
		return ": this looks like an Arrow IPC stream (read it with ipc.NewReader)"
	case len(head) >= 6 && string(head[:6]) == "ARROW1":
		return ": this looks like an Arrow IPC file (read it with ipc.NewFileReader)"
	}
	return ""
}
