package codec

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// body builds a block body field by field, the way an attacker would: each
// word and buffer is whatever the test says, framed as the format frames it.
type body []byte

func (b *body) word(v uint64) *body {
	*b = binary.LittleEndian.AppendUint64(*b, v)
	return b
}

// buf appends a buffer: its length word, its bytes and zero padding.
func (b *body) buf(p []byte) *body {
	b.word(uint64(len(p)))
	*b = append(*b, p...)
	*b = append(*b, make([]byte, pad8(len(p))-len(p))...)
	return b
}

// u32s and u64s return little-endian bytes of vs.
func u32s(vs ...uint32) []byte {
	var p []byte
	for _, v := range vs {
		p = binary.LittleEndian.AppendUint32(p, v)
	}
	return p
}

func u64s(vs ...uint64) []byte {
	var p []byte
	for _, v := range vs {
		p = binary.LittleEndian.AppendUint64(p, v)
	}
	return p
}

// block frames body as an uncompressed block of rows rows for schema.
func block(schema *arrow.Schema, rows int, b body) []byte {
	return handBlock(schema, rows, b, None)
}

// decodeCorrupt decodes blk for schema and fails the test unless the error
// wraps ErrCorrupt and mentions want.
func decodeCorrupt(t *testing.T, schema *arrow.Schema, blk []byte, want string) {
	t.Helper()
	dec, err := NewDecoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := dec.Decode(blk)
	if err == nil {
		rec.Release()
		t.Fatalf("Decode accepted the block; want an error about %q", want)
	}
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, arrow.ErrInvalid) {
		t.Fatalf("Decode error %v does not wrap ErrCorrupt and arrow.ErrInvalid", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("Decode error %q does not mention %q", err, want)
	}
}

// TestMapNulls: arrow-go panics on a map whose entries or keys have nulls,
// so the decoder must refuse them first.
func TestMapNulls(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true}}, nil)
	// entries builds the body of one map row of one entry: entries and
	// keys validity as given.
	entries := func(entriesValid, keysValid []byte) body {
		var b body
		b.word(1).buf(nil).buf(u32s(0, 1)) // map: 1 row, all valid, offsets 0,1
		b.word(1).buf(entriesValid)        // entries struct: 1 row
		b.word(1).buf(keysValid).buf(u32s(0, 1)).buf([]byte("k"))
		b.word(1).buf(nil).buf(u32s(7)) // items
		return b
	}
	t.Run("valid", func(t *testing.T) {
		dec, _ := NewDecoder(schema)
		rec, err := dec.Decode(block(schema, 1, entries(nil, nil)))
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		if err := array.ValidateRecordFull(rec); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("null key", func(t *testing.T) {
		decodeCorrupt(t, schema, block(schema, 1, entries(nil, []byte{0})), "null keys")
	})
	t.Run("null entry", func(t *testing.T) {
		decodeCorrupt(t, schema, block(schema, 1, entries([]byte{0}, nil)), "null entries")
	})
}

// TestViewsCanonical: views must point back to back into one data buffer in
// row order, so that checking them is linear in the block. Views that all
// cover the same bytes made UTF-8 validation quadratic before.
func TestViewsCanonical(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.StringView, Nullable: true}}, nil)
	data := []byte(strings.Repeat("é", 10)) // 20 bytes, not ASCII
	view := func(l, idx, off uint32, prefix []byte) []byte {
		v := make([]byte, 16)
		binary.LittleEndian.PutUint32(v, l)
		copy(v[4:8], prefix)
		binary.LittleEndian.PutUint32(v[8:], idx)
		binary.LittleEndian.PutUint32(v[12:], off)
		return v
	}
	nodes := func(valid []byte, views [][]byte, bufs ...[]byte) body {
		var b body
		var vb []byte
		for _, v := range views {
			vb = append(vb, v...)
		}
		b.word(uint64(len(views))).buf(valid).buf(vb).word(uint64(len(bufs)))
		for _, d := range bufs {
			b.buf(d)
		}
		return b
	}
	// Two values: the first 14 bytes of data out of line, the last 6
	// inline.
	inline := make([]byte, 16)
	binary.LittleEndian.PutUint32(inline, 6)
	copy(inline[4:], data[14:20])
	good := nodes(nil, [][]byte{view(14, 0, 0, data), inline}, data[:14])
	t.Run("valid", func(t *testing.T) {
		dec, _ := NewDecoder(schema)
		rec, err := dec.Decode(block(schema, 2, good))
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		if err := array.ValidateRecordFull(rec); err != nil {
			t.Fatal(err)
		}
		if got := rec.Column(0).(*array.StringView).Value(0) + rec.Column(0).(*array.StringView).Value(1); got != string(data) {
			t.Fatalf("values %q, want %q", got, data)
		}
	})
	t.Run("overlapping", func(t *testing.T) {
		views := [][]byte{view(20, 0, 0, data), view(20, 0, 0, data)}
		decodeCorrupt(t, schema, block(schema, 2, nodes(nil, views, data)), "points to bytes 0..20")
	})
	t.Run("second buffer", func(t *testing.T) {
		views := [][]byte{view(20, 1, 0, data)}
		decodeCorrupt(t, schema, block(schema, 1, nodes(nil, views, nil, data)), "2 view data buffers")
	})
	t.Run("many empty buffers", func(t *testing.T) {
		bufs := make([][]byte, 1000)
		decodeCorrupt(t, schema, block(schema, 0, nodes(nil, nil, bufs...)), "1000 view data buffers")
	})
	t.Run("unused data", func(t *testing.T) {
		decodeCorrupt(t, schema, block(schema, 1, nodes(nil, [][]byte{inline}, data)), "the views use 0")
	})
	t.Run("empty data buffer", func(t *testing.T) {
		decodeCorrupt(t, schema, block(schema, 1, nodes(nil, [][]byte{inline}, nil)), "the views use 0")
	})
	t.Run("value inside a character", func(t *testing.T) {
		views := [][]byte{view(13, 0, 0, data), view(13, 0, 13, data[13:])}
		d := append(append([]byte{}, data...), "abcdef"...)
		decodeCorrupt(t, schema, block(schema, 2, nodes(nil, views, d)), "inside a UTF-8 character")
	})
	t.Run("null row not zero", func(t *testing.T) {
		decodeCorrupt(t, schema, block(schema, 1, nodes([]byte{0}, [][]byte{inline})), "null row is not all zero")
	})
}

// TestRunEnds64 checks 64-bit run ends whole: on 32-bit platforms they were
// truncated through int, and 2^32+1 passed for a run end of 1.
func TestRunEnds64(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "r", Type: arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int8)}}, nil)
	ree := func(ends ...uint64) body {
		var b body
		b.word(1)                                             // 1 row
		b.word(uint64(len(ends))).buf(nil).buf(u64s(ends...)) // run ends
		b.word(uint64(len(ends))).buf(nil).buf(make([]byte, len(ends)))
		return b
	}
	dec, _ := NewDecoder(schema)
	rec, err := dec.Decode(block(schema, 1, ree(1)))
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	decodeCorrupt(t, schema, block(schema, 1, ree(1<<32+1)), "last run ends at 4294967297")
	decodeCorrupt(t, schema, block(schema, 1, ree(1<<63)), "does not exceed")
}

// TestErrorsMatchArrowSentinels: callers that test arrow-go's or the
// standard library's sentinels get the same answers from arrowpack's.
func TestErrorsMatchArrowSentinels(t *testing.T) {
	for _, c := range []struct {
		err  error
		also []error
	}{
		{ErrCorrupt, []error{arrow.ErrInvalid}},
		{ErrInvalidBatch, []error{arrow.ErrInvalid}},
		{ErrSchemaMismatch, []error{arrow.ErrType}},
		{ErrUnsupported, []error{errors.ErrUnsupported, arrow.ErrNotImplemented}},
	} {
		wrapped := corruptf("x")
		if c.err != ErrCorrupt {
			wrapped = errors.Join(c.err)
		}
		for _, a := range c.also {
			if !errors.Is(wrapped, a) {
				t.Errorf("%v does not match %v", wrapped, a)
			}
		}
		if errors.Is(wrapped, errors.New(c.err.Error())) {
			t.Errorf("%v matches an unrelated error", c.err)
		}
	}
	if errors.Is(ErrCorrupt, ErrInvalidBatch) || errors.Is(ErrCorrupt, arrow.ErrNotImplemented) {
		t.Error("ErrCorrupt matches another sentinel")
	}
	_, err := NewDecoder(arrow.NewSchema([]arrow.Field{{Name: "x", Type: &unsupportedType{}}}, nil))
	if !errors.Is(err, ErrUnsupported) || strings.Count(err.Error(), "arrowpack") != 1 {
		t.Errorf("NewDecoder error %q: want ErrUnsupported with the package named once", err)
	}
}

// unsupportedType is a type the codec has no layout for.
type unsupportedType struct{ arrow.NullType }

func (unsupportedType) ID() arrow.Type      { return arrow.Type(200) }
func (unsupportedType) Name() string        { return "unsupported" }
func (unsupportedType) String() string      { return "unsupported" }
func (unsupportedType) Fingerprint() string { return "unsupported" }

// TestMaxBlockSizeUncompressed: the cap holds for uncompressed blocks too,
// as WithMaxBlockSize says, not only for what decompression would allocate.
func TestMaxBlockSizeUncompressed(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var b body
	b.word(16).buf(nil).buf(make([]byte, 128))
	blk := block(schema, 16, b)
	for _, c := range []struct {
		max int
		ok  bool
	}{{len(b), true}, {len(b) - 8, false}} {
		dec, err := NewDecoder(schema, WithMaxBlockSize(c.max))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := dec.Decode(blk)
		switch {
		case c.ok && err != nil:
			t.Errorf("a %d-byte body under a cap of %d: %v", len(b), c.max, err)
		case !c.ok && !errors.Is(err, ErrCorrupt):
			t.Errorf("a %d-byte body under a cap of %d: err = %v, want ErrCorrupt", len(b), c.max, err)
		}
		if rec != nil {
			rec.Release()
		}
	}
}

// TestBlockPoolReuse: a buffer given back is handed out again for a size
// it is at most 1/8 larger than, giving it back allocates nothing, and the
// pool keeps at most poolKeep buffers.
func TestBlockPoolReuse(t *testing.T) {
	var p blockPool
	b := p.Allocate(1000)
	p.Free(b)
	if c := p.Allocate(960); &c[0] != &b[0] || len(c) != 960 {
		t.Fatal("a freed buffer at most 1/8 larger than asked was not reused")
	}
	if allocs := testing.AllocsPerRun(100, func() { p.Free(p.Allocate(64)) }); allocs != 0 {
		t.Errorf("Allocate and Free of a pooled buffer: %.1f allocations, want 0", allocs)
	}
	var bufs [][]byte
	for range 2 * poolKeep {
		bufs = append(bufs, p.Allocate(1000))
	}
	for _, b := range bufs {
		p.Free(b)
	}
	if n, _ := p.kept(); n != poolKeep {
		t.Errorf("the pool keeps %d buffers, want %d", n, poolKeep)
	}
	p.Free(make([]byte, 1000)) // not a size class: not the pool's
	for _, k := range p.free {
		if cap(k) == 1000 {
			t.Errorf("the pool took a foreign buffer")
		}
	}
}
