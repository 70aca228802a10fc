package codec

import (
	"fmt"
	"slices"

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
	encodings   *freeList[encoding] // the state of AppendBatches calls
	scratch     *freeList[[]byte]   // aligned room for raw blocks written aside
	compressor  *compressor         // nil without compression
	lz4         *compressor         // Light's: LZ4's, which its blocks are compared with
	streak      streak              // Light's: how many blocks to write as LZ4's
}

// NewEncoder returns an Encoder for batches of schema. It fails with an
// error wrapping ErrUnsupported if a field's type cannot be encoded or an
// option is not supported.
func NewEncoder(schema *arrow.Schema, opts ...Option) (*Encoder, error) {
	return newEncoder("NewEncoder", schema, opts)
}

// newEncoder is NewEncoder for the constructor name, which its errors name.
func newEncoder(name string, schema *arrow.Schema, opts []Option) (*Encoder, error) {
	if !littleEndian {
		return nil, fmt.Errorf("%w: big-endian platforms", ErrUnsupported)
	}
	plans, err := newPlans(schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkLevel(name, cfg.compression, cfg.level); err != nil {
		return nil, err
	}
	e := &Encoder{schema: schema, plans: plans, fingerprint: fingerprint(schema), cfg: cfg,
		encodings: newFreeList(func() *encoding { return new(encoding) }),
		scratch: newFreeList(func() *[]byte {
			b := alignedAt(64<<10, 0)
			return &b
		})}
	if e.cfg.compression != None {
		if e.compressor, err = newCompressor(e.cfg.compression, e.cfg.level, e.cfg.minSavings); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if e.cfg.compression == Light {
		if e.lz4, err = newCompressor(LZ4, 0, e.cfg.minSavings); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return e, nil
}

// Schema returns the schema the Encoder was made for.
func (e *Encoder) Schema() *arrow.Schema { return e.schema }

// Append encodes rec as one block appended to dst and returns the extended
// slice. When dst has room for the block, Append allocates nothing. A batch
// whose schema differs from the Encoder's is refused with an error wrapping
// ErrSchemaMismatch, and one that breaks an invariant the decoder checks,
// at any level (an array whose offset and length reach past its buffers,
// offsets that decrease or pass the data, strings that are not UTF-8,
// dictionary indices, union type ids and offsets, run ends or views out of
// range, a null count that is not its bitmap's, children missing or too
// short: FORMAT.md lists them) with an error wrapping ErrInvalidBatch that
// names the column and the row. Batches are checked before anything is
// sized from them, so the block Append writes is one the decoder accepts,
// and decodes to a batch equal to rec. On any error Append returns dst
// unchanged.
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
// cannot unify. On any error AppendBatches returns dst unchanged (though,
// as append may, it may have written past len(dst) in dst's capacity: the
// block is written in one pass, and some faults are found on the way).
func (e *Encoder) AppendBatches(dst []byte, recs ...arrow.RecordBatch) ([]byte, error) {
	start := len(dst)
	res, err := e.appendBatches(dst, recs)
	if err != nil || !e.cfg.checksum {
		return res, err
	}
	return sealBlock(res, start), nil
}

// appendBatches is AppendBatches without the checksum trailer.
func (e *Encoder) appendBatches(dst []byte, recs []arrow.RecordBatch) (res []byte, err error) {
	c, rows, err := e.gather(recs)
	if err != nil {
		return dst, err
	}
	defer e.putEncoding(c)
	defer func() {
		if r := recover(); r != nil {
			res, err = dst, e.recovered(r, recs)
		}
	}()
	return e.appendGathered(dst, c, len(recs), rows), nil
}

// appendGathered writes the block of rows rows whose segs c holds (k per
// column, or as c.cols says) to dst, compressed if e compresses: the
// writing half of AppendBatches, which the caller guards with a recover.
func (e *Encoder) appendGathered(dst []byte, c *encoding, k, rows int) []byte {
	if e.compressor != nil {
		return e.appendCompressed(dst, c, k, rows)
	}
	start := len(dst)
	out := dst[:cap(dst)]
	if cap(dst) > start && !aligned(out[start:]) {
		// Typed writes need an 8-byte aligned block: write it aside and
		// copy it in.
		sp := e.scratch.get()
		defer e.scratch.put(sp)
		c.w.init(*sp, 0)
		raw := e.writeBlock(c, k, rows)
		*sp = c.w.out
		return append(dst, raw...)
	}
	c.w.init(out, start)
	return e.writeBlock(c, k, rows)
}

// gather checks recs against the schema and every invariant the decoder
// checks (checkArray), and sets the segs of their columns: what
// AppendBatches does before it writes. The encoding returned is the
// caller's to give back with putEncoding; on error there is none.
func (e *Encoder) gather(recs []arrow.RecordBatch) (c *encoding, rows int, err error) {
	total := int64(0)
	for k, rec := range recs {
		if err := e.checkSchema(rec.Schema()); err != nil {
			if len(recs) > 1 {
				err = fmt.Errorf("batch %d: %w", k, err)
			}
			return nil, 0, err
		}
		total += rec.NumRows()
	}
	if total > maxLength {
		return nil, 0, fmt.Errorf("%w: batches of %d rows; a block holds at most %d", ErrUnsupported, total, maxLength)
	}
	c = e.encodings.get()
	got := c // a return with an error sets c to nil before this runs
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, e.recovered(r, recs)
		}
		if err != nil {
			e.putEncoding(got)
		}
	}()
	// Batch by batch, so that each batch's arrays are looked at together,
	// while the segs go column by column.
	k := len(recs)
	// A dictionary the batches share is checked once; the nulls of a
	// column are counted as its bitmap is copied.
	ck := checker{dicts: &c.checked, countLater: true}
	c.segs = slices.Grow(c.segs[:0], len(e.plans)*k)[:len(e.plans)*k]
	c.hw = max(c.hw, len(c.segs))
	for r, rec := range recs {
		cols, rows := rec.Columns(), rec.NumRows()
		if len(cols) != len(e.plans) {
			return nil, 0, fmt.Errorf("%w: batch %d has %d columns, its schema %d fields", ErrInvalidBatch, r, len(cols), len(e.plans))
		}
		for i, col := range cols {
			d := col.Data()
			s := &c.segs[i*k+r]
			s.d = d
			p := e.plans[i]
			plain := s.read(d, p)
			if int64(s.length) != rows {
				return nil, 0, fmt.Errorf("%w: column %d of batch %d has %d rows, the batch %d", ErrInvalidBatch, i, r, s.length, rows)
			}
			// Checked before anything is sized from it: the commonest
			// columns as they are read, the rest in full.
			if !plain {
				if f := ck.arrayFull(p, d, &s.arrayHead, s.base, s.length); f != nil {
					return nil, 0, f.err(e.schema.Field(i).Name, r, k)
				}
			}
			s.setRows(-1, -1)
			s.countNulls = s.nulls > 0
			c.est += s.estimate(p)
		}
	}
	return c, int(total), nil
}

// check makes every check AppendBatches makes of rec, those it makes as it
// writes included, writing nothing.
func (e *Encoder) check(rec arrow.RecordBatch) error {
	recs := []arrow.RecordBatch{rec}
	c, _, err := e.gather(recs)
	if err != nil {
		return err
	}
	e.putEncoding(c)
	return e.deepCheck(recs)
}

// deepCheck returns the error naming the first fault of recs that a deep
// check finds (the batch, the column, the row and what is wrong), or nil.
func (e *Encoder) deepCheck(recs []arrow.RecordBatch) error {
	for r, rec := range recs {
		for i, col := range rec.Columns() {
			d := col.Data()
			if f := (checker{deep: true}).array(e.plans[i], d, d.Offset(), d.Len()); f != nil {
				return f.err(e.schema.Field(i).Name, r, len(recs))
			}
		}
	}
	return nil
}

// recovered turns what the encoding functions panicked with, writing
// recs, into the error to return. Their checks of lengths raise an
// encodeError; a lateFault is named by a deep check of recs; anything
// else that escapes is an invalid batch too, never a crash of the caller.
func (e *Encoder) recovered(r any, recs []arrow.RecordBatch) error {
	switch r := r.(type) {
	case encodeError:
		return r.err
	case lateFault:
		return e.explain(recs)
	}
	return fmt.Errorf("%w: %v", ErrInvalidBatch, r)
}

// explain returns the error naming the fault the writer found in recs.
func (e *Encoder) explain(recs []arrow.RecordBatch) error {
	if err := e.deepCheck(recs); err != nil {
		return err
	}
	return fmt.Errorf("%w: the batches break an invariant the encoder found as it wrote them", ErrInvalidBatch)
}

// blockSize returns the size of rec's uncompressed block, after the checks
// Append makes.
func (e *Encoder) blockSize(rec arrow.RecordBatch) (size int, err error) {
	c, rows, err := e.gather([]arrow.RecordBatch{rec})
	if err != nil {
		return 0, err
	}
	defer e.putEncoding(c)
	defer func() {
		if r := recover(); r != nil {
			size, err = 0, e.recovered(r, []arrow.RecordBatch{rec})
		}
	}()
	c.w = writer{} // counting
	e.writeBlock(c, 1, rows)
	return c.w.pos, nil
}

func (e *Encoder) putEncoding(c *encoding) {
	c.reset()
	e.encodings.put(c)
}

// appendCompressed writes the raw block aside, compresses the sections of
// its body worth compressing and appends the compressed block to dst, or
// the raw block if no section was worth it or the result is not smaller.
// A Light block that LZ4 may store in fewer bytes (lz4MayWin, or all raw)
// is also compressed as the LZ4 encoder would, and the smaller kept.
func (e *Encoder) appendCompressed(dst []byte, c *encoding, k, rows int) []byte {
	xf, cp := e.cfg.transforms, e.compressor
	small := e.cfg.compression == Light && c.est < minDecide && rows < minLightRows && e.cfg.minSavings < 1
	if small {
		// A small block of few rows is compressed as MinLZ compresses
		// it, transposed (section_light.go).
		xf = defaultTransforms
	} else if e.cfg.compression == Light && e.streak.skip() {
		xf, cp = defaultTransforms, e.lz4 // light_streak.go
	}
	sp := e.scratch.get()
	defer e.scratch.put(sp)
	ss := cp.scratch.get()
	defer cp.scratch.put(ss)
	raw, stored := e.compressBlock(cp, ss, sp, c, k, rows, xf)
	kind := cp.kind
	// A block Light stored all raw (stored < 0) is compared too: its
	// estimates left every piece raw, which LZ4 may still shrink (a
	// bitmap of alternating bools).
	if cp.kind == Light && (stored < 0 || lz4MayWin(&ss.reach, raw[headerSize:], ss.secs, stored)) {
		lp, ls := e.lz4, e.lz4.scratch.get()
		defer lp.scratch.put(ls)
		var lraw []byte
		var lstored int
		if xf == defaultTransforms {
			// A small block was written as LZ4's encoder writes it:
			// only its sections differ, so the raw block is not
			// written again (a tiny table's encode spent a fifth of
			// its time writing blocks).
			ls.xf = xf
			ls.marks = append(ls.marks[:0], ss.marks...)
			ls.hints = append(ls.hints[:0], ss.hints...)
			lraw, lstored = raw, e.compressBody(lp, ls, raw[headerSize:])
		} else {
			lsp := e.scratch.get()
			defer e.scratch.put(lsp)
			lraw, lstored = e.compressBlock(lp, ls, lsp, c, k, rows, defaultTransforms)
		}
		if lstored >= 0 && (stored < 0 || lstored < stored) {
			raw, stored, ss, xf, kind = lraw, lstored, ls, defaultTransforms, LZ4
		}
	}
	if cp.kind == Light && !small {
		if kind == LZ4 {
			e.streak.lost()
		} else {
			e.streak.won()
		}
	}
	if stored < 0 || stored >= len(raw)-headerSize {
		if xf != 0 {
			c.w.init(*sp, 0)
			raw = e.writeBlock(c, k, rows)
		}
		return append(dst, raw...)
	}
	start := len(dst)
	dst = slices.Grow(dst, headerSize+stored)[:start+headerSize+stored]
	h := header{compression: kind, flags: xf, fingerprint: e.fingerprint, rows: rows,
		stored: stored, raw: len(raw) - headerSize}
	h.put(dst[start:])
	cw := newWriter(dst, start)
	cw.pos = headerSize
	putSections(&cw, ss.secs, raw[headerSize:])
	if cw.grew || cw.pos != headerSize+stored {
		panic(fmt.Sprintf("arrowpack: compressed block of %d bytes, written %d", headerSize+stored, cw.pos))
	}
	return dst
}

// compressBlock writes the raw block with transforms xf into the room sp
// lends (and keeps), plans its sections with cp and compresses them into
// ss, and returns the raw block and the compressed body's size (-1 if no
// section is compressed).
func (e *Encoder) compressBlock(cp *compressor, ss *sectionScratch, sp *[]byte, c *encoding, k, rows int, xf flags) (raw []byte, stored int) {
	ss.xf = xf
	w := &c.w
	w.init(*sp, 0)
	w.xf, w.marking, w.marks, w.hints = xf, true, ss.marks[:0], ss.hints[:0]
	raw = e.writeBlock(c, k, rows)
	*sp = c.w.out
	ss.marks, c.w.marks = c.w.marks, nil
	ss.hints, c.w.hints = c.w.hints, nil
	return raw, e.compressBody(cp, ss, raw[headerSize:])
}

// compressBody plans the sections of body, written with the transforms,
// marks and hints ss holds, with cp, compresses them into ss and returns
// the compressed body's size (-1 if no section is compressed).
func (e *Encoder) compressBody(cp *compressor, ss *sectionScratch, body []byte) (stored int) {
	ss.secs = cp.planSections(ss, body, e.cfg.concurrency)
	stored = -1
	for _, s := range ss.secs {
		if s.codec != None {
			ss.out, stored = cp.compressSections(ss.secs, body, ss.out, e.cfg.concurrency)
			if cp.kind == Light {
				stored = cp.joinLZ4(ss, body, stored)
			}
			break
		}
	}
	return stored
}

// writeBlock writes with c.w, which the caller sets up, in one pass, the
// uncompressed block of the k batches whose column segs c holds, with
// c.w's transforms applied to its buffers (the header records none: it is
// the caller's to rewrite for a compressed block), and returns what
// c.w.block returns then: where the block went, had it to grow. A writer
// without room grows at once to about the size c.est guesses.
func (e *Encoder) writeBlock(c *encoding, k, rows int) []byte {
	c.w.hint = c.est + c.est/8 + 256*len(e.plans) + headerSize
	if !c.w.counting() {
		c.w.room(headerSize)
	}
	c.w.pos = headerSize
	e.body(c, k)
	if !c.w.counting() {
		n := c.w.pos - headerSize
		h := header{compression: None, fingerprint: e.fingerprint, rows: rows, stored: n, raw: n}
		h.put(c.w.buf)
		return c.w.block()
	}
	return nil
}

// body writes (or, with a counting writer, sizes) the body of the block of
// k batches: column i from c.segs[i*k:(i+1)*k].
// With c.cols set, column i's segs are c.segs[c.cols[i]:c.cols[i+1]]
// instead: a partition's block, whose columns have as many segs as they
// need (Partitioner).
func (e *Encoder) body(c *encoding, k int) {
	if c.cols != nil {
		for i, p := range e.plans {
			c.node(p, c.segs[c.cols[i]:c.cols[i+1]])
		}
		return
	}
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
	if s == nil {
		return fmt.Errorf("%w: batch has no schema", ErrSchemaMismatch)
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
