package randbatch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

var (
	nullProbs = []float64{0, 0.3, 1}
	// rowCounts include the empty and one-row arrays and word boundaries.
	rowCounts = []int{0, 1, 7, 8, 9, 63, 64, 65, 100, 200}
)

func checkedAllocator(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// walk calls fn on d and on every array data below it: children and
// dictionaries, whole (not as the parent's slice sees them).
func walk(d arrow.ArrayData, depth int, fn func(d arrow.ArrayData, depth int)) {
	fn(d, depth)
	for _, c := range d.Children() {
		walk(c, depth+1, fn)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil { // a typed nil if none
		walk(dict, depth+1, fn)
	}
}

// nullN returns the null count of d, computing it if unknown.
func nullN(d arrow.ArrayData) int {
	a := array.MakeFromData(d)
	defer a.Release()
	return a.NullN()
}

// hasValidity reports whether arrays of dt have a validity bitmap.
func hasValidity(dt arrow.DataType) bool {
	if ext, ok := dt.(arrow.ExtensionType); ok {
		dt = ext.StorageType()
	}
	l := dt.Layout()
	return len(l.Buffers) > 0 && l.Buffers[0].Kind == arrow.KindBitmap
}

// checkArray checks what every generated array must satisfy.
func checkArray(t *testing.T, arr arrow.Array, dt arrow.DataType, n int, opts Options) {
	t.Helper()
	if err := array.ValidateFull(arr); err != nil {
		t.Fatalf("ValidateFull: %v", err)
	}
	if arr.Len() != n {
		t.Fatalf("Len() = %d, want %d", arr.Len(), n)
	}
	if !arrow.TypeEqual(arr.DataType(), dt) {
		t.Fatalf("DataType() = %s, want %s", arr.DataType(), dt)
	}
	switch {
	case dt.ID() == arrow.NULL:
		if arr.NullN() != n {
			t.Fatalf("null array: NullN() = %d, want %d", arr.NullN(), n)
		}
	case opts.NullProb == 0:
		walk(arr.Data(), 0, func(d arrow.ArrayData, _ int) {
			if d.DataType().ID() != arrow.NULL && nullN(d) != 0 {
				t.Fatalf("NullProb 0: %s has %d nulls", d.DataType(), nullN(d))
			}
		})
	case opts.NullProb == 1 && hasValidity(dt):
		if arr.NullN() != n {
			t.Fatalf("NullProb 1: NullN() = %d, want %d", arr.NullN(), n)
		}
	}
	maxLen := opts.MaxListLen
	if maxLen == 0 {
		maxLen = DefaultMaxListLen
	}
	checkInvariants(t, arr, maxLen)
}

// checkInvariants checks, at every level, what ValidateFull does not: map
// keys non-null and distinct (and sorted if the type says so) and lists no
// longer than maxLen.
func checkInvariants(t *testing.T, arr arrow.Array, maxLen int) {
	t.Helper()
	switch a := arr.(type) {
	case *array.Map:
		// Not a.Keys(): arrow-go's Map.Keys ignores the offset of the
		// entries struct, which the generator slices.
		keys := a.ListValues().(*array.Struct).Field(0)
		for i := range a.Len() {
			start, end := a.ValueOffsets(i)
			if end-start > int64(maxLen) {
				t.Fatalf("map %d has %d entries, MaxListLen %d", i, end-start, maxLen)
			}
			seen := map[string]bool{}
			prev := ""
			for j := start; j < end; j++ {
				if keys.IsNull(int(j)) {
					t.Fatalf("map %d: null key at %d", i, j)
				}
				k := keys.ValueStr(int(j))
				if seen[k] {
					t.Fatalf("map %d: duplicate key %q", i, k)
				}
				seen[k] = true
				if a.DataType().(*arrow.MapType).KeysSorted && j > start && isStringLike(keys) && k < prev {
					t.Fatalf("map %d: keys not sorted: %q after %q", i, k, prev)
				}
				prev = k
			}
		}
		checkInvariants(t, a.ListValues(), maxLen)
	case array.ListLike:
		if _, fixed := a.(*array.FixedSizeList); !fixed {
			for i := range a.Len() {
				if start, end := a.ValueOffsets(i); end-start > int64(maxLen) {
					t.Fatalf("list %d has %d values, MaxListLen %d", i, end-start, maxLen)
				}
			}
		}
		checkInvariants(t, a.ListValues(), maxLen)
	case *array.Struct:
		for i := range a.NumField() {
			checkInvariants(t, a.Field(i), maxLen)
		}
	case array.Union:
		for i := range a.NumFields() {
			checkInvariants(t, a.Field(i), maxLen)
		}
	case *array.Dictionary:
		checkInvariants(t, a.Dictionary(), maxLen)
	case *array.RunEndEncoded:
		checkInvariants(t, a.Values(), maxLen)
	case array.ExtensionArray:
		checkInvariants(t, a.Storage(), maxLen)
	}
}

func isStringLike(a arrow.Array) bool {
	switch a.DataType().ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

func TestArrayAllTypes(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	for _, dt := range AllTypes() {
		t.Run(dt.String(), func(t *testing.T) {
			mem := checkedAllocator(t)
			for seed := range seeds {
				for _, slice := range []bool{false, true} {
					for _, p := range nullProbs {
						opts := Options{NullProb: p, Slice: slice}
						if seed%3 == 2 {
							opts.MaxListLen = 1 + seed
						}
						n := rowCounts[(seed+int(p*10))%len(rowCounts)]
						t.Run(fmt.Sprintf("seed=%d/slice=%v/null=%v/n=%d", seed, slice, p, n), func(t *testing.T) {
							arr := Array(mem, seeded(uint64(seed)), dt, n, opts)
							defer arr.Release()
							checkArray(t, arr, dt, n, opts)
						})
					}
				}
			}
		})
	}
}

// TestSliceReachesEveryLevel checks that with Options.Slice arrays are sliced
// at the top, at the awkward offsets, and below the top of every nested type.
func TestSliceReachesEveryLevel(t *testing.T) {
	mem := checkedAllocator(t)
	offsets := map[int]bool{}
	for _, dt := range AllTypes() {
		top, below := false, false
		for seed := range 40 {
			arr := Array(mem, seeded(uint64(seed)), dt, 50, Options{NullProb: 0.3, Slice: true})
			walk(arr.Data(), 0, func(d arrow.ArrayData, depth int) {
				if d.Offset() == 0 {
					return
				}
				if depth == 0 {
					top = true
					offsets[d.Offset()] = true
				} else {
					below = true
				}
			})
			arr.Release()
		}
		if !top {
			t.Errorf("%s: never sliced at the top", dt)
		}
		hasChildren := isNested(dt) && dt.ID() != arrow.EXTENSION
		if st, ok := dt.(*arrow.StructType); ok && st.NumFields() == 0 {
			hasChildren = false
		}
		if hasChildren && !below {
			t.Errorf("%s: children never sliced", dt)
		}
	}
	for _, off := range sliceOffsets[1:] {
		if !offsets[off] {
			t.Errorf("no array sliced at offset %d", off)
		}
	}
}

// TestLayouts checks that the layouts the codec must handle do come out:
// absent validity bitmaps, view data inline and out of line over several
// buffers, list views out of order and overlapping, list offsets not starting
// at 0, dense union offsets that skip values.
func TestLayouts(t *testing.T) {
	mem := checkedAllocator(t)
	found := map[string]bool{}
	gen := func(dt arrow.DataType, opts Options, check func(arr arrow.Array)) {
		for seed := range 30 {
			arr := Array(mem, seeded(uint64(seed)), dt, 200, opts)
			check(arr)
			arr.Release()
		}
	}
	gen(arrow.PrimitiveTypes.Int32, Options{}, func(arr arrow.Array) {
		if arr.Data().Buffers()[0] == nil {
			found["no bitmap"] = true
		} else {
			found["all-valid bitmap"] = true
		}
	})
	gen(arrow.BinaryTypes.StringView, Options{NullProb: 0.1}, func(arr arrow.Array) {
		a := arr.(*array.StringView)
		if len(a.Data().Buffers()) > 3 {
			found["several view buffers"] = true
		}
		for i := range a.Len() {
			if a.IsValid(i) {
				found[fmt.Sprintf("view inline=%v", len(a.Value(i)) <= arrow.ViewPrefixLen+4)] = true
			}
		}
	})
	gen(arrow.ListViewOf(arrow.PrimitiveTypes.Int32), Options{}, func(arr arrow.Array) {
		a := arr.(*array.ListView)
		for i := 1; i < a.Len(); i++ {
			s0, e0 := a.ValueOffsets(i - 1)
			s1, e1 := a.ValueOffsets(i)
			if s1 < s0 {
				found["list view out of order"] = true
			}
			if s1 < e0 && s0 < e1 && s1 != e1 && s0 != e0 {
				found["list views overlap"] = true
			}
		}
	})
	gen(arrow.ListOf(arrow.PrimitiveTypes.Int32), Options{Slice: true}, func(arr arrow.Array) {
		if arr.Len() > 0 {
			if start, _ := arr.(*array.List).ValueOffsets(0); start != 0 {
				found["list offsets not from 0"] = true
			}
		}
	})
	gen(arrow.DenseUnionOf([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}, []arrow.UnionTypeCode{0}),
		Options{Slice: true}, func(arr arrow.Array) {
			a := arr.(*array.DenseUnion)
			for i := 1; i < a.Len(); i++ {
				if a.ValueOffset(i) > a.ValueOffset(i-1)+1 {
					found["dense union gap"] = true
				}
			}
		})
	for _, want := range []string{
		"no bitmap", "all-valid bitmap", "several view buffers", "view inline=true", "view inline=false",
		"list view out of order", "list views overlap", "list offsets not from 0", "dense union gap",
	} {
		if !found[want] {
			t.Errorf("never generated: %s", want)
		}
	}
}

// kinds adds to into a key for dt and for every type inside it, telling apart
// the variants AllTypes lists (time units, zones, index and run-end types,
// negative scales, sorted maps, union modes, extension names).
func kinds(dt arrow.DataType, into map[string]bool) {
	k := dt.ID().String()
	switch t := dt.(type) {
	case *arrow.TimestampType:
		k += fmt.Sprintf("[%s zoned=%v]", t.Unit, t.TimeZone != "")
	case *arrow.Time32Type:
		k += "[" + t.Unit.String() + "]"
	case *arrow.Time64Type:
		k += "[" + t.Unit.String() + "]"
	case *arrow.DurationType:
		k += "[" + t.Unit.String() + "]"
	case arrow.DecimalType:
		k += fmt.Sprintf("[negative scale=%v]", t.GetScale() < 0)
	case *arrow.MapType:
		k += fmt.Sprintf("[sorted=%v]", t.KeysSorted)
	case *arrow.DictionaryType:
		k += "[" + t.IndexType.String() + "]"
		into[fmt.Sprintf("dictionary values nested=%v", isNested(t.ValueType))] = true
		kinds(t.ValueType, into)
	case *arrow.RunEndEncodedType:
		k += "[" + t.RunEnds().String() + "]"
	case arrow.ExtensionType:
		k += "[" + t.ExtensionName() + "]"
		into[k] = true
		return // the storage of a given extension is fixed
	}
	into[k] = true
	if nested, ok := dt.(arrow.NestedType); ok {
		for _, f := range nested.Fields() {
			kinds(f.Type, into)
		}
	}
}

func TestRandomTypeCoversAllTypes(t *testing.T) {
	want := map[string]bool{}
	for _, dt := range AllTypes() {
		kinds(dt, want)
	}
	got := map[string]bool{}
	r := seeded(1)
	for range 20000 {
		kinds(RandomType(r, 3), got)
	}
	for k := range want {
		if !got[k] {
			t.Errorf("RandomType never produced %s", k)
		}
	}
	for range 100 {
		if dt := RandomType(r, 0); isNested(dt) {
			t.Fatalf("RandomType(r, 0) = %s, want a leaf", dt)
		}
	}
}

func TestRandomTypesGenerate(t *testing.T) {
	mem := checkedAllocator(t)
	r := seeded(2)
	iters := 600
	if testing.Short() {
		iters = 150
	}
	for i := range iters {
		dt := RandomType(r, r.IntN(4))
		opts := Options{NullProb: nullProbs[r.IntN(3)], Slice: r.IntN(2) == 0, MaxListLen: r.IntN(6)}
		n := r.IntN(150)
		arr := Array(mem, r, dt, n, opts)
		t.Run(fmt.Sprintf("%d/%s", i, dt), func(t *testing.T) { checkArray(t, arr, dt, n, opts) })
		arr.Release()
	}
}

func TestBatch(t *testing.T) {
	mem := checkedAllocator(t)
	for seed := range 60 {
		r := seeded(uint64(seed))
		ncols := r.IntN(7)
		schema := RandomSchema(r, ncols, r.IntN(4))
		n := rowCounts[seed%len(rowCounts)]
		opts := Options{NullProb: nullProbs[seed%3], Slice: seed%2 == 1}
		rec := Batch(mem, r, schema, n, opts)
		if err := array.ValidateRecordFull(rec); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		if rec.NumRows() != int64(n) || rec.NumCols() != int64(ncols) || !rec.Schema().Equal(schema) {
			t.Errorf("seed %d: %d rows, %d cols, schema %s; want %d, %d, %s",
				seed, rec.NumRows(), rec.NumCols(), rec.Schema(), n, ncols, schema)
		}
		for i, f := range schema.Fields() {
			if !f.Nullable && rec.Column(i).NullN() != 0 && hasValidity(f.Type) {
				t.Errorf("seed %d: non-nullable column %s has nulls", seed, f.Name)
			}
		}
		rec.Release()
	}
}

// layout describes the physical layout of d: types, offsets, lengths and
// buffer sizes at every level.
func layout(d arrow.ArrayData) string {
	var sb strings.Builder
	walk(d, 0, func(d arrow.ArrayData, depth int) {
		fmt.Fprintf(&sb, "%s%s off=%d len=%d bufs=[", strings.Repeat(" ", depth), d.DataType(), d.Offset(), d.Len())
		for _, b := range d.Buffers() {
			if b == nil {
				sb.WriteString("nil ")
			} else {
				fmt.Fprintf(&sb, "%d ", b.Len())
			}
		}
		sb.WriteString("]\n")
	})
	return sb.String()
}

func TestDeterministic(t *testing.T) {
	mem := checkedAllocator(t)
	for seed := range 30 {
		opts := Options{NullProb: 0.3, Slice: seed%2 == 0}
		build := func() arrow.RecordBatch {
			r := seeded(uint64(seed))
			return Batch(mem, r, RandomSchema(r, 5, 3), 70, opts)
		}
		a, b := build(), build()
		if !a.Schema().Equal(b.Schema()) {
			t.Fatalf("seed %d: schemas differ:\n%s\n%s", seed, a.Schema(), b.Schema())
		}
		if !array.RecordEqual(a, b) {
			t.Errorf("seed %d: batches differ", seed)
		}
		for i := range a.NumCols() {
			la, lb := layout(a.Column(int(i)).Data()), layout(b.Column(int(i)).Data())
			if la != lb {
				t.Errorf("seed %d column %d: layouts differ:\n%s\n%s", seed, i, la, lb)
			}
		}
		a.Release()
		b.Release()
	}
	// Different seeds give different batches.
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	a := Batch(mem, seeded(1), schema, 100, Options{NullProb: 0.3})
	b := Batch(mem, seeded(2), schema, 100, Options{NullProb: 0.3})
	if array.RecordEqual(a, b) {
		t.Error("seeds 1 and 2 gave equal batches")
	}
	a.Release()
	b.Release()
}

func TestBenchShapes(t *testing.T) {
	mem := checkedAllocator(t)
	want := []struct {
		name       string
		rows, cols int64
	}{
		{"lineitem-8192", 8192, 16},
		{"lineitem-8192-sliced3", 8192, 16},
		{"lineitem-64", 64, 16},
		{"utf8x3-8192", 8192, 3},
		{"wide100x1024", 1024, 100},
		{"nested-8192", 8192, 2},
		{"dict-8192", 8192, 1},
	}
	shapes := BenchShapes()
	if len(shapes) != len(want) {
		t.Fatalf("%d shapes, want %d", len(shapes), len(want))
	}
	for i, s := range shapes {
		w := want[i]
		if s.Name != w.name {
			t.Errorf("shape %d is %q, want %q", i, s.Name, w.name)
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			rec := s.Build(mem)
			defer rec.Release()
			if err := array.ValidateRecordFull(rec); err != nil {
				t.Fatal(err)
			}
			if rec.NumRows() != w.rows || rec.NumCols() != w.cols {
				t.Fatalf("%d rows x %d cols, want %d x %d", rec.NumRows(), rec.NumCols(), w.rows, w.cols)
			}
			again := s.Build(mem)
			defer again.Release()
			if !array.RecordEqual(rec, again) {
				t.Fatal("two builds differ")
			}
			if strings.HasSuffix(s.Name, "sliced3") && rec.Column(0).Data().Offset() != 3 {
				t.Fatalf("offset %d, want 3", rec.Column(0).Data().Offset())
			}
		})
	}
}

func TestShapeValues(t *testing.T) {
	mem := checkedAllocator(t)

	rec := Utf8Columns(mem, 8192)
	for c := range rec.NumCols() {
		col := rec.Column(int(c)).(*array.String)
		if frac := float64(col.NullN()) / float64(col.Len()); frac < 0.07 || frac > 0.13 {
			t.Errorf("utf8 column %d: %.3f null, want about 0.10", c, frac)
		}
		for i := range col.Len() {
			if col.IsValid(i) && (len(col.Value(i)) < 5 || len(col.Value(i)) > 40) {
				t.Fatalf("utf8 column %d row %d: %q is not 5-40 bytes", c, i, col.Value(i))
			}
		}
	}
	rec.Release()

	rec = Lineitem(mem, 1000)
	wantNames := []string{"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
		"l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate",
		"l_shipinstruct", "l_shipmode", "l_comment"}
	var names []string
	for _, f := range rec.Schema().Fields() {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("lineitem columns %v, want %v", names, wantNames)
	}
	keys := rec.Column(0).(*array.Int64).Int64Values()
	if !slices.IsSorted(keys) {
		t.Error("l_orderkey not ascending")
	}
	ship, receipt := rec.Column(10).(*array.Date32), rec.Column(12).(*array.Date32)
	for i := range ship.Len() {
		if receipt.Value(i) <= ship.Value(i) {
			t.Fatalf("row %d: received %v before shipped %v", i, receipt.Value(i), ship.Value(i))
		}
	}
	rec.Release()

	rec = Dictionary(mem, 8192)
	dict := rec.Column(0).(*array.Dictionary)
	if d := dict.Dictionary().Len(); d != 100 {
		t.Errorf("dictionary has %d values, want 100", d)
	}
	rec.Release()

	rec = WideNumeric(mem, 10, 7)
	for i, f := range rec.Schema().Fields() {
		wantType := arrow.DataType(arrow.PrimitiveTypes.Int64)
		if i%2 == 1 {
			wantType = arrow.PrimitiveTypes.Float64
		}
		if !arrow.TypeEqual(f.Type, wantType) {
			t.Errorf("wide column %d is %s, want %s", i, f.Type, wantType)
		}
	}
	rec.Release()
}
