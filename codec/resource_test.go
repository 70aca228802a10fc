package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The resource tests decode blocks built to get the most work or memory out
// of each input byte and check, by counting (heap bytes allocated, bytes
// hashed or covered), never by timing, that the decoder stays in proportion
// to its input: decodeAllocBound, the same bound FuzzStructured holds decodes to.
// Each logs its ratios so that the worst can be quoted.

// handBlock returns a block of schema with rows rows whose raw body is body,
// stored as it is (comp None) or compressed in one chunk by wrapCompressed.
func handBlock(schema *arrow.Schema, rows int, body []byte, comp Compression) []byte {
	h := header{compression: comp, fingerprint: fingerprint(schema), rows: rows, raw: len(body)}
	stored := body
	if comp != None {
		stored, _ = newBlockBuilder(newChoices(nil), 0).wrapCompressed(comp, body)
	}
	h.stored = len(stored)
	block := make([]byte, headerSize+len(stored))
	h.put(block)
	copy(block[headerSize:], stored)
	return block
}

// handBody writes a raw body with a builder that takes no hostile choice.
func handBody(write func(b *blockBuilder)) []byte {
	b := newBlockBuilder(newChoices(nil), 0)
	write(b)
	return b.body
}

// resource is what decoding one adversarial block cost.
type resource struct {
	in        int    // block bytes
	declared  int    // raw body bytes its header declares
	allocated uint64 // heap bytes allocated by the decode
	err       error
}

func (r resource) String() string {
	return fmt.Sprintf("%d input bytes (%d raw declared) -> %d bytes allocated (%.1f per input byte, %.2f per raw byte); err: %v",
		r.in, r.declared, r.allocated, float64(r.allocated)/float64(r.in), float64(r.allocated)/float64(max(r.declared, 1)), r.err)
}

// decodeResource decodes block once, counting the heap it allocates, and
// checks the result: an error wrapping ErrCorrupt or a sound batch.
func decodeResource(t *testing.T, schema *arrow.Schema, block []byte, opts ...Option) resource {
	t.Helper()
	dec, err := NewDecoder(schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var rec arrow.RecordBatch
	r := resource{in: len(block), declared: int(binary.LittleEndian.Uint64(block[32:]))}
	r.allocated = allocated(func() { rec, r.err = dec.Decode(block) })
	if r.err != nil {
		if !errors.Is(r.err, ErrCorrupt) {
			t.Errorf("error wraps no ErrCorrupt: %v", r.err)
		}
	} else {
		if err := array.ValidateRecordFull(rec); err != nil {
			t.Errorf("decoded batch does not validate: %v", err)
		}
		rec.Release()
	}
	t.Log(r)
	return r
}

// checkBound fails if r allocated more than decodeAllocBound, or only logs it if
// the bug is known.
func checkBound(t *testing.T, r resource, maxBlock int) {
	t.Helper()
	declared := r.declared
	if declared > maxBlock {
		declared = 0
	}
	bound := decodeAllocBound(r.in, declared)
	if r.allocated > bound {
		t.Errorf("%d bytes allocated, the bound is %d", r.allocated, bound)
	}
}

// utf8Run returns n bytes of valid UTF-8 that is not ASCII (so that no
// ASCII fast path skips it): "é" repeated.
func utf8Run(n int) []byte {
	return []byte(strings.Repeat("é", n/2))
}

// TestResourceOverlappingViews decodes string views that all cover the
// same bytes of one data buffer: n views of l bytes from a block of about
// 16n + l bytes. A decoder that validates each view's UTF-8 on its own does
// n x l work, quadratic in the block; one may refuse such views (the
// canonical form has none) or validate the buffer once. Without a counter
// in the decoder, the test counts the bytes the views cover: if the block
// is accepted, that is the work per-view validation does.
func TestResourceOverlappingViews(t *testing.T) {
	for _, n := range []int{256, 4096} {
		for _, comp := range []Compression{None, Zstd} {
			t.Run(fmt.Sprintf("%d views %s", n, comp), func(t *testing.T) {
				schema, block, covered := overlappingViewsBlock(n, comp)
				r := decodeResource(t, schema, block)
				if r.err != nil {
					return
				}
				t.Logf("accepted: the views cover %d bytes, %.1f per input byte", covered, float64(covered)/float64(len(block)))
				if covered > 64*len(block)+1<<20 {
					t.Errorf("accepted views covering %d bytes from a %d-byte block", covered, len(block))
				}
			})
		}
	}
}

// overlappingViewsBlock returns a block of n string views that all cover
// the same n bytes of non-ASCII UTF-8 in one data buffer, and the bytes the
// views cover together.
func overlappingViewsBlock(n int, comp Compression) (*arrow.Schema, []byte, int) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.StringView, Nullable: true}}, nil)
	data := utf8Run(n)
	body := handBody(func(b *blockBuilder) {
		b.word(uint64(n))
		b.buffer(nil)
		views := make([]byte, 16*n)
		for i := range n {
			v := views[16*i:]
			binary.LittleEndian.PutUint32(v, uint32(len(data)))
			copy(v[4:8], data)
		}
		b.buffer(views)
		b.word(1)
		b.buffer(data)
	})
	return schema, handBlock(schema, n, body, comp), n * len(data)
}

// TestResourceEmptyDataBuffers decodes a string-view node that lists many
// empty data buffers: 8 wire bytes each, which zstd shrinks to almost
// nothing.
func TestResourceEmptyDataBuffers(t *testing.T) {
	for _, count := range []int{1 << 10, 1 << 20} {
		for _, comp := range []Compression{None, Zstd} {
			t.Run(fmt.Sprintf("%d buffers %s", count, comp), func(t *testing.T) {
				schema, block := emptyBuffersBlock(count, comp)
				r := decodeResource(t, schema, block)
				t.Logf("%.1f bytes allocated per empty buffer", float64(r.allocated)/float64(count))
				checkBound(t, r, DefaultMaxBlockSize)
			})
		}
	}
}

// emptyBuffersBlock returns a block of one empty binary view followed by
// count empty data buffers.
func emptyBuffersBlock(count int, comp Compression) (*arrow.Schema, []byte) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.BinaryView, Nullable: true}}, nil)
	body := handBody(func(b *blockBuilder) {
		b.word(1)
		b.buffer(nil)
		b.buffer(make([]byte, 16)) // one empty inline view
		b.word(uint64(count))
		for range count {
			b.buffer(nil)
		}
	})
	return schema, handBlock(schema, 1, body, comp)
}

// TestResourceBombs decodes compressed chunks that declare a small raw
// length but decompress to much more: the decoder must stop at the declared
// length, with one chunk or several in parallel.
func TestResourceBombs(t *testing.T) {
	for _, comp := range []Compression{LZ4, Zstd} {
		for _, chunks := range []int{1, 6} {
			t.Run(fmt.Sprintf("%s %d chunks", comp, chunks), func(t *testing.T) {
				schema, block := bombBlock(comp, chunks, 8<<20)
				r := decodeResource(t, schema, block, WithConcurrency(2))
				if r.err == nil {
					t.Errorf("a bomb decoded without error")
				}
				checkBound(t, r, DefaultMaxBlockSize)
			})
		}
	}
}

// bombBlock returns a block of an empty int64 column whose body is chunks
// chunks, each declaring the 24 bytes of that body and decompressing to
// them followed by overrun zero bytes.
func bombBlock(comp Compression, chunks, overrun int) (*arrow.Schema, []byte) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	body := handBody(func(b *blockBuilder) {
		b.word(0)
		b.buffer(nil)
		b.buffer(nil)
	})
	z := compressForTest(comp, append(cloneBytes(body), make([]byte, overrun)...))
	table := make([]testChunk, chunks)
	for i := range table {
		table[i] = testChunk{r: len(body), codec: comp, z: z}
	}
	h := header{compression: comp, fingerprint: fingerprint(schema), rows: 0, raw: chunks * len(body)}
	stored := chunkTable(uint64(chunks), table, false)
	h.stored = len(stored)
	block := make([]byte, headerSize+len(stored))
	h.put(block)
	copy(block[headerSize:], stored)
	return schema, block
}

// TestResourceHugeRows decodes blocks of many rows in few bytes: null
// arrays, run-end encoded arrays of one run, nested structs of nulls, and an
// all-null bitmap that zstd shrinks.
func TestResourceHugeRows(t *testing.T) {
	const rows = 1<<31 - 1
	deep := arrow.DataType(arrow.Null)
	for range maxDepth {
		deep = arrow.StructOf(arrow.Field{Name: "s", Type: deep, Nullable: true})
	}
	cases := []struct {
		name string
		dt   arrow.DataType
		rows int
		comp Compression
		body func(b *blockBuilder, n int)
	}{
		{"null", arrow.Null, rows, None, func(b *blockBuilder, n int) { b.word(uint64(n)) }},
		{"run ends", arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int8), rows, None,
			func(b *blockBuilder, n int) {
				b.word(uint64(n))
				b.word(1) // one run
				b.buffer(nil)
				b.buffer(binary.LittleEndian.AppendUint32(nil, uint32(n)))
				b.word(1) // its value
				b.buffer(nil)
				b.buffer([]byte{7})
			}},
		{"structs of nulls, 64 deep", deep, rows, None, func(b *blockBuilder, n int) {
			for range maxDepth {
				b.word(uint64(n))
				b.buffer(nil)
			}
			b.word(uint64(n))
		}},
		{"all-null int8, zstd", arrow.PrimitiveTypes.Int8, 1 << 24, Zstd, func(b *blockBuilder, n int) {
			b.word(uint64(n))
			b.buffer(make([]byte, n/8))
			b.buffer(make([]byte, n))
		}},
		{"dictionary of one value, zstd", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String},
			1 << 22, Zstd, func(b *blockBuilder, n int) {
				b.word(uint64(n))
				b.buffer(nil)
				b.buffer(make([]byte, 4*n))
				b.word(1)
				b.buffer(nil)
				b.buffer([]byte{0, 0, 0, 0, 1, 0, 0, 0})
				b.buffer([]byte("x"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: tc.dt, Nullable: true}}, nil)
			body := handBody(func(b *blockBuilder) { tc.body(b, tc.rows) })
			block := handBlock(schema, tc.rows, body, tc.comp)
			r := decodeResource(t, schema, block)
			if r.err != nil {
				t.Errorf("a sound block was refused: %v", r.err)
			}
			checkBound(t, r, DefaultMaxBlockSize)
		})
	}
}

// TestResourceDeepSchemaStream reads a stream followed by one whose schema
// is nested deeper than maxDepth: the Reader must refuse it with memory
// within decodeAllocBound of the bytes, before fingerprinting or planning
// it costs more. (TestFingerprintLinear counts the fingerprint's work.)
func TestResourceDeepSchemaStream(t *testing.T) {
	for _, depth := range []int{maxDepth + 1, 256, 4096} {
		// A stream of a shallow schema, then one of a deep schema.
		var s bytes.Buffer
		w := must(NewWriter(&s, deepStructSchema(1)))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		s.Write(streamHeader(ipcSchema(deepStructSchema(depth))))
		s.Write(make([]byte, frameHeaderSize)) // an end frame of 0 blocks
		in := s.Len()
		var err error
		spent := allocated(func() {
			rd, rerr := NewReader(&s)
			if rerr != nil {
				err = rerr
				return
			}
			for rd.Next() {
			}
			err = rd.Err()
		})
		t.Logf("depth %d: a %d-byte stream -> %d bytes allocated (%.1f per byte); err: %v", depth, in, spent, float64(spent)/float64(in), err)
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
			t.Errorf("depth %d: a second stream %d types deep: %v, want ErrCorrupt or ErrSchemaMismatch", depth, depth, err)
		}
		if bound := decodeAllocBound(in, 0); spent > bound {
			t.Errorf("depth %d: %d bytes allocated, the bound is %d", depth, spent, bound)
		}
	}
}

// deepStructSchema returns a schema of one column, depth structs deep
// around an int8.
func deepStructSchema(depth int) *arrow.Schema {
	dt := arrow.DataType(arrow.PrimitiveTypes.Int8)
	for range depth {
		dt = arrow.StructOf(arrow.Field{Name: "s", Type: dt, Nullable: true})
	}
	return arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
}

// TestResourceCheckedAllocator decodes the adversarial blocks above with
// WithAllocator: every byte the batch takes from the allocator must come
// back when it is released, also when decoding fails half way.
func TestResourceCheckedAllocator(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.StringView, Nullable: true}}, nil)
	body := handBody(func(b *blockBuilder) {
		b.word(3)
		b.buffer(nil)
		views := make([]byte, 48)
		for i := range 3 {
			binary.LittleEndian.PutUint32(views[16*i:], 20)
			copy(views[16*i+4:], "aaaa")
		}
		binary.LittleEndian.PutUint32(views[16*2+8:], 9) // the last view: buffer 9 of 1
		b.buffer(views)
		b.word(1)
		b.buffer(bytes.Repeat([]byte("a"), 20))
	})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	r := decodeResource(t, schema, handBlock(schema, 3, body, None), WithAllocator(mem))
	if r.err == nil {
		t.Errorf("a view into a missing buffer decoded")
	}
	if n := mem.CurrentAlloc(); n != 0 {
		t.Errorf("%d bytes of the allocator in use after a failed decode", n)
	}
}
