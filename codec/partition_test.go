package codec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// partBlocks collects the blocks a Partitioner hands its sink, copied.
type partBlocks [][][]byte

func (pb *partBlocks) sink(part int, block []byte) error {
	(*pb)[part] = append((*pb)[part], bytes.Clone(block))
	return nil
}

// rowRef is row r of batch b.
type rowRef struct{ b, r int }

// checkPartitioned partitions recs into p partitions with ids from ids and
// opts, and checks each partition's blocks: decoded, their rows equal
// compute.Take of the partition's rows of each batch, in order; and, when
// uncompressed, each block is byte for byte what AppendBatches writes for
// its rows.
func checkPartitioned(t *testing.T, recs []arrow.RecordBatch, p int, ids func(b, r int) uint32, opts ...Option) {
	t.Helper()
	schema := recs[0].Schema()
	rows := make([][]rowRef, p)
	for b, rec := range recs {
		for r := range int(rec.NumRows()) {
			q := ids(b, r)
			rows[q] = append(rows[q], rowRef{b, r})
		}
	}
	// The flat columns' two paths write the same blocks, whatever P.
	pb := partitionWith(t, recs, p, ids, 1, opts)
	for q, blocks := range partitionWith(t, recs, p, ids, -1, opts) {
		if len(blocks) != len(pb[q]) {
			t.Fatalf("partition %d: %d blocks gathered, %d scattered", q, len(pb[q]), len(blocks))
		}
		for k, block := range blocks {
			if !bytes.Equal(block, pb[q][k]) {
				t.Fatalf("partition %d block %d: the gathered and the scattered block differ", q, k)
			}
		}
	}
	dec, err := NewDecoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := newConfig(opts)
	enc, err := NewEncoder(schema, WithBlockChecksum(cfg.checksum))
	if err != nil {
		t.Fatal(err)
	}
	exact := unifiable(schema)
	for q := range p {
		var got []arrow.RecordBatch
		at := 0
		for k, block := range pb[q] {
			out, err := dec.Decode(block)
			if err != nil {
				t.Fatalf("partition %d block %d: %v", q, k, err)
			}
			for i, col := range out.Columns() {
				if et, ok := col.DataType().(arrow.ExtensionType); ok && et.StorageType().ID() == arrow.DICTIONARY {
					continue // arrow-go's ValidateFull refuses these, the originals too
				}
				if err := array.ValidateFull(col); err != nil {
					t.Fatalf("partition %d block %d column %d: %v", q, k, i, err)
				}
			}
			n := int(out.NumRows())
			if n == 0 {
				t.Fatalf("partition %d block %d has no rows", q, k)
			}
			if cfg.compression == None && exact {
				var slices []arrow.RecordBatch
				for _, rr := range rows[q][at : at+n] {
					slices = append(slices, recs[rr.b].NewSlice(int64(rr.r), int64(rr.r+1)))
				}
				want, err := enc.AppendBatches(nil, slices...)
				if err != nil {
					t.Fatalf("AppendBatches of partition %d block %d: %v", q, k, err)
				}
				if !bytes.Equal(block, want) {
					t.Fatalf("partition %d block %d (%d rows): %d bytes, AppendBatches of its rows %d bytes, not the same", q, k, n, len(block), len(want))
				}
				for _, s := range slices {
					s.Release()
				}
			}
			at += n
			got = append(got, out)
		}
		if at != len(rows[q]) {
			t.Fatalf("partition %d: %d rows in its blocks, %d sent to it", q, at, len(rows[q]))
		}
		want := takeRows(t, recs, rows[q])
		for i := range schema.NumFields() {
			gc := colChunks(got, i)
			var plain []arrow.Array
			for _, c := range gc {
				plain = append(plain, plainDict(t, c)...)
			}
			if err := chunksEqual(plain, want[i]); err != nil {
				t.Fatalf("partition %d column %d (%s): %v", q, i, schema.Field(i).Type, err)
			}
		}
	}
}

// partitionWith partitions recs with ids, its flat columns gathered (path
// 1) or scattered (-1), and returns each partition's blocks.
func partitionWith(t *testing.T, recs []arrow.RecordBatch, p int, ids func(b, r int) uint32, path int8, opts []Option) partBlocks {
	t.Helper()
	pb := make(partBlocks, p)
	pt, err := NewPartitioner(recs[0].Schema(), p, pb.sink, opts...)
	if err != nil {
		t.Fatal(err)
	}
	pt.path = path
	for b, rec := range recs {
		parts := make([]uint32, rec.NumRows())
		for r := range parts {
			parts[r] = ids(b, r)
		}
		if err := pt.Write(rec, parts); err != nil {
			t.Fatalf("Write batch %d: %v", b, err)
		}
	}
	if err := pt.Close(); err != nil {
		t.Fatal(err)
	}
	if pt.Held() != 0 {
		t.Errorf("after Close the Partitioner holds %d bytes", pt.Held())
	}
	return pb
}

// takeRows returns, for each column, the rows rows lists (in order) as
// chunks: compute.Take of each batch's rows, or, for a type Take does not
// handle, the rows' one-row slices. Dictionary columns come as their
// values (Take of the dictionary), as blocks may unify dictionaries.
func takeRows(t *testing.T, recs []arrow.RecordBatch, rows []rowRef) [][]arrow.Array {
	t.Helper()
	ncols := int(recs[0].NumCols())
	out := make([][]arrow.Array, ncols)
	for b, rec := range recs {
		var idx []int32
		for _, rr := range rows {
			if rr.b == b {
				idx = append(idx, int32(rr.r))
			}
		}
		if len(idx) == 0 {
			continue
		}
		ia := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(idx),
			[]*memory.Buffer{nil, memory.NewBufferBytes(int32Bytes(idx))}, nil, 0, 0))
		for i, col := range rec.Columns() {
			var got arrow.Array
			err := errors.New("not takeable")
			if takeable(col.DataType()) {
				got, err = safeTake(col, ia)
			}
			if err != nil {
				for _, r := range idx {
					out[i] = append(out[i], plainDict(t, array.NewSlice(col, int64(r), int64(r)+1))...)
				}
				continue
			}
			out[i] = append(out[i], plainDict(t, got)...)
		}
	}
	return out
}

// safeTake is compute.TakeArray, which panics on some nested types
// (arrow-go v18.8's ArraySpan.SetMembers): that counts as an error.
func safeTake(a, idx arrow.Array) (out arrow.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Take panicked: %v", r)
		}
	}()
	return compute.TakeArray(context.Background(), a, idx)
}

// takeable reports whether compute.Take is asked to take arrays of dt:
// the types of the Partitioner's fast path. Inside structs, run-end
// encoded children and some unions make Take panic in a goroutine of its
// own (arrow-go v18.8's ArraySpan.SetMembers), which no recover reaches;
// the rare types are compared row by row with the original instead.
func takeable(dt arrow.DataType) bool {
	if et, ok := dt.(arrow.ExtensionType); ok && et.StorageType().ID() == arrow.DICTIONARY {
		return false // Take panics on them too
	}
	p, err := newPlan(dt, 0)
	return err == nil && fastKind(p, true)
}

// plainDict returns a, or for a dictionary array its values, as chunks:
// Take of the dictionary, or where Take cannot, one-row slices of it.
func plainDict(t *testing.T, a arrow.Array) []arrow.Array {
	d, ok := a.(*array.Dictionary)
	if !ok {
		return []arrow.Array{a}
	}
	v, err := safeTake(d.Dictionary(), d.Indices())
	if err == nil {
		return []arrow.Array{v}
	}
	var out []arrow.Array
	for i := range d.Len() {
		if d.IsNull(i) {
			out = append(out, array.MakeArrayOfNull(memory.DefaultAllocator, d.Dictionary().DataType(), 1))
			continue
		}
		k := int64(d.GetValueIndex(i))
		out = append(out, array.NewSlice(d.Dictionary(), k, k+1))
	}
	return out
}

// unifiable reports whether the dictionaries of dictionary type dt are
// unified when blocks join them (arrow-go's unifier takes the values);
// otherwise AppendBatches lays each batch's dictionary end to end, and a
// Partitioner's block, which holds one per distinct dictionary, is not
// that of AppendBatches of its rows one by one.
func unifiable(schema *arrow.Schema) bool {
	for _, f := range schema.Fields() {
		if dt, ok := f.Type.(*arrow.DictionaryType); ok {
			u, err := array.NewDictionaryUnifier(memory.DefaultAllocator, dt.ValueType)
			if err != nil {
				return false
			}
			u.Release()
		}
	}
	return true
}

func colChunks(recs []arrow.RecordBatch, i int) []arrow.Array {
	var out []arrow.Array
	for _, r := range recs {
		out = append(out, r.Column(i))
	}
	return out
}

// chunksEqual compares the concatenations of a and b, chunk by chunk.
func chunksEqual(a, b []arrow.Array) error {
	ai, bi, ao, bo, row := 0, 0, 0, 0, 0
	for {
		for ai < len(a) && ao == a[ai].Len() {
			ai, ao = ai+1, 0
		}
		for bi < len(b) && bo == b[bi].Len() {
			bi, bo = bi+1, 0
		}
		if ai == len(a) || bi == len(b) {
			if ai != len(a) || bi != len(b) {
				return fmt.Errorf("different lengths: one ends at row %d", row)
			}
			return nil
		}
		n := min(a[ai].Len()-ao, b[bi].Len()-bo)
		if !array.SliceEqual(a[ai], int64(ao), int64(ao+n), b[bi], int64(bo), int64(bo+n)) {
			for k := range n {
				if !array.SliceEqual(a[ai], int64(ao+k), int64(ao+k+1), b[bi], int64(bo+k), int64(bo+k+1)) {
					return fmt.Errorf("row %d: got %v, want %v", row+k, array.NewSlice(a[ai], int64(ao+k), int64(ao+k+1)), array.NewSlice(b[bi], int64(bo+k), int64(bo+k+1)))
				}
			}
			return fmt.Errorf("rows %d..%d differ", row, row+n)
		}
		ao, bo, row = ao+n, bo+n, row+n
	}
}

// splitmix is the partition id of row r of batch b in the tests.
func splitmix(b, r int) uint64 {
	x := uint64(b)<<32 + uint64(r) + 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func randIDs(p int) func(b, r int) uint32 {
	return func(b, r int) uint32 { return uint32(splitmix(b, r) % uint64(p)) }
}

var partitionCompressions = []Compression{None, LZ4, Zstd, Light}

func TestPartitionAllTypes(t *testing.T) {
	mem := memory.NewGoAllocator()
	for ti, dt := range randbatch.AllTypes() {
		schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: dt, Nullable: true}, {Name: "b", Type: arrow.PrimitiveTypes.Int64}}, nil)
		t.Run(fmt.Sprintf("%d-%s", ti, dt), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ti), 7))
			var recs []arrow.RecordBatch
			for b := range 3 {
				n := []int{37, 1, 130}[b]
				recs = append(recs, randbatch.Batch(mem, r, schema, n, randbatch.Options{NullProb: 0.2, Slice: true}))
			}
			defer func() {
				for _, rec := range recs {
					rec.Release()
				}
			}()
			for _, p := range []int{1, 7, 200} {
				for _, c := range partitionCompressions {
					t.Run(fmt.Sprintf("P%d-%s", p, c), func(t *testing.T) {
						checkPartitioned(t, recs, p, randIDs(p), WithCompression(c), WithBlockRows(50))
					})
				}
			}
			// Each batch to one partition: the rows go as whole runs.
			checkPartitioned(t, recs, 7, batchIDs(7), WithBlockRows(50))
		})
	}
}

// batchIDs sends all rows of batch b to partition 3b mod p.
func batchIDs(p int) func(b, r int) uint32 {
	return func(b, r int) uint32 { return uint32(3 * b % p) }
}

func TestPartitionRandomSchemas(t *testing.T) {
	mem := memory.NewGoAllocator()
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		schema := randbatch.RandomSchema(r, 1+r.IntN(5), 3)
		var recs []arrow.RecordBatch
		for range 3 {
			recs = append(recs, randbatch.Batch(mem, r, schema, r.IntN(300), randbatch.Options{NullProb: r.Float64() / 2, Slice: seed%2 == 0}))
		}
		if recs[0].NumRows() == 0 {
			recs[0].Release()
			recs[0] = randbatch.Batch(mem, r, schema, 5, randbatch.Options{})
		}
		for _, p := range []int{1, 7, 200} {
			c := partitionCompressions[(seed+p)%len(partitionCompressions)]
			t.Run(fmt.Sprintf("seed%d-P%d-%s", seed, p, c), func(t *testing.T) {
				checkPartitioned(t, recs, p, randIDs(p), WithCompression(c))
				checkPartitioned(t, recs, p, randIDs(p), WithCompression(None), WithBlockSize(2000))
			})
		}
		for _, rec := range recs {
			rec.Release()
		}
	}
}

// TestPartitionBlockChecksum: with WithBlockChecksum the Partitioner's
// blocks are sealed as AppendBatches seals them.
func TestPartitionBlockChecksum(t *testing.T) {
	_, _, recs := seededBatches(t, 41, 4, 1, 6)
	checkPartitioned(t, recs, 7, func(b, r int) uint32 { return uint32(b*31+r) % 7 }, WithBlockChecksum(true))
}

func TestPartitionGolden(t *testing.T) {
	root := os.Getenv("ARROW_TEST_DATA")
	if root == "" {
		t.Skip("ARROW_TEST_DATA is not set")
	}
	forGoldenStreams(t, root, func(t *testing.T, rdr *ipc.Reader) {
		if _, err := NewEncoder(rdr.Schema()); err != nil {
			t.Skipf("the encoder refuses the schema: %v", err)
		}
		var recs []arrow.RecordBatch
		for rdr.Next() {
			rec := rdr.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
			if n := rec.NumRows(); n > 2 {
				recs = append(recs, rec.NewSlice(1, n-1))
			}
		}
		defer func() {
			for _, rec := range recs {
				rec.Release()
			}
		}()
		if len(recs) == 0 {
			t.Skip("no batches")
		}
		for _, p := range []int{1, 7, 200} {
			for _, c := range partitionCompressions {
				t.Run(fmt.Sprintf("P%d-%s", p, c), func(t *testing.T) {
					checkPartitioned(t, recs, p, randIDs(p), WithCompression(c), WithBlockRows(20))
				})
			}
		}
	})
}

// TestPartitionDictionaries sends batches with the same, equal and
// different dictionaries through one partitioner.
func TestPartitionDictionaries(t *testing.T) {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
	mk := func(dict []string, idx []int16) arrow.RecordBatch {
		b := array.NewDictionaryBuilder(memory.DefaultAllocator, dt).(*array.BinaryDictionaryBuilder)
		defer b.Release()
		vals := array.NewStringBuilder(memory.DefaultAllocator)
		vals.AppendValues(dict, nil)
		va := vals.NewArray()
		ia := array.NewInt16Builder(memory.DefaultAllocator)
		for _, i := range idx {
			if i < 0 {
				ia.AppendNull()
			} else {
				ia.Append(i)
			}
		}
		ix := ia.NewArray()
		d := array.NewDictionaryArray(dt, ix, va)
		va.Release()
		ix.Release()
		vals.Release()
		ia.Release()
		return array.NewRecordBatch(schema, []arrow.Array{d}, int64(d.Len()))
	}
	a := mk([]string{"x", "y", "z"}, []int16{0, 1, 2, -1, 2, 1, 0, 0})
	a2 := mk([]string{"x", "y", "z"}, []int16{2, 2, 1, 0, -1, 1})
	b := mk([]string{"q", "x", "r", "y"}, []int16{0, 1, 2, 3, 3, 2, 1, 0})
	recs := []arrow.RecordBatch{a, a, a2, b, a}
	for _, p := range []int{1, 3, 7} {
		for _, c := range partitionCompressions {
			checkPartitioned(t, recs, p, randIDs(p), WithCompression(c))
		}
	}
}

func TestPartitionBadInput(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	good := randbatch.Batch(memory.DefaultAllocator, rand.New(rand.NewPCG(1, 2)), schema, 10, randbatch.Options{})
	defer good.Release()
	pb := make(partBlocks, 4)
	pt, err := NewPartitioner(schema, 4, pb.sink)
	if err != nil {
		t.Fatal(err)
	}
	ids := []uint32{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}
	if err := pt.Write(good, ids); err != nil {
		t.Fatal(err)
	}
	held := pt.Held()
	// Strings that are not UTF-8: the batch is refused whole.
	bad := good.Column(1).Data().Buffers()
	data := bytes.Clone(bad[2].Bytes())
	data[len(data)-1] = 0xff
	sd := array.NewData(arrow.BinaryTypes.String, 10, []*memory.Buffer{nil, bad[1], memory.NewBufferBytes(data)}, nil, 0, 0)
	sa := array.MakeFromData(sd)
	badRec := array.NewRecordBatch(schema, []arrow.Array{good.Column(0), sa}, 10)
	err = pt.Write(badRec, ids)
	if !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("invalid UTF-8: %v, want ErrInvalidBatch", err)
	}
	for _, c := range []struct {
		name string
		ids  []uint32
		want string
	}{
		{"id too large", []uint32{0, 1, 2, 3, 4, 0, 0, 0, 0, 0}, "row 4"},
		{"id far too large", []uint32{0, 1, 2, 3, 0, 0, 0, 0, 0, 1 << 31}, "row 9"},
		{"short", ids[:9], "9 partition ids"},
		{"long", append(ids[:10:10], 0), "11 partition ids"},
	} {
		err := pt.Write(good, c.ids)
		if !errors.Is(err, ErrInvalidBatch) || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: %v, want ErrInvalidBatch naming %q", c.name, err, c.want)
		}
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil)
	orec := randbatch.Batch(memory.DefaultAllocator, rand.New(rand.NewPCG(1, 2)), other, 10, randbatch.Options{})
	defer orec.Release()
	if err := pt.Write(orec, ids); !errors.Is(err, ErrSchemaMismatch) {
		t.Errorf("another schema: %v, want ErrSchemaMismatch", err)
	}
	if pt.Held() != held {
		t.Errorf("refused batches changed what is pending: %d bytes, %d before", pt.Held(), held)
	}
	if err := pt.Close(); err != nil {
		t.Fatal(err)
	}
	// Only the good batch's rows are in the blocks.
	dec, _ := NewDecoder(schema)
	total := 0
	for q := range pb {
		for _, b := range pb[q] {
			out, err := dec.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			total += int(out.NumRows())
		}
	}
	if total != 10 {
		t.Errorf("%d rows written, want 10", total)
	}
	if err := pt.Write(good, ids); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	for _, p := range []int{0, -1, 1<<24 + 1} {
		if _, err := NewPartitioner(schema, p, pb.sink); !errors.Is(err, ErrUnsupported) {
			t.Errorf("NewPartitioner(%d): %v, want ErrUnsupported", p, err)
		}
	}
	if _, err := NewPartitioner(schema, 1, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("NewPartitioner(nil sink): %v, want ErrUnsupported", err)
	}
}

// TestPartitionSinkError checks that the sink's error stops the
// Partitioner.
func TestPartitionSinkError(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := randbatch.Batch(memory.DefaultAllocator, rand.New(rand.NewPCG(1, 2)), schema, 10, randbatch.Options{})
	defer rec.Release()
	boom := errors.New("boom")
	pt, err := NewPartitioner(schema, 2, func(int, []byte) error { return boom }, WithBlockRows(3))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]uint32, 10)
	if err := pt.Write(rec, ids); !errors.Is(err, boom) {
		t.Fatalf("Write: %v, want the sink's error", err)
	}
	if err := pt.Flush(); !errors.Is(err, boom) {
		t.Fatalf("Flush after a sink error: %v", err)
	}
}

// TestPartitionMemoryLimit checks that with WithMemoryLimit the memory
// held for pending rows stays under the limit after every Write, by
// finishing the largest partitions early, and that the blocks still hold
// every row in order.
func TestPartitionMemoryLimit(t *testing.T) {
	rec := randbatch.Lineitem(memory.DefaultAllocator, 2048)
	defer rec.Release()
	const p, limit = 50, 256 << 10
	var recs []arrow.RecordBatch
	for range 12 {
		recs = append(recs, rec)
	}
	pb := make(partBlocks, p)
	pt, err := NewPartitioner(rec.Schema(), p, pb.sink, WithBlockRows(1<<20), WithMemoryLimit(limit))
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for b := range recs {
		parts := make([]uint32, rec.NumRows())
		for r := range parts {
			parts[r] = randIDs(p)(b, r)
		}
		if err := pt.Write(rec, parts); err != nil {
			t.Fatal(err)
		}
		if pt.Held() > limit {
			t.Fatalf("after batch %d the Partitioner holds %d bytes, over its limit of %d", b, pt.Held(), limit)
		}
		most = max(most, pt.Held())
	}
	if most < limit/2 {
		t.Errorf("the most held was %d bytes: the limit of %d never came near", most, limit)
	}
	if err := pt.Close(); err != nil {
		t.Fatal(err)
	}
	early := 0
	for q := range pb {
		early += max(0, len(pb[q])-1)
	}
	if early == 0 {
		t.Error("no block was finished early")
	}
	checkPartitioned(t, recs, p, randIDs(p), WithBlockRows(1<<20), WithMemoryLimit(limit))
	if _, err := NewPartitioner(rec.Schema(), p, pb.sink, WithMemoryLimit(-1)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("WithMemoryLimit(-1): %v", err)
	}
}

// TestPartitionWarmAllocs: once its buffers have grown, a Partitioner
// writes a batch of flat columns and finishes its blocks without
// allocating: the cost of a batch does not grow with the blocks it makes.
func TestPartitionWarmAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	rec := randbatch.Lineitem(memory.NewGoAllocator(), 2048)
	defer rec.Release()
	for _, c := range []Compression{None, LZ4} {
		for _, p := range []int{1, 16, 200} {
			rws := make([]*RawWriter, p)
			for q := range rws {
				var err error
				if rws[q], err = NewRawWriter(io.Discard, rec.Schema()); err != nil {
					t.Fatal(err)
				}
			}
			pt, err := NewPartitioner(rec.Schema(), p, RawWriterSink(rws), WithCompression(c), WithBlockRows(1000))
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]uint32, rec.NumRows())
			for i := range ids {
				ids[i] = randIDs(p)(0, i)
			}
			round := func() {
				if err := pt.Write(rec, ids); err != nil {
					t.Fatal(err)
				}
				if err := pt.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			for range 3 {
				round()
			}
			if allocs := testing.AllocsPerRun(10, round); allocs != 0 {
				t.Errorf("%s, P=%d: %.1f allocations a batch once warm", c, p, allocs)
			}
			if err := pt.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
