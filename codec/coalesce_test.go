package codec

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// concatBatches returns array.Concatenate's concatenation of recs, column
// by column, or an error when arrow-go cannot concatenate a column (unions).
func concatBatches(schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for k, r := range recs {
			parts[k] = r.Column(i)
		}
		c, err := array.Concatenate(parts, memory.NewGoAllocator())
		if err != nil {
			return nil, fmt.Errorf("column %d (%s): %w", i, schema.Field(i).Type, err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

// checkCoalesced encodes recs as one block with AppendBatches, uncompressed
// and LZ4-compressed, and checks that the block is byte for byte the block
// of array.Concatenate's result, and that it decodes to a sound batch
// holding every batch's rows in order. Where arrow-go cannot concatenate
// (unions), the decoded rows are compared with each batch's instead.
func checkCoalesced(t *testing.T, what string, schema *arrow.Schema, recs []arrow.RecordBatch) {
	t.Helper()
	want, cerr := concatBatches(schema, recs)
	if want != nil {
		defer want.Release()
		// arrow-go v18.8's Concatenate makes invalid run-end encoded
		// arrays when a leading input has no rows; such a result is no
		// oracle: compare with the batches' rows instead.
		if err := goldenValidate(want, want); err != nil {
			t.Logf("%s: array.Concatenate's result is invalid (%v); comparing rows", what, err)
			want.Release()
			want, cerr = nil, fmt.Errorf("not implemented: invalid result: %w", err)
		}
	}
	dec, err := NewDecoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Compression{None, LZ4} {
		enc, err := NewEncoder(schema, WithCompression(c))
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("prefix")
		block, err := enc.AppendBatches(bytes.Clone(prefix), recs...)
		if err != nil && cerr != nil && errors.Is(err, ErrUnsupported) && strings.Contains(err.Error(), "dictionaries") {
			// Dictionaries whose union overflows the index type: neither
			// can concatenate them.
			t.Logf("%s: %v", what, err)
			return
		}
		if err != nil {
			t.Fatalf("%s %s: AppendBatches: %v", what, c, err)
		}
		if !bytes.HasPrefix(block, prefix) {
			t.Fatalf("%s %s: AppendBatches lost dst's bytes", what, c)
		}
		block = block[len(prefix):]
		if want != nil {
			// One batch is written as Append writes it, which keeps the
			// sizes of null list views that Concatenate empties.
			from := want
			if len(recs) == 1 {
				from = recs[0]
			}
			single, err := enc.Append(nil, from)
			if err != nil {
				t.Fatalf("%s %s: Append of the concatenation: %v", what, c, err)
			}
			if !bytes.Equal(block, single) {
				t.Fatalf("%s %s: AppendBatches of %d batches (%d bytes) differs from Append of their concatenation (%d bytes)\nschema: %s",
					what, c, len(recs), len(block), len(single), schema)
			}
		} else if c == None {
			// No oracle (unions, which arrow-go does not concatenate, or
			// a failure of Concatenate itself): the rows are compared.
			t.Logf("%s: array.Concatenate: %v", what, cerr)
		}
		got, err := dec.Decode(block)
		if err != nil {
			t.Fatalf("%s %s: Decode: %v\nschema: %s", what, c, err, schema)
		}
		checkRowsOf(t, what, want, recs, got)
		got.Release()
	}
}

// checkRowsOf checks that got validates and that each column equals want's
// (the concatenation, if arrow-go made one) or holds the rows of recs in
// order. (arrow-go's Equal tells a sliced run-end encoded array from its
// concatenation, and dictionaries unified from those they came from.)
func checkRowsOf(t *testing.T, what string, want arrow.RecordBatch, recs []arrow.RecordBatch, got arrow.RecordBatch) {
	t.Helper()
	if len(recs) > 0 {
		if err := goldenValidate(got, recs[0]); err != nil {
			t.Fatalf("%s: decoded batch does not validate: %v", what, err)
		}
	}
	at := int64(0)
	for k, r := range recs {
		for i := range int(r.NumCols()) {
			if want != nil && array.Equal(want.Column(i), got.Column(i)) {
				continue
			}
			part := array.NewSlice(got.Column(i), at, at+r.NumRows())
			w := r.Column(i)
			if !array.Equal(w, part) && !sameRowsSafe(w, part) {
				t.Fatalf("%s: batch %d column %d differs:\nwant %v\ngot  %v", what, k, i, w, part)
			}
			part.Release()
		}
		at += r.NumRows()
	}
	if at != got.NumRows() {
		t.Fatalf("%s: decoded %d rows, want %d", what, got.NumRows(), at)
	}
}

// sameRowsSafe reports whether a and b hold the same rows, where
// array.Equal calls them different: dictionaries unified or laid end to end
// (compared by value, at any depth), unions of extensions. It is false if
// arrow-go fails on a row.
func sameRowsSafe(a, b arrow.Array) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return logicalEqual(a, b)
}

// logicalEqual compares a and b row by row, looking through dictionaries.
func logicalEqual(a, b arrow.Array) bool {
	if a.Len() != b.Len() || !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return false
	}
	if array.Equal(a, b) {
		return true
	}
	sub := func(x arrow.Array, i, j int64) arrow.Array { return array.NewSlice(x, i, j) }
	eq := func(x, y arrow.Array) bool {
		defer x.Release()
		defer y.Release()
		return logicalEqual(x, y)
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) {
			return false
		}
	}
	switch x := a.(type) {
	case array.ExtensionArray:
		return logicalEqual(x.Storage(), b.(array.ExtensionArray).Storage())
	case *array.Dictionary:
		y := b.(*array.Dictionary)
		for i := range a.Len() {
			if a.IsValid(i) {
				u, v := int64(x.GetValueIndex(i)), int64(y.GetValueIndex(i))
				if !eq(sub(x.Dictionary(), u, u+1), sub(y.Dictionary(), v, v+1)) {
					return false
				}
			}
		}
		return true
	case *array.Struct:
		y := b.(*array.Struct)
		for f := range x.NumField() {
			for i := range a.Len() {
				if a.IsValid(i) && !eq(sub(x.Field(f), int64(i), int64(i+1)), sub(y.Field(f), int64(i), int64(i+1))) {
					return false
				}
			}
		}
		return true
	case array.ListLike:
		y := b.(array.ListLike)
		for i := range a.Len() {
			if a.IsValid(i) {
				s1, e1 := x.ValueOffsets(i)
				s2, e2 := y.ValueOffsets(i)
				if !eq(sub(x.ListValues(), s1, e1), sub(y.ListValues(), s2, e2)) {
					return false
				}
			}
		}
		return true
	case array.Union:
		y := b.(array.Union)
		for i := range a.Len() {
			if x.RawTypeCodes()[i] != y.RawTypeCodes()[i] {
				return false
			}
			ci, cj := x.ChildID(i), y.ChildID(i)
			oi, oj := int64(i), int64(i)
			if d, ok := x.(*array.DenseUnion); ok {
				oi, oj = int64(d.ValueOffset(i)), int64(y.(*array.DenseUnion).ValueOffset(i))
			}
			if !eq(sub(x.Field(ci), oi, oi+1), sub(y.Field(cj), oj, oj+1)) {
				return false
			}
		}
		return true
	}
	return sameRows(a, b)
}

// TestAppendBatchesAllTypes coalesces random sliced batches of every type,
// top level and inside each kind of parent, with nulls, several of them
// empty, and compares with array.Concatenate.
func TestAppendBatchesAllTypes(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(21, 22))
	var types []arrow.DataType
	for _, dt := range randbatch.AllTypes() {
		types = append(types, dt)
		for _, w := range wrappers {
			types = append(types, w.wrap(dt))
		}
	}
	for i, dt := range types {
		schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
		for _, nulls := range []float64{0, 0.3, 1} {
			k := 1 + r.IntN(5)
			recs := make([]arrow.RecordBatch, k)
			for j := range recs {
				rows := []int{0, 1, 7, 16, 64}[r.IntN(5)]
				recs[j] = randbatch.Batch(mem, r, schema, rows, randbatch.Options{NullProb: nulls, MaxListLen: 4, Slice: true})
			}
			checkCoalesced(t, fmt.Sprintf("type %d %s nulls %.1f", i, dt, nulls), schema, recs)
			batches.Release(recs)
		}
	}
}

// TestAppendBatchesRandomSchemas coalesces batches of random schemas.
func TestAppendBatchesRandomSchemas(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(23, 24))
	for i := range 60 {
		schema := randbatch.RandomSchema(r, 1+r.IntN(4), 3)
		recs := make([]arrow.RecordBatch, r.IntN(6))
		for j := range recs {
			recs[j] = randbatch.Batch(mem, r, schema, r.IntN(40), randbatch.Options{NullProb: 0.2, MaxListLen: 4, Slice: true})
		}
		if len(recs) == 0 {
			checkZeroBatches(t, schema)
			continue
		}
		checkCoalesced(t, fmt.Sprintf("schema %d", i), schema, recs)
		batches.Release(recs)
	}
}

// checkZeroBatches checks AppendBatches of no batch is a block of zero
// rows.
func checkZeroBatches(t *testing.T, schema *arrow.Schema) {
	t.Helper()
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	block, err := enc.AppendBatches(nil)
	if err != nil {
		t.Fatalf("AppendBatches of no batch: %v", err)
	}
	got, err := dec.Decode(block)
	if err != nil {
		t.Fatalf("Decode of no batch: %v\nschema: %s", err, schema)
	}
	defer got.Release()
	if got.NumRows() != 0 {
		t.Fatalf("no batch decoded as %d rows", got.NumRows())
	}
	if err := array.ValidateRecordFull(got); err != nil {
		t.Fatalf("no batch: %v", err)
	}
}

// TestAppendBatchesDictionaries coalesces dictionary batches whose
// dictionaries are shared, equal, or different (unified as
// array.Concatenate does), with every index width.
func TestAppendBatchesDictionaries(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, idx := range []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Int16,
		arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64} {
		dt := &arrow.DictionaryType{IndexType: idx, ValueType: arrow.BinaryTypes.String}
		schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
		mk := func(dict []string, indices []int, valid []bool) arrow.RecordBatch {
			db := array.NewStringBuilder(mem)
			db.AppendValues(dict, nil)
			da := db.NewArray()
			defer da.Release()
			ib := array.NewBuilder(mem, idx)
			for i, v := range indices {
				if valid != nil && !valid[i] {
					ib.AppendNull()
					continue
				}
				randbatch.AppendInt(ib, int64(v))
			}
			ia := ib.NewArray()
			defer ia.Release()
			ib.Release()
			arr := array.NewDictionaryArray(dt, ia, da)
			defer arr.Release()
			return array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
		}
		a := mk([]string{"x", "y", "z"}, []int{0, 2, 1, 2}, nil)
		b := mk([]string{"x", "y", "z"}, []int{2, 2, 0}, []bool{true, false, true})
		c := mk([]string{"z", "w"}, []int{1, 0, 1, 1}, []bool{true, true, false, true})
		sa := a.NewSlice(1, 4)
		for _, recs := range [][]arrow.RecordBatch{{a, a}, {a, b}, {a, c}, {c, a, b}, {sa, c, sa}} {
			checkCoalesced(t, fmt.Sprintf("%s x%d", dt, len(recs)), schema, recs)
		}
		batches.Release([]arrow.RecordBatch{a, b, c, sa})
	}
}

// TestAppendBatchesGolden coalesces the batches of every golden
// integration stream, whole and sliced at odd offsets, and compares with
// array.Concatenate.
func TestAppendBatchesGolden(t *testing.T) {
	root := os.Getenv("ARROW_TEST_DATA")
	if root == "" {
		t.Skip("ARROW_TEST_DATA is not set")
	}
	forGoldenStreams(t, root, func(t *testing.T, rdr *ipc.Reader) {
		name := t.Name()
		var whole, sliced []arrow.RecordBatch
		for rdr.Next() {
			rec := rdr.RecordBatch()
			rec.Retain()
			whole = append(whole, rec)
			n := rec.NumRows()
			off := min(int64(len(sliced)%2*2+1), n) // 1 or 3
			sliced = append(sliced, rec.NewSlice(off, off+(n-off)/2+(n-off)%2))
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		defer batches.Release(whole)
		defer batches.Release(sliced)
		if len(whole) == 0 {
			checkZeroBatches(t, rdr.Schema())
			return
		}
		checkCoalesced(t, name+" whole", rdr.Schema(), whole)
		checkCoalesced(t, name+" sliced", rdr.Schema(), sliced)
		mixed := append(append([]arrow.RecordBatch{}, sliced...), whole...)
		checkCoalesced(t, name+" sliced then whole", rdr.Schema(), mixed)
	})
}

// TestAppendBatchesErrors checks the errors of AppendBatches and that dst
// comes back unchanged with each.
func TestAppendBatchesErrors(t *testing.T) {
	schema, recs := goldenBatches()
	defer batches.Release(recs)
	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatal(err)
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8}}, nil)
	ob := array.NewRecordBatch(other, []arrow.Array{array.NewInt8Builder(memory.NewGoAllocator()).NewArray()}, 0)
	defer ob.Release()
	dst := []byte("prefix")
	out, err := enc.AppendBatches(dst, recs[0], ob)
	if !errors.Is(err, ErrSchemaMismatch) || !bytes.Equal(out, dst) {
		t.Fatalf("AppendBatches with a batch of another schema: %v, %q", err, out)
	}
}

// TestAppendBatchesAllocs checks that coalescing into a buffer with room
// allocates nothing, as Append does.
func TestAppendBatchesAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts are measured in the long run only")
	}
	mem := memory.NewGoAllocator()
	full := randbatch.Lineitem(mem, 1024)
	defer full.Release()
	var recs []arrow.RecordBatch
	for i := int64(0); i < 1024; i += 16 {
		recs = append(recs, full.NewSlice(i, i+16))
	}
	defer batches.Release(recs)
	for _, c := range []Compression{None, LZ4} {
		enc, err := NewEncoder(full.Schema(), WithCompression(c))
		if err != nil {
			t.Fatal(err)
		}
		buf, err := enc.AppendBatches(nil, recs...)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := enc.AppendBatches(buf[:0], recs...); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: AppendBatches of %d batches allocates %.1f times per call", c, len(recs), allocs)
		}
	}
}

// FuzzAppendBatches coalesces several random batches of a random schema
// into one block and checks it against array.Concatenate (bytes) and the
// batches (rows), as checkCoalesced does.
func FuzzAppendBatches(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(seed*37), uint16(seed*1000), uint8(seed))
	}
	mem := memory.NewGoAllocator()
	f.Fuzz(func(t *testing.T, seed uint64, shape uint8, rows uint16, k uint8) {
		r := rand.New(rand.NewPCG(seed, uint64(shape)))
		schema := randbatch.RandomSchema(r, 1+int(shape%6), int(shape/64))
		opts := randbatch.Options{NullProb: float64(shape%5) / 4, MaxListLen: 1 + int(shape%7), Slice: shape&1 == 1}
		recs := make([]arrow.RecordBatch, int(k%8))
		for i := range recs {
			recs[i] = randbatch.Batch(mem, r, schema, r.IntN(1+int(rows%300)), opts)
		}
		defer batches.Release(recs)
		if len(recs) == 0 {
			checkZeroBatches(t, schema)
			return
		}
		checkCoalesced(t, "fuzz", schema, recs)
	})
}
