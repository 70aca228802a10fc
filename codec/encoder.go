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
	encodings   sync.Pool   // *encoding: the state of AppendBatches calls
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
// ErrSchemaMismatch, and one that breaks Arrow's invariants (an array whose
// offset and length reach past its buffers, at any level) with an error
// wrapping ErrInvalidBatch. On any error Append returns dst unchanged.
// Sliced arrays are written as the slice alone, at every level of nesting.
// Append(dst, rec) is AppendBatches(dst, rec).
func (e *Encoder) Append(dst []byte, rec arrow.RecordBatch) ([]byte, error) {
	return e.AppendBatches(dst, rec)
}

// AppendBatches encodes the rows of recs, in order, as one block appended to
// dst, and returns the extended slice: the block decodes as one batch, and
// is byte for byte the block Append writes for array.Concatenate's
// concatenation of recs, without making that concatenation. (One batch is
// written as Append writes it, which keeps the sizes of null list views
// that Concatenate sets to 0.) Zero batches,
// or batches of zero rows, make a valid block of zero rows. When dst has
// room for the block, AppendBatches allocates nothing, unless batches carry
// dictionaries that differ, which it unifies as array.Concatenate does.
//
// Every batch must have the Encoder's schema (otherwise an error wraps
// ErrSchemaMismatch) and be a valid batch (otherwise ErrInvalidBatch). An
// error wraps ErrUnsupported when the batches are valid but do not fit one
// block together: more than 2^31-1 rows, more data than 32-bit offsets
// reach, more rows than a run-end type counts, or dictionaries arrow-go
// cannot unify. On any error AppendBatches returns dst unchanged.
func (e *Encoder) AppendBatches(dst []byte, recs ...arrow.RecordBatch) (res []byte, err error) {
	c, rows, size, err := e.sized(recs)
	if err != nil {
		return dst, err
	}
	defer e.putEncoding(c)
	defer func() {
		if r := recover(); r != nil {
			res, err = dst, recovered(r)
		}
	}()
	k := len(recs)
	if e.compressor != nil {
		return e.appendCompressed(dst, c, k, rows, size), nil
	}

	start := len(dst)
	out := slices.Grow(dst, size)[:start+size]
	block := out[start:]
	if aligned(block) {
		e.write(block, c, k, rows, 0)
		return out, nil
	}
	// Typed writes need an 8-byte aligned block: write it elsewhere and
	// copy it in.
	sp, tmp := e.rawBuffer(size)
	defer e.scratch.Put(sp)
	e.write(tmp, c, k, rows, 0)
	copy(block, tmp)
	return out, nil
}

// sized checks recs against the schema and Arrow's invariants, gathers
// their columns' segs and sizes their uncompressed block: what
// AppendBatches does before it writes. The encoding returned is the
// caller's to give back with putEncoding; on error there is none.
func (e *Encoder) sized(recs []arrow.RecordBatch) (c *encoding, rows, size int, err error) {
	total := int64(0)
	for k, rec := range recs {
		if err := e.checkSchema(rec.Schema()); err != nil {
			if len(recs) > 1 {
				err = fmt.Errorf("batch %d: %w", k, err)
			}
			return nil, 0, 0, err
		}
		for i, col := range rec.Columns() {
			if int64(col.Len()) != rec.NumRows() {
				return nil, 0, 0, fmt.Errorf("%w: column %d of batch %d has %d rows, the batch %d", ErrInvalidBatch, i, k, col.Len(), rec.NumRows())
			}
		}
		total += rec.NumRows()
	}
	if total > maxLength {
		return nil, 0, 0, fmt.Errorf("%w: batches of %d rows; a block holds at most %d", ErrUnsupported, total, maxLength)
	}
	c, _ = e.encodings.Get().(*encoding)
	if c == nil {
		c = new(encoding)
	}
	defer func() {
		if r := recover(); r != nil {
			e.putEncoding(c)
			c, err = nil, recovered(r)
		}
	}()
	for i := range e.plans {
		for _, rec := range recs {
			d := rec.Column(i).Data()
			c.push(d, d.Offset(), d.Len())
		}
	}
	c.w = writer{}
	e.body(c, len(recs))
	return c, int(total), headerSize + c.w.pos, nil
}

// recovered turns what the encoding functions panicked with into the error
// to return. Their checks of lengths raise an encodeError; anything else
// that escapes (a batch whose offsets are not monotonic making a slice run
// out of range, say) is an invalid batch too, never a crash of the caller.
func recovered(r any) error {
	if ee, ok := r.(encodeError); ok {
		return ee.err
	}
	return fmt.Errorf("%w: %v", ErrInvalidBatch, r)
}

// blockSize returns the size of rec's uncompressed block, after the checks
// Append makes.
func (e *Encoder) blockSize(rec arrow.RecordBatch) (int, error) {
	c, _, size, err := e.sized([]arrow.RecordBatch{rec})
	if err != nil {
		return 0, err
	}
	e.putEncoding(c)
	return size, nil
}

func (e *Encoder) putEncoding(c *encoding) {
	c.reset()
	e.encodings.Put(c)
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
func (e *Encoder) appendCompressed(dst []byte, c *encoding, k, rows, size int) []byte {
	sp, raw := e.rawBuffer(size)
	defer e.scratch.Put(sp)
	cp := e.compressor
	ss, _ := cp.scratch.Get().(*sectionScratch)
	if ss == nil {
		ss = new(sectionScratch)
	}
	defer cp.scratch.Put(ss)
	xf := e.cfg.transforms
	if ss.marks == nil {
		ss.marks = make([]int, 0, 64)
	}
	ss.marks = e.writeMarked(raw, c, k, rows, xf, ss.marks[:0])
	body := raw[headerSize:]
	ss.secs = cp.planSections(ss, body, e.cfg.concurrency)
	stored := -1
	for _, s := range ss.secs {
		if s.codec != None {
			ss.out, stored = cp.compressSections(ss.secs, body, ss.out, e.cfg.concurrency)
			break
		}
	}
	if stored < 0 || stored >= len(body) {
		if xf != 0 {
			e.write(raw, c, k, rows, 0)
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

// write writes the uncompressed block of the k batches whose column segs c
// holds into block, which has its exact size, with the transforms xf
// applied to its buffers (the header records none: it is the caller's to
// rewrite for a compressed block).
func (e *Encoder) write(block []byte, c *encoding, k, rows int, xf flags) {
	e.writeMarked(block, c, k, rows, xf, nil)
}

// writeMarked is write that also appends to marks, if not nil, the body
// offset of every buffer's first byte and of every byte plane of transposed
// values, in order, and returns marks.
func (e *Encoder) writeMarked(block []byte, c *encoding, k, rows int, xf flags, marks []int) []int {
	h := header{compression: None, fingerprint: e.fingerprint, rows: rows,
		stored: len(block) - headerSize, raw: len(block) - headerSize}
	h.put(block)
	c.w = writer{buf: block, pos: headerSize, xf: xf, marks: marks, marking: marks != nil}
	c.di, c.lp, c.li = 0, 0, 0
	e.body(c, k)
	if c.w.pos != len(block) {
		panic(fmt.Sprintf("arrowpack: block sized %d bytes, written %d", len(block), c.w.pos))
	}
	marks = c.w.marks
	c.w.marks = nil
	return marks
}

// body writes (or, with a counting writer, sizes) the body of the block of
// k batches: column i from c.segs[i*k:(i+1)*k].
func (e *Encoder) body(c *encoding, k int) {
	for i, p := range e.plans {
		c.node(p, c.segs[i*k:(i+1)*k])
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
