package codec

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// allocBatch is a named batch for the allocator and aliasing tests.
type allocBatch struct {
	name string
	rec  arrow.RecordBatch
}

// allocBatches returns batches of every type: each type of
// randbatch.AllTypes as a column, with no, some and all nulls and sliced at
// every level; random schemas nested three deep under several seeds; and
// the benchmark shapes. Their memory comes from a checked allocator: when
// the test ends they are released and every byte must be back.
func allocBatches(t *testing.T) []allocBatch {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	var out []allocBatch
	t.Cleanup(func() {
		for _, b := range out {
			b.rec.Release()
		}
	})
	types := randbatch.AllTypes()
	fields := make([]arrow.Field, len(types))
	for i, dt := range types {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: dt, Nullable: true}
	}
	all := arrow.NewSchema(fields, nil)
	for seed, nullProb := range []float64{0, 0.3, 1} {
		for _, slice := range []bool{false, true} {
			r := rand.New(rand.NewPCG(uint64(seed), 41))
			rec := randbatch.Batch(mem, r, all, 97, randbatch.Options{NullProb: nullProb, Slice: slice})
			out = append(out, allocBatch{fmt.Sprintf("alltypes/nulls=%v/slice=%v", nullProb, slice), rec})
		}
	}
	seeds := 24
	if testing.Short() {
		seeds = 6
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 43))
		schema := randbatch.RandomSchema(r, 1+r.IntN(8), 3)
		rec := randbatch.Batch(mem, r, schema, r.IntN(200), randbatch.Options{NullProb: r.Float64() * 0.5, Slice: r.IntN(2) == 0})
		out = append(out, allocBatch{fmt.Sprintf("random/seed=%d", seed), rec})
	}
	for _, sh := range randbatch.BenchShapes() {
		out = append(out, allocBatch{"shape/" + sh.Name, sh.Build(mem)})
	}
	return out
}

// recordingAllocator wraps an allocator and remembers the memory it has
// handed out and not yet taken back.
type recordingAllocator struct {
	inner memory.Allocator
	mu    sync.Mutex
	live  map[uintptr]int // start address -> capacity
}

func newRecordingAllocator(inner memory.Allocator) *recordingAllocator {
	return &recordingAllocator{inner: inner, live: map[uintptr]int{}}
}

func (a *recordingAllocator) Allocate(size int) []byte {
	b := a.inner.Allocate(size)
	a.add(b)
	return b
}

func (a *recordingAllocator) Reallocate(size int, b []byte) []byte {
	a.remove(b)
	b = a.inner.Reallocate(size, b)
	a.add(b)
	return b
}

func (a *recordingAllocator) Free(b []byte) {
	a.remove(b)
	a.inner.Free(b)
}

func (a *recordingAllocator) add(b []byte) {
	if cap(b) == 0 {
		return
	}
	a.mu.Lock()
	a.live[addr(b)] = cap(b)
	a.mu.Unlock()
}

func (a *recordingAllocator) remove(b []byte) {
	if cap(b) == 0 {
		return
	}
	a.mu.Lock()
	delete(a.live, addr(b))
	a.mu.Unlock()
}

// owns reports whether b lies inside memory the allocator handed out.
func (a *recordingAllocator) owns(b []byte) bool {
	p := addr(b)
	a.mu.Lock()
	defer a.mu.Unlock()
	for start, n := range a.live {
		if p >= start && p+uintptr(len(b)) <= start+uintptr(n) {
			return true
		}
	}
	return false
}

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// within reports whether b lies inside block.
func within(b, block []byte) bool {
	p, s := addr(b), addr(block)
	return p >= s && p+uintptr(len(b)) <= s+uintptr(len(block))
}

// eachBuffer calls f with the path and bytes of every non-empty buffer of
// arr, its children and dictionaries, at every level.
func eachBuffer(arr arrow.Array, f func(path string, b []byte)) {
	var walk func(path string, d arrow.ArrayData)
	walk = func(path string, d arrow.ArrayData) {
		for i, b := range d.Buffers() {
			if b != nil && b.Len() > 0 {
				f(fmt.Sprintf("%s buffer %d", path, i), b.Bytes())
			}
		}
		for i, c := range d.Children() {
			walk(fmt.Sprintf("%s.child[%d](%s)", path, i, c.DataType()), c)
		}
		if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
			walk(path+".dictionary", dict)
		}
	}
	walk(arr.DataType().String(), arr.Data())
}

// allocCheck checks that got is sound, carries dec's schema and equals want.
func allocCheck(t *testing.T, what string, dec *Decoder, want, got arrow.RecordBatch) {
	t.Helper()
	if err := array.ValidateRecordFull(got); err != nil {
		t.Errorf("%s: decoded batch fails ValidateRecordFull: %v", what, err)
	}
	if got.Schema() != dec.Schema() {
		t.Errorf("%s: decoded batch's schema is not the decoder's", what)
	}
	if got.NumRows() != want.NumRows() || got.NumCols() != want.NumCols() {
		t.Errorf("%s: decoded %dx%d, want %dx%d", what, got.NumRows(), got.NumCols(), want.NumRows(), want.NumCols())
		return
	}
	for i := range int(want.NumCols()) {
		w, g := want.Column(i), got.Column(i)
		if !array.Equal(w, g) && !(unionOfExtension(w.DataType()) && sameRows(w, g)) {
			t.Errorf("%s: column %d (%s) differs:\nwant %v\ngot  %v", what, i, w.DataType(), w, g)
		}
	}
}

// alignedBytes returns n bytes starting at an 8-byte aligned address.
func alignedBytes(n int) []byte {
	words := make([]uint64, (n+7)/8)
	return unsafeBytes(words)[:n:n]
}

func encodeAligned(t *testing.T, enc *Encoder, rec arrow.RecordBatch) []byte {
	t.Helper()
	size, err := enc.Append(nil, rec)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	block, err := enc.Append(alignedBytes(len(size))[:0], rec)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return block
}

// TestDecodeWithAllocator: with WithAllocator every buffer of the decoded
// batch comes from the allocator, the batch survives the block being
// overwritten, and releasing it returns every byte.
func TestDecodeWithAllocator(t *testing.T) {
	for _, b := range allocBatches(t) {
		t.Run(b.name, func(t *testing.T) {
			checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
			mem := newRecordingAllocator(checked)
			enc, err := NewEncoder(b.rec.Schema())
			if err != nil {
				t.Fatal(err)
			}
			dec, err := NewDecoder(b.rec.Schema(), WithAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			block := encodeAligned(t, enc, b.rec)
			out, err := dec.Decode(block)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			allocCheck(t, "decoded", dec, b.rec, out)
			buffers := 0
			for i, col := range out.Columns() {
				eachBuffer(col, func(path string, buf []byte) {
					buffers++
					if within(buf, block) {
						t.Errorf("column %d %s aliases the block despite WithAllocator", i, path)
					} else if !mem.owns(buf) {
						t.Errorf("column %d %s (%d bytes) is not memory from the allocator", i, path, len(buf))
					}
				})
			}
			if buffers > 0 && checked.CurrentAlloc() == 0 {
				t.Errorf("%d buffers decoded, nothing allocated from the allocator", buffers)
			}
			// The batch owns its bytes: wipe the block, twice over.
			for _, fill := range []byte{0xff, 0x00} {
				for i := range block {
					block[i] = fill
				}
				allocCheck(t, fmt.Sprintf("after the block was overwritten with %#x", fill), dec, b.rec, out)
			}
			out.Release()
			checked.AssertSize(t, 0)
		})
	}
}

// TestDecodeZeroCopyAliases documents the contract of Decode without an
// allocator: the decoded arrays are views of the block, so changing the
// block changes the batch.
func TestDecodeZeroCopyAliases(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	mem := memory.NewGoAllocator()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{10, 20, 30}, nil)
	ints := ib.NewArray()
	ib.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"abc", "de", "f"}, nil)
	strs := sb.NewArray()
	sb.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{ints, strs}, 3)
	ints.Release()
	strs.Release()
	defer rec.Release()

	enc, _ := NewEncoder(schema)
	dec, _ := NewDecoder(schema)
	block := encodeAligned(t, enc, rec)
	out, err := dec.Decode(block)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()

	// Change value 1 of the int64 column through the block.
	vals := out.Column(0).Data().Buffers()[1].Bytes()
	if !within(vals, block) {
		t.Fatal("zero-copy decode: the int64 values do not alias the block")
	}
	at := int(addr(vals)-addr(block)) + 8 // value 1
	block[at] = 99
	for i := 1; i < 8; i++ {
		block[at+i] = 0
	}
	if got := out.Column(0).(*array.Int64).Value(1); got != 99 {
		t.Errorf("after writing 99 into the block, value 1 is %d: the batch does not alias the block", got)
	}
	// And the string data.
	data := out.Column(1).Data().Buffers()[2].Bytes()
	if !within(data, block) {
		t.Fatal("zero-copy decode: the string data does not alias the block")
	}
	block[int(addr(data)-addr(block))] = 'X'
	if got := out.Column(1).(*array.String).Value(0); got != "Xbc" {
		t.Errorf("after writing 'X' into the block, value 0 is %q: the batch does not alias the block", got)
	}
}

// TestDecodeZeroCopyAliasesEveryBuffer: without an allocator, every
// non-empty buffer of a decoded batch, at every level, lies in the block.
func TestDecodeZeroCopyAliasesEveryBuffer(t *testing.T) {
	for _, b := range allocBatches(t) {
		t.Run(b.name, func(t *testing.T) {
			enc, _ := NewEncoder(b.rec.Schema())
			dec, _ := NewDecoder(b.rec.Schema())
			block := encodeAligned(t, enc, b.rec)
			out, err := dec.Decode(block)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			defer out.Release()
			allocCheck(t, "decoded", dec, b.rec, out)
			for i, col := range out.Columns() {
				eachBuffer(col, func(path string, buf []byte) {
					if !within(buf, block) {
						t.Errorf("column %d %s (%d bytes) does not alias the block", i, path, len(buf))
					}
				})
			}
		})
	}
}

// TestUnalignedBlock: a block that starts at an address that is not a
// multiple of 8 decodes, zero-copy or with an allocator, to the same batch;
// and an Encoder appending to a destination at every alignment writes the
// same bytes.
func TestUnalignedBlock(t *testing.T) {
	for _, b := range allocBatches(t) {
		t.Run(b.name, func(t *testing.T) {
			enc, _ := NewEncoder(b.rec.Schema())
			block := encodeAligned(t, enc, b.rec)
			for _, shift := range []int{1, 3, 4, 7} {
				room := alignedBytes(len(block) + 8)
				odd := room[shift : shift+len(block) : shift+len(block)]
				copy(odd, block)
				if aligned(odd) {
					t.Fatal("the test's block is aligned")
				}

				dec, _ := NewDecoder(b.rec.Schema())
				out, err := dec.Decode(odd)
				if err != nil {
					t.Fatalf("Decode at offset %d: %v", shift, err)
				}
				allocCheck(t, fmt.Sprintf("zero-copy at offset %d", shift), dec, b.rec, out)
				out.Release()

				checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
				cdec, _ := NewDecoder(b.rec.Schema(), WithAllocator(checked))
				out, err = cdec.Decode(odd)
				if err != nil {
					t.Fatalf("Decode WithAllocator at offset %d: %v", shift, err)
				}
				allocCheck(t, fmt.Sprintf("WithAllocator at offset %d", shift), cdec, b.rec, out)
				out.Release()
				checked.AssertSize(t, 0)

				// Appending at this alignment writes the same bytes.
				dst, err := enc.Append(room[:shift], b.rec)
				if err != nil {
					t.Fatalf("Append at offset %d: %v", shift, err)
				}
				if string(dst[shift:]) != string(block) {
					t.Errorf("Append at offset %d wrote other bytes than at an aligned address", shift)
				}
			}
		})
	}
}
