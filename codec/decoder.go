package codec

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A Decoder turns blocks back into record batches of one schema. It works
// out everything that depends only on the schema once, in NewDecoder. A
// Decoder is safe for concurrent use by many goroutines.
//
// Decode never panics and never trusts the block: whatever the bytes, it
// returns either a batch that is sound all the way down (what
// array.ValidateRecordFull checks holds) or an error wrapping ErrCorrupt or
// ErrSchemaMismatch. Its memory follows the block's bytes: a compressed
// section may declare only as many raw bytes as its codec can produce from
// its stored bytes, checked before anything is allocated, and a Decoder
// keeps at most 4 freed raw bodies (FORMAT.md, "Bounds").
type Decoder struct {
	schema      *arrow.Schema
	plans       []*plan
	fingerprint uint64
	cfg         config
	decompress  *decompressor
	nbuf        int       // buffers of a batch's arrays, data buffers of views aside
	scratch     sync.Pool // *[]byte: room to undo flagTranspose
}

// NewDecoder returns a Decoder for blocks of schema. It fails with an error
// wrapping ErrUnsupported if a field's type cannot be decoded.
func NewDecoder(schema *arrow.Schema, opts ...Option) (*Decoder, error) {
	if !littleEndian {
		return nil, fmt.Errorf("%w: big-endian platforms", ErrUnsupported)
	}
	plans, err := newPlans(schema)
	if err != nil {
		return nil, fmt.Errorf("NewDecoder: %w", err)
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, fmt.Errorf("NewDecoder: %w", err)
	}
	d := &Decoder{schema: schema, plans: plans, fingerprint: fingerprint(schema), cfg: cfg,
		decompress: &decompressor{maxBlock: cfg.maxBlock, concurrency: cfg.concurrency, pool: &blockPool{}}}
	for _, p := range plans {
		d.nbuf += p.treeBuffers()
	}
	return d, nil
}

// Schema returns the schema the Decoder was made for, which every decoded
// batch carries.
func (d *Decoder) Schema() *arrow.Schema { return d.schema }

// Decode returns the batch held in block, which must be exactly one block as
// Encoder.Append wrote it. The caller releases the batch.
//
// Without WithAllocator the batch's arrays alias block (zero-copy): block
// must stay unmodified while the batch is in use. If block does not start
// 8-byte aligned in memory it is copied once first; a compressed block is
// decompressed into memory of the Decoder's, which the arrays alias instead
// and which the Decoder reuses once every array of the batch is released. With
// WithAllocator every buffer is copied into memory from that allocator and
// the batch owns it.
func (d *Decoder) Decode(block []byte) (rec arrow.RecordBatch, err error) {
	defer recoverCorrupt(&err)
	return d.decode(block, nil)
}

// DecodeBuffer is Decode for a block held in a reference-counted buffer:
// the decoded arrays alias the block by slices of buf that retain it, so
// buf's memory stays in use exactly as long as some array of the batch
// does. The caller keeps its own reference to buf and releases it as usual.
func (d *Decoder) DecodeBuffer(buf *memory.Buffer) (rec arrow.RecordBatch, err error) {
	defer recoverCorrupt(&err)
	return d.decode(buf.Bytes(), buf)
}

// decode decodes block; parent, if not nil, is the buffer block is the
// bytes of.
func (d *Decoder) decode(block []byte, parent *memory.Buffer) (arrow.RecordBatch, error) {
	h, err := parseHeader(block)
	if err != nil {
		return nil, err
	}
	if block, err = checkTrailer(block, h); err != nil {
		return nil, err
	}
	if h.fingerprint != d.fingerprint {
		return nil, fmt.Errorf("%w: block fingerprint %#016x, the decoder's schema %#016x", ErrSchemaMismatch, h.fingerprint, d.fingerprint)
	}
	if h.raw > d.cfg.maxBlock {
		return nil, corruptf("block body of %d bytes is above the limit of %d (WithMaxBlockSize)", h.raw, d.cfg.maxBlock)
	}
	if h.compression != None {
		raw, err := d.decompress.decompress(block, h)
		if err != nil {
			return nil, err
		}
		defer raw.Release() // the arrays hold their own references
		block, parent = raw.Bytes(), raw
	} else if !aligned(block) {
		words := make([]uint64, (len(block)+7)/8)
		b := unsafeBytes(words)[:len(block)]
		copy(b, block)
		block, parent = b, nil
	}
	s := decodeState{r: reader{buf: block, pos: headerSize, xf: h.flags}, mem: d.cfg.mem,
		parent: parent, scratch: &d.scratch}
	defer s.done()
	if s.mem == nil && s.parent == nil {
		s.slab = make([]memory.Buffer, d.nbuf)
	}
	s.ptrs = make([]*memory.Buffer, d.nbuf)
	cols := make([]arrow.Array, len(d.plans))
	done := false
	defer func() {
		if done {
			return
		}
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, p := range d.plans {
		data, err := s.node(p, h.rows)
		if err != nil {
			return nil, fmt.Errorf("column %d (%s): %w", i, d.schema.Field(i).Name, err)
		}
		cols[i] = array.MakeFromData(data)
		data.Release()
	}
	if s.r.pos != len(block) {
		return nil, corruptf("%d bytes after the last column", len(block)-s.r.pos)
	}
	done = true // the batch takes over the columns' references
	return newBatch(d.schema, cols, int64(h.rows)), nil
}
