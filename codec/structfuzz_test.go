package codec

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// structMaxBlock is the WithMaxBlockSize of the structured decoders: it
// keeps hostile raw lengths from costing each input hundreds of MiB.
const structMaxBlock = 4 << 20

// decodeAllocBound is the heap a decode of in input bytes, whose headers declare
// declared raw body bytes (each within the decoder's WithMaxBlockSize), may
// allocate: 64 bytes per input byte, 4 per declared raw byte (the
// decompressed body, the room to undo transposition, a copy with
// WithAllocator), plus 1 MiB for fixed costs (a zstd decoder's first use,
// pools, the arrays of a schema's nodes). A decoder that allocates more
// spends memory out of proportion to its input.
func decodeAllocBound(in, declared int) uint64 {
	return 64*uint64(in) + 4*uint64(declared) + 1<<20
}

// structStats counts what TestStructured's inputs did, to check that the
// builders reach everything and to report the worst memory ratio.
type structStats struct {
	canonical, refused, acceptedOdd, streams int
	kinds                                    map[kind]int // nodes of canonical blocks that decoded
	taints                                   map[string]int
	// the decode that came closest to decodeAllocBound: its share of the
	// bound, allocation, input and declared raw bytes
	worstShare             float64
	worstAlloc             uint64
	worstIn, worstDeclared int
}

func (st *structStats) taint(list []string) {
	if st == nil {
		return
	}
	for _, s := range list {
		st.taints[strings.TrimRight(strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '#'
			}
			return r
		}, s), " ")]++
	}
}

func (st *structStats) alloc(in, declared int, got uint64) {
	if st == nil {
		return
	}
	if r := float64(got) / float64(decodeAllocBound(in, declared)); r > st.worstShare {
		st.worstShare, st.worstAlloc, st.worstIn, st.worstDeclared = r, got, in, declared
	}
}

// runStructured builds a block or a stream from data and checks what
// decoding it does.
func runStructured(t testing.TB, data []byte, st *structStats) {
	c := newChoices(data)
	schema := drawSchema(c)
	plans, err := newPlans(schema)
	if err != nil {
		t.Fatalf("drawn schema %s: %v", schema, err)
	}
	mode := c.intn(6)
	if mode == 5 {
		checkStream(t, schema, plans, c, st)
		return
	}
	bb := buildBlock(c, schema, plans)
	sealChecksum(c, &bb)
	st.taint(bb.bad)
	st.taint(bb.odd)
	checkBlock(t, schema, bb, mode, st)
}

// sealChecksum gives some blocks a checksum trailer (WithBlockChecksum),
// which must change nothing of how they decode, and some of those a
// damaged trailer, which must make them corrupt. (A block of another
// schema's fingerprint keeps its trailer sound, so that ErrSchemaMismatch
// is still what it gets.)
func sealChecksum(c *choices, bb *builtBlock) {
	switch c.intn(8) {
	case 1:
		bb.block = sealBlock(bytes.Clone(bb.block), 0)
	case 2:
		if bb.mismatch {
			return
		}
		bb.block = sealBlock(bytes.Clone(bb.block), 0)
		bb.block[len(bb.block)-1-c.intn(blockTrailer)] ^= 1 << c.intn(8)
		bb.bad = append(bb.bad, "block checksum trailer")
	}
}

// decodeOpts returns the options and the checked allocator of decode mode
// mode: 0, 1, 2 zero-copy (aligned, unaligned, DecodeBuffer of a buffer
// from the checked allocator), 3 with the checked allocator, 4 with
// parallel decompression (and decodes from two goroutines at once).
func decodeOpts(mode int) ([]Option, *memory.CheckedAllocator) {
	opts := []Option{WithMaxBlockSize(structMaxBlock)}
	var mem *memory.CheckedAllocator
	switch mode {
	case 2:
		mem = memory.NewCheckedAllocator(memory.NewGoAllocator())
	case 3:
		mem = memory.NewCheckedAllocator(memory.NewGoAllocator())
		opts = append(opts, WithAllocator(mem))
	case 4:
		opts = append(opts, WithConcurrency(2))
	}
	return opts, mem
}

func checkBlock(t testing.TB, schema *arrow.Schema, bb builtBlock, mode int, st *structStats) {
	opts, mem := decodeOpts(mode)
	dec, err := NewDecoder(schema, opts...)
	if err != nil {
		t.Fatalf("NewDecoder(%s): %v", schema, err)
	}
	block := bb.block
	if mode == 1 {
		// Decode copies a block that is not 8-byte aligned.
		block = append(make([]byte, 1, len(block)+1), block...)[1:]
	}
	var parent *memory.Buffer
	if mode == 2 {
		// The batch must hold references to the buffer exactly as long
		// as it lives: the allocator is back to 0 once both are released.
		parent = memory.NewResizableBuffer(mem)
		parent.Resize(len(block))
		copy(parent.Bytes(), block)
	}
	var rec arrow.RecordBatch
	decode := func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Decode panicked: %v\nbad %q odd %q\n%s", p, bb.bad, bb.odd, debug.Stack())
			}
		}()
		if parent != nil {
			rec, err = dec.DecodeBuffer(parent)
			return
		}
		rec, err = dec.Decode(block)
	}
	declared := 0
	if bb.declared <= structMaxBlock {
		declared = bb.declared
	}
	spent := allocated(decode)
	if bound := decodeAllocBound(len(block), declared); spent > bound {
		// Once more, warm: the first decode may have set up a zstd
		// decoder or filled a pool.
		if rec != nil {
			rec.Release()
		}
		if again := allocated(decode); again > bound {
			t.Errorf("decoding a %d-byte block (declaring %d raw bytes) allocated %d bytes, then %d; the bound is %d\nbad %q odd %q",
				len(block), bb.declared, spent, again, bound, bb.bad, bb.odd)
		}
		spent = min(spent, bound)
	}
	st.alloc(len(block), declared, spent)
	what := fmt.Sprintf("schema %s, %d rows, bad %q, odd %q", schema, bb.rows, bb.bad, bb.odd)
	switch {
	case err != nil:
		if bb.mismatch && !errors.Is(err, ErrSchemaMismatch) {
			t.Fatalf("block with another schema's fingerprint: %v, want ErrSchemaMismatch (%s)", err, what)
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
			t.Fatalf("Decode error wraps neither ErrCorrupt nor ErrSchemaMismatch: %v (%s)", err, what)
		}
		if bb.canonical() {
			t.Fatalf("Decode refused a canonical block: %v (%s)", err, what)
		}
		if st != nil {
			st.refused++
		}
	case bb.mismatch:
		rec.Release()
		t.Fatalf("Decode accepted a block with another schema's fingerprint (%s)", what)
	case len(bb.bad) > 0 && len(bb.odd) == 0:
		// (With odd choices too, an odd one can make up for a bad one:
		// a node length one less over a child one row longer, say.)
		verr := array.ValidateRecordFull(rec)
		rec.Release()
		t.Fatalf("Decode accepted a block the format says is corrupt (ValidateRecordFull: %v) (%s)", verr, what)
	default:
		if err := array.ValidateRecordFull(rec); err != nil {
			rec.Release()
			t.Fatalf("Decode accepted a batch that does not validate: %v (%s)", err, what)
		}
		for _, col := range rec.Columns() {
			touchAll(col)
		}
		if bb.canonical() {
			if got := reencode(t, schema, rec, bb.xf); !bytes.Equal(got, bb.raw) {
				rec.Release()
				t.Fatalf("canonical block of %d bytes re-encodes to %d different bytes (first difference at %d) (%s)",
					len(bb.raw), len(got), firstDiff(got, bb.raw), what)
			}
			if st != nil {
				st.canonical++
				for k, n := range bb.kinds {
					st.kinds[k] += n
				}
			}
		} else if st != nil {
			st.acceptedOdd++
		}
		if mode == 4 {
			decodeTwiceAtOnce(t, schema, dec, block, rec, what)
		}
		rec.Release()
	}
	if parent != nil {
		parent.Release()
	}
	if mem != nil && mem.CurrentAlloc() != 0 {
		t.Fatalf("%d bytes of the allocator still in use after the batch was released (%s)", mem.CurrentAlloc(), what)
	}
}

// decodeTwiceAtOnce decodes block with dec from two goroutines at once and
// checks that both batches encode to the same bytes as want: under -race,
// that a Decoder is safe for concurrent use.
func decodeTwiceAtOnce(t testing.TB, schema *arrow.Schema, dec *Decoder, block []byte, want arrow.RecordBatch, what string) {
	var (
		wg   sync.WaitGroup
		got  [2]arrow.RecordBatch
		errs [2]error
	)
	for i := range got {
		wg.Go(func() { got[i], errs[i] = dec.Decode(block) })
	}
	wg.Wait()
	wantBytes := reencode(t, schema, want, 0)
	for i, rec := range got {
		if errs[i] != nil {
			t.Fatalf("a block that decoded failed when decoded from two goroutines: %v (%s)", errs[i], what)
		}
		same := bytes.Equal(reencode(t, schema, rec, 0), wantBytes)
		rec.Release()
		if !same {
			t.Fatalf("a block decoded from two goroutines at once gave another batch (%s)", what)
		}
	}
}

// touchAll reads the values of arr as a user would, through arrow-go's
// accessors: the offsets, type ids, dictionary indices and physical run
// indices of nested arrays, and ValueStr of leaf values. (ValueStr of a
// nested array formats through JSON, which fails on NaN floats and on
// extension types without ValueStr.) Of arrays longer than
// 2 x touchEnds rows it reads the first and last touchEnds rows: a block
// of a few bytes may hold 2^31 null or run-end encoded rows.
func touchAll(arr arrow.Array) {
	switch a := arr.(type) {
	case array.ExtensionArray:
		touchAll(a.Storage())
	case *array.Struct:
		for i := range a.NumField() {
			touchAll(a.Field(i))
		}
	case array.ListLike:
		touchAll(a.ListValues())
		for i := range touchRows(a.Len()) {
			a.ValueOffsets(i)
		}
	case *array.SparseUnion:
		for i := range a.NumFields() {
			touchAll(a.Field(i))
		}
		for i := range touchRows(a.Len()) {
			a.ChildID(i)
		}
	case *array.DenseUnion:
		for i := range a.NumFields() {
			touchAll(a.Field(i))
		}
		for i := range touchRows(a.Len()) {
			a.ChildID(i)
			a.ValueOffset(i)
		}
	case *array.Dictionary:
		touchAll(a.Dictionary())
		for i := range touchRows(a.Len()) {
			if a.IsValid(i) {
				a.GetValueIndex(i)
			}
		}
	case *array.RunEndEncoded:
		touchAll(a.RunEndsArr())
		touchAll(a.Values())
		for i := range touchRows(a.Len()) {
			a.GetPhysicalIndex(i)
		}
	default:
		for i := range touchRows(arr.Len()) {
			_ = arr.ValueStr(i)
		}
	}
}

const touchEnds = 1 << 12

// touchRows yields the rows of n that touchAll reads.
func touchRows(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if i == touchEnds && n > 2*touchEnds {
				i = n - touchEnds
			}
			if !yield(i) {
				return
			}
		}
	}
}

// reencode writes rec as an uncompressed block whose buffers went through
// the transforms xf, as the raw block of a compressed one would be.
func reencode(t testing.TB, schema *arrow.Schema, rec arrow.RecordBatch, xf flags) []byte {
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	return encodeRaw(t, enc, rec, xf)
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func checkStream(t testing.TB, schema *arrow.Schema, plans []*plan, c *choices, st *structStats) {
	bs := buildStream(c, schema, plans)
	if st != nil {
		st.streams++
		st.taint(bs.bad)
		st.taint(bs.odd)
	}
	// The stream must be refused if it or one of its blocks is bad, and
	// nothing odd could make up for it.
	declared := 0
	bad, odd := slices.Clone(bs.bad), slices.Clone(bs.odd)
	for _, bb := range bs.blocks {
		if bb.declared <= structMaxBlock {
			declared += bb.declared
		}
		bad, odd = append(bad, bb.bad...), append(odd, bb.odd...)
		if bb.mismatch {
			bad = append(bad, "a block of another schema's fingerprint")
		}
	}
	mode := c.intn(5)
	opts, mem := decodeOpts(mode)
	what := fmt.Sprintf("stream of schema %s, %d blocks, bad %q, odd %q", schema, len(bs.blocks), bad, odd)
	var (
		rd      *Reader
		err     error
		batches int
		fail    string
		spent   uint64
	)
	// run runs a step of the Reader, counting what it allocates; the
	// checks between steps are not counted.
	run := func(step func()) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Reader panicked: %v (%s)\n%s", p, what, debug.Stack())
			}
		}()
		spent += allocated(step)
	}
	run(func() { rd, err = NewReader(bytes.NewReader(bs.stream), opts...) })
	if err == nil {
		for {
			var ok bool
			run(func() { ok = rd.Next() })
			if !ok {
				break
			}
			rec := rd.RecordBatch()
			if verr := array.ValidateRecordFull(rec); verr != nil {
				fail = fmt.Sprintf("Reader gave a batch that does not validate: %v", verr)
				break
			}
			for _, col := range rec.Columns() {
				touchAll(col)
			}
			if bs.canonical() {
				bb := bs.blocks[batches]
				if got := reencode(t, rd.Schema(), rec, bb.xf); !bytes.Equal(got, bb.raw) {
					fail = fmt.Sprintf("canonical block %d re-encodes to different bytes", batches)
					break
				}
			}
			batches++
		}
		err = rd.Err()
		rd.Release()
	}
	if bound := decodeAllocBound(len(bs.stream), declared); spent > bound {
		t.Errorf("reading a %d-byte stream (declaring %d raw bytes) allocated %d bytes; the bound is %d (%s)",
			len(bs.stream), declared, spent, bound, what)
	}
	st.alloc(len(bs.stream), declared, spent)
	if fail != "" {
		t.Fatalf("%s (%s)", fail, what)
	}
	switch {
	case err != nil:
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
			t.Fatalf("Reader error wraps neither ErrCorrupt nor ErrSchemaMismatch: %v (%s)", err, what)
		}
		if bs.canonical() {
			t.Fatalf("Reader refused a canonical stream: %v (%s)", err, what)
		}
	case (len(bad) > 0 && len(odd) == 0) || bs.mismatch:
		t.Fatalf("Reader read %d batches and no error from a stream the format says is corrupt (%s)", batches, what)
	case bs.canonical() && batches != len(bs.blocks):
		t.Fatalf("Reader read %d batches from a canonical stream of %d blocks (%s)", batches, len(bs.blocks), what)
	}
	if mem != nil && mem.CurrentAlloc() != 0 {
		t.Fatalf("%d bytes of the allocator still in use after the Reader was released (%s)", mem.CurrentAlloc(), what)
	}
}

// structSeeds returns n seeded random inputs for the builders: a third of
// them with rate 0 (canonical blocks), the rest with random hostility.
func structSeeds(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		r := rand.New(rand.NewPCG(uint64(i), 0x5747))
		b := make([]byte, 16+r.IntN(4096))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if i%3 == 0 {
			b[0] = 0
		}
		out[i] = b
	}
	return out
}

// FuzzStructured decodes blocks and streams built field by field from the
// fuzzer's bytes (see blockBuilder): mutations land on lengths, offsets, ids
// and flags inside well-formed structure, not on random bytes.
func FuzzStructured(f *testing.F) {
	for _, s := range structSeeds(32) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runStructured(t, data, nil)
	})
}

// structuredInputs sets how many inputs TestStructured runs, for longer
// sweeps where the fuzzer cannot go (GOARCH=386, arm64 under qemu):
// go test -run TestStructured ./codec -args -structured.inputs=100000
var structuredInputs = flag.Int("structured.inputs", 5000, "inputs TestStructured builds and decodes")

// TestStructured runs the structure-aware builders over seeded random
// sources: canonical blocks must decode and re-encode to the same bytes,
// hostile ones must be refused with ErrCorrupt (or decode to sound
// batches, for the choices that may be sound), and no decode may allocate
// more than decodeAllocBound.
func TestStructured(t *testing.T) {
	n := *structuredInputs
	if testing.Short() {
		n = min(n, 300)
	}
	st := &structStats{kinds: map[kind]int{}, taints: map[string]int{}}
	for i, data := range structSeeds(n) {
		t.Run("", func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("input %d of structSeeds", i)
				}
			}()
			runStructured(t, data, st)
		})
		if t.Failed() {
			break
		}
	}
	t.Logf("%d inputs: %d canonical blocks decoded and re-encoded, %d hostile blocks refused, %d odd ones accepted, %d streams",
		n, st.canonical, st.refused, st.acceptedOdd, st.streams)
	t.Logf("closest to decodeAllocBound: %d bytes allocated (%.0f%% of the bound) by a %d-byte input declaring %d raw bytes",
		st.worstAlloc, 100*st.worstShare, st.worstIn, st.worstDeclared)
	var names []string
	for k := range st.taints {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		t.Logf("%6d x %s", st.taints[k], k)
	}
	// Every kind of node must have come out of a canonical block.
	if testing.Short() {
		return
	}
	for k := kNull; k <= kRunEnd; k++ {
		if st.kinds[k] == 0 {
			t.Errorf("no canonical block with a %s node decoded", k)
		}
	}
}
