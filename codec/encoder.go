package codec

import (
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// An Encoder writes record batches of one schema as blocks. It works out
// everything that depends only on the schema once, in NewEncoder; a block
// then carries no schema, only a fingerprint of it. An Encoder is safe for
// concurrent use by many goroutines.
type Encoder struct {
	schema      *arrow.Schema
	plans       []*plan
	fingerprint uint64
	cfg         config
	scratch     sync.Pool   // *[]uint64: aligned room for raw blocks
	compressor  *compressor // nil without compression
}

// NewEncoder returns an Encoder for batches of schema. It fails with an
// error wrapping ErrUnsupported if a field's type cannot be encoded or an
// option is not supported.
func NewEncoder(schema *arrow.Schema, opts ...Option) (*Encoder, error) {
	if !littleEndian {
		return nil, fmt.Errorf("%w: big-endian platforms", ErrUnsupported)
	}
	plans, err := newPlans(schema)
	if err != nil {
		return nil, fmt.Errorf("NewEncoder: %w", err)
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("NewEncoder: %w", err)
	}
	e := &Encoder{schema: schema, plans: plans, fingerprint: fingerprint(schema), cfg: cfg}
	if e.cfg.compression != None {
		if e.compressor, err = newCompressor(e.cfg.compression, e.cfg.level, e.cfg.minSavings); err != nil {
			return nil, fmt.Errorf("NewEncoder: %w", err)
		}
	}
	return e, nil
}

// Schema returns the schema the Encoder was made for.
func (e *Encoder) Schema() *arrow.Schema { return e.schema }

// Append encodes rec as one block appended to dst and returns the extended
// slice. When dst has room for the block, Append allocates nothing. A batch
// whose schema differs from the Encoder's is refused with an error wrapping
// ErrSchemaMismatch. Sliced arrays are written as the slice alone, at every
// level of nesting.
func (e *Encoder) Append(dst []byte, rec arrow.RecordBatch) (_ []byte, err error) {
	if err := e.checkSchema(rec.Schema()); err != nil {
		return dst, err
	}
	rows := rec.NumRows()
	if rows > maxLength {
		return dst, fmt.Errorf("%w: batch of %d rows; a block holds at most %d", ErrUnsupported, rows, maxLength)
	}
	// A batch that breaks Arrow's invariants (offsets past the end of
	// its data, say) makes the encoder slice out of range; report that as
	// an error rather than crash the caller.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrInvalidBatch, r)
		}
	}()
	cols := rec.Columns()
	for i, c := range cols {
		if c.Len() != int(rows) {
			return dst, fmt.Errorf("%w: column %d has %d rows, the batch %d", ErrInvalidBatch, i, c.Len(), rows)
		}
	}
	counter := writer{}
	e.body(&counter, cols)
	size := headerSize + counter.pos
	if e.compressor != nil {
		return e.appendCompressed(dst, cols, int(rows), size), nil
	}

	start := len(dst)
	dst = slices.Grow(dst, size)[:start+size]
	block := dst[start:]
	if aligned(block) {
		e.write(block, cols, int(rows), 0)
		return dst, nil
	}
	// Typed writes need an 8-byte aligned block: write it elsewhere and
	// copy it in.
	sp, tmp := e.rawBuffer(size)
	e.write(tmp, cols, int(rows), 0)
	copy(block, tmp)
	e.scratch.Put(sp)
	return dst, nil
}

// rawBuffer returns size bytes of 8-byte aligned memory, and the pooled
// buffer to give back to e.scratch.
func (e *Encoder) rawBuffer(size int) (*[]uint64, []byte) {
	sp, _ := e.scratch.Get().(*[]uint64)
	if sp == nil || len(*sp)*8 < size {
		s := make([]uint64, (size+7)/8)
		sp = &s
	}
	return sp, unsafeBytes(*sp)[:size]
}

// appendCompressed writes the raw block of size bytes aside, compresses the
// sections of its body worth compressing and appends the compressed block
// to dst, or the raw block if no section was worth it or the result is not
// smaller.
func (e *Encoder) appendCompressed(dst []byte, cols []arrow.Array, rows, size int) []byte {
	sp, raw := e.rawBuffer(size)
	defer e.scratch.Put(sp)
	c := e.compressor
	ss, _ := c.scratch.Get().(*sectionScratch)
	if ss == nil {
		ss = new(sectionScratch)
	}
	defer c.scratch.Put(ss)
	xf := e.cfg.transforms
	if ss.marks == nil {
		ss.marks = make([]int, 0, 64)
	}
	ss.marks = e.writeMarked(raw, cols, rows, xf, ss.marks[:0])
	body := raw[headerSize:]
	ss.secs = c.planSections(ss, body, e.cfg.concurrency)
	stored := -1
	for _, s := range ss.secs {
		if s.codec != None {
			ss.out, stored = c.compressSections(ss.secs, body, ss.out, e.cfg.concurrency)
			break
		}
	}
	if stored < 0 || stored >= len(body) {
		if xf != 0 {
			e.write(raw, cols, rows, 0)
		}
		return append(dst, raw...)
	}
	start := len(dst)
	dst = slices.Grow(dst, headerSize+stored)[:start+headerSize+stored]
	h := header{compression: e.cfg.compression, flags: xf, fingerprint: e.fingerprint, rows: rows,
		stored: stored, raw: size - headerSize}
	h.put(dst[start:])
	putSections(&writer{buf: dst[start:], pos: headerSize}, ss.secs, body)
	return dst
}

// write writes the uncompressed block of cols into block, which has its
// exact size, with the transforms xf applied to its buffers (the header
// records none: it is the caller's to rewrite for a compressed block).
func (e *Encoder) write(block []byte, cols []arrow.Array, rows int, xf flags) {
	e.writeMarked(block, cols, rows, xf, nil)
}

// writeMarked is write that also appends to marks, if not nil, the body
// offset of every buffer's first byte and of every byte plane of transposed
// values, in order, and returns marks.
func (e *Encoder) writeMarked(block []byte, cols []arrow.Array, rows int, xf flags, marks []int) []int {
	h := header{compression: None, fingerprint: e.fingerprint, rows: rows,
		stored: len(block) - headerSize, raw: len(block) - headerSize}
	h.put(block)
	w := writer{buf: block, pos: headerSize, xf: xf, marks: marks, marking: marks != nil}
	e.body(&w, cols)
	if w.pos != len(block) {
		panic(fmt.Sprintf("arrowpack: block sized %d bytes, written %d", len(block), w.pos))
	}
	return w.marks
}

func (e *Encoder) body(w *writer, cols []arrow.Array) {
	for i, p := range e.plans {
		d := cols[i].Data()
		encodeNode(w, p, d, d.Offset(), d.Len())
	}
}

// checkSchema reports whether batches of s can be encoded by e: the same
// field names, nullability and types.
func (e *Encoder) checkSchema(s *arrow.Schema) error {
	if s == e.schema {
		return nil
	}
	if s.NumFields() != e.schema.NumFields() {
		return fmt.Errorf("%w: batch has %d fields, the encoder's schema %d", ErrSchemaMismatch, s.NumFields(), e.schema.NumFields())
	}
	for i := range e.schema.NumFields() {
		f, g := s.Field(i), e.schema.Field(i)
		if f.Name != g.Name || f.Nullable != g.Nullable || !arrow.TypeEqual(f.Type, g.Type) {
			return fmt.Errorf("%w: field %d is %s, the encoder's schema has %s", ErrSchemaMismatch, i, f, g)
		}
	}
	return nil
}
