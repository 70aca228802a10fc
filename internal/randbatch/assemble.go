package randbatch

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// assemble builds a nested array of dt with n rows from children generated
// separately by g.array, so that with Options.Slice every child is itself a
// slice. The structural buffers (validity, offsets, sizes, type ids, run ends,
// indices) are made with arrow-go's builders.
func (g *gen) assemble(dt arrow.DataType, n int, nullable bool) arrow.Array {
	switch dt := dt.(type) {
	case *arrow.ListType:
		return g.list(dt, dt.ElemField(), false, n, nullable)
	case *arrow.LargeListType:
		return g.list(dt, dt.ElemField(), true, n, nullable)
	case *arrow.ListViewType:
		return g.listView(dt, dt.ElemField(), false, n, nullable)
	case *arrow.LargeListViewType:
		return g.listView(dt, dt.ElemField(), true, n, nullable)
	case *arrow.FixedSizeListType:
		return g.fixedSizeList(dt, n, nullable)
	case *arrow.MapType:
		return g.mapArray(dt, n, nullable)
	case *arrow.StructType:
		return g.structArray(dt, n, nullable)
	case *arrow.SparseUnionType:
		return g.sparseUnion(dt, n)
	case *arrow.DenseUnionType:
		return g.denseUnion(dt, n)
	case *arrow.DictionaryType:
		return g.dictionary(dt, n, nullable)
	case *arrow.RunEndEncodedType:
		return g.runEndEncoded(dt, n)
	case arrow.ExtensionType:
		storage := g.array(dt.StorageType(), n, nullable)
		defer storage.Release()
		return array.NewExtensionArrayWithStorage(dt, storage)
	}
	panic(fmt.Sprintf("randbatch: cannot assemble %s", dt))
}

// newArray makes an array of dt with offset 0 from its buffers and children.
func newArray(dt arrow.DataType, n int, bufs []*memory.Buffer, nulls int, children ...arrow.Array) arrow.Array {
	childData := make([]arrow.ArrayData, len(children))
	for i, c := range children {
		childData[i] = c.Data()
	}
	data := array.NewData(dt, n, bufs, childData, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// spare returns how many unreferenced values to put before or after the ones
// a parent references: none unless Options.Slice, and then half the time.
func (g *gen) spare() int {
	if !g.opts.Slice || g.r.IntN(2) == 0 {
		return 0
	}
	return 1 + g.r.IntN(8)
}

// listSizes draws the length of each list slot. A null slot is usually empty
// but may cover values, as the format allows.
func (g *gen) listSizes(valid []bool) []int64 {
	maxLen := g.listMax()
	sizes := make([]int64, len(valid))
	for i, ok := range valid {
		if ok || g.r.IntN(8) == 0 {
			sizes[i] = int64(g.r.IntN(maxLen + 1))
		}
	}
	return sizes
}

// list assembles a list or large list whose offsets start, with
// Options.Slice, past the start of its child.
func (g *gen) list(dt arrow.DataType, elem arrow.Field, large bool, n int, nullable bool) arrow.Array {
	bitmap, nulls, valid := g.validity(n, nullable)
	sizes := g.listSizes(valid)
	offs := make([]int64, n+1)
	offs[0] = int64(g.spare())
	for i, s := range sizes {
		offs[i+1] = offs[i] + s
	}
	child := g.array(elem.Type, int(offs[n])+g.spare(), elem.Nullable)
	defer child.Release()
	offsets := g.offsetsBuffer(offs, large)
	defer release(bitmap, offsets)
	return newArray(dt, n, []*memory.Buffer{bitmap, offsets}, nulls, child)
}

// listView assembles a list view or large list view: a third of the time laid
// out in order like a list, otherwise as views in any order into a shared pool
// of values, overlapping and now and then repeating the previous view.
func (g *gen) listView(dt arrow.DataType, elem arrow.Field, large bool, n int, nullable bool) arrow.Array {
	bitmap, nulls, valid := g.validity(n, nullable)
	sizes := g.listSizes(valid)
	offs := make([]int64, n)
	var m int64 // child length
	if g.r.IntN(3) == 0 {
		m = int64(g.spare())
		for i, s := range sizes {
			offs[i] = m
			m += s
		}
		m += int64(g.spare())
	} else {
		var sum, longest int64
		for _, s := range sizes {
			sum += s
			longest = max(longest, s)
		}
		m = max(sum/2, longest) + int64(g.spare())
		for i, s := range sizes {
			offs[i] = g.r.Int64N(m - s + 1)
			if i > 0 && g.r.IntN(8) == 0 {
				offs[i], sizes[i] = offs[i-1], sizes[i-1]
			}
		}
	}
	child := g.array(elem.Type, int(m), elem.Nullable)
	defer child.Release()
	offsets, sizesBuf := g.offsetsBuffer(offs, large), g.offsetsBuffer(sizes, large)
	defer release(bitmap, offsets, sizesBuf)
	return newArray(dt, n, []*memory.Buffer{bitmap, offsets, sizesBuf}, nulls, child)
}

// fixedSizeList assembles a fixed-size list, its child sometimes longer than
// the list needs.
func (g *gen) fixedSizeList(dt *arrow.FixedSizeListType, n int, nullable bool) arrow.Array {
	bitmap, nulls, _ := g.validity(n, nullable)
	defer release(bitmap)
	child := g.array(dt.Elem(), n*int(dt.Len())+g.spare(), dt.ElemField().Nullable)
	defer child.Release()
	return newArray(dt, n, []*memory.Buffer{bitmap}, nulls, child)
}

// structArray assembles a struct, its children sometimes longer than it.
func (g *gen) structArray(dt *arrow.StructType, n int, nullable bool) arrow.Array {
	bitmap, nulls, _ := g.validity(n, nullable)
	defer release(bitmap)
	extra := g.spare()
	children := make([]arrow.Array, dt.NumFields())
	for i, f := range dt.Fields() {
		children[i] = g.array(f.Type, n+extra, f.Nullable)
		defer children[i].Release()
	}
	return newArray(dt, n, []*memory.Buffer{bitmap}, nulls, children...)
}

// mapArray assembles a map: a list of key-value structs whose keys are
// distinct within each map (and sorted when the type says so).
func (g *gen) mapArray(dt *arrow.MapType, n int, nullable bool) arrow.Array {
	keys := g.newDistinct(dt.KeyType())
	if keys.limit == 0 {
		panic(fmt.Sprintf("randbatch: cannot make distinct map keys of type %s", dt.KeyType()))
	}
	bitmap, nulls, valid := g.validity(n, nullable)
	sizes := g.listSizes(valid)
	groups := make([]int64, 0, n+2)
	groups = append(groups, int64(g.spare()))
	offs := make([]int64, n+1)
	offs[0] = groups[0]
	for i, s := range sizes {
		s = min(s, int64(keys.limit))
		groups = append(groups, s)
		offs[i+1] = offs[i] + s
	}
	groups = append(groups, int64(g.spare()))
	entries := g.entries(dt, keys, groups)
	defer entries.Release()
	offsets := g.offsetsBuffer(offs, false)
	defer release(bitmap, offsets)
	return newArray(dt, n, []*memory.Buffer{bitmap, offsets}, nulls, entries)
}

// entries returns the key-value structs of a map, one run of distinct keys for
// each group.
func (g *gen) entries(dt *arrow.MapType, keys *distinct, groups []int64) arrow.Array {
	m := sum(groups)
	return g.sliced(int(m), func(lead, total int) arrow.Array {
		all := append([]int64{int64(lead)}, groups...)
		all = append(all, int64(total-lead)-m)
		k := g.keys(keys, all, dt.KeysSorted)
		defer k.Release()
		items := g.array(dt.ItemType(), total, dt.ItemField().Nullable)
		defer items.Release()
		return newArray(dt.Elem(), total, []*memory.Buffer{nil}, 0, k, items)
	})
}

// keys returns non-null values with distinct values within each group (a group
// longer than keys.limit is split into runs).
func (g *gen) keys(keys *distinct, groups []int64, sorted bool) arrow.Array {
	m := sum(groups)
	return g.sliced(int(m), func(lead, total int) arrow.Array {
		b := array.NewBuilder(g.mem, keys.dt)
		defer b.Release()
		all := append([]int64{int64(lead)}, groups...)
		all = append(all, int64(total-lead)-m)
		for _, k := range all {
			for k > 0 {
				c := min(k, int64(keys.limit))
				for _, id := range g.distinctIDs(int(c), sorted, keys.limit) {
					keys.append(b, id)
				}
				k -= c
			}
		}
		return g.maybeDropValidity(b.NewArray())
	})
}

func sum(xs []int64) (s int64) {
	for _, x := range xs {
		s += x
	}
	return s
}

// unionChooser returns a function that picks the child of each union slot:
// uniformly, or (a fifth of the time) always the same one.
func (g *gen) unionChooser(nchildren int) func() int {
	if g.r.IntN(5) == 0 {
		c := g.r.IntN(nchildren)
		return func() int { return c }
	}
	return func() int { return g.r.IntN(nchildren) }
}

// sparseUnion assembles a sparse union whose children are sometimes longer
// than it.
func (g *gen) sparseUnion(dt *arrow.SparseUnionType, n int) arrow.Array {
	codes, fields := dt.TypeCodes(), dt.Fields()
	choose := g.unionChooser(len(codes))
	ids := make([]int8, n)
	for i := range ids {
		ids[i] = codes[choose()]
	}
	extra := g.spare()
	children := make([]arrow.Array, len(fields))
	for i, f := range fields {
		children[i] = g.array(f.Type, n+extra, f.Nullable)
		defer children[i].Release()
	}
	typeIDs := g.nonNil(g.int8Buffer(ids))
	defer release(typeIDs)
	return array.NewSparseUnion(dt, n, children, typeIDs, 0)
}

// nonNil returns buf or, if it is nil (as builders leave the buffers of
// empty arrays), an empty buffer: arrow-go's union validation reads the type
// id and offset buffers even of an empty union.
func (g *gen) nonNil(buf *memory.Buffer) *memory.Buffer {
	if buf != nil {
		return buf
	}
	return memory.NewResizableBuffer(g.mem)
}

// denseUnion assembles a dense union. With Options.Slice its offsets skip
// some child values and its children run past the last value used.
func (g *gen) denseUnion(dt *arrow.DenseUnionType, n int) arrow.Array {
	codes, fields := dt.TypeCodes(), dt.Fields()
	choose := g.unionChooser(len(codes))
	ids, offs := make([]int8, n), make([]int32, n)
	next := make([]int32, len(fields))
	for i := range n {
		c := choose()
		next[c] += int32(g.spare() / 4)
		ids[i], offs[i] = codes[c], next[c]
		next[c]++
	}
	children := make([]arrow.Array, len(fields))
	for i, f := range fields {
		children[i] = g.array(f.Type, int(next[i])+g.spare(), f.Nullable)
		defer children[i].Release()
	}
	typeIDs, offsets := g.nonNil(g.int8Buffer(ids)), g.nonNil(g.int32Buffer(offs))
	defer release(typeIDs, offsets)
	return array.NewDenseUnion(dt, n, children, typeIDs, offsets, 0)
}

// dictionary assembles a dictionary array: distinct dictionary values where
// the value type allows (random ones, possibly with nulls, otherwise) and
// indices in range, uniform or skewed to the first values.
func (g *gen) dictionary(dt *arrow.DictionaryType, n int, nullable bool) arrow.Array {
	values := g.newDistinct(dt.ValueType)
	d := 1 + g.r.IntN(min(maxIndex(dt.IndexType), max(n/2, 8), 1000))
	var dict arrow.Array
	if values.limit >= d {
		dict = g.keys(values, []int64{int64(d)}, g.r.IntN(2) == 0)
	} else {
		dict = g.array(dt.ValueType, d, g.r.IntN(4) == 0)
	}
	defer dict.Release()
	indices := g.sliced(n, func(_, total int) arrow.Array {
		b := array.NewBuilder(g.mem, dt.IndexType)
		defer b.Release()
		skewed := g.r.IntN(2) == 0
		for range total {
			if g.null(nullable) {
				b.AppendNull()
				continue
			}
			i := g.r.IntN(d)
			if skewed {
				i = g.r.IntN(i + 1)
			}
			AppendInt(b, int64(i))
		}
		return g.maybeDropValidity(b.NewArray())
	})
	defer indices.Release()
	return array.NewDictionaryArray(dt, indices, dict)
}

// maxIndex returns how many dictionary values an index type can address, up
// to 32767.
func maxIndex(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.INT8:
		return math.MaxInt8
	case arrow.UINT8:
		return math.MaxUint8
	}
	return math.MaxInt16
}

// runEndEncoded assembles a run-end encoded array of n rows: runs of 1 to 1,
// 3, 10 or 100 rows, values that may be null, and, with Options.Slice, run ends
// that are a slice of a longer array.
func (g *gen) runEndEncoded(dt *arrow.RunEndEncodedType, n int) arrow.Array {
	if n > maxRunEnd(dt.RunEnds()) {
		panic(fmt.Sprintf("randbatch: %d rows do not fit %s", n, dt))
	}
	maxRun := [...]int{1, 3, 10, 100}[g.r.IntN(4)]
	var ends []int64
	for pos := 0; pos < n; {
		pos = min(n, pos+1+g.r.IntN(maxRun))
		ends = append(ends, int64(pos))
	}
	runEnds := g.sliced(len(ends), func(lead, total int) arrow.Array {
		b := array.NewBuilder(g.mem, dt.RunEnds())
		defer b.Release()
		for i := range lead { // what a longer array's first runs might have been
			AppendInt(b, int64(i+1))
		}
		for _, e := range ends {
			AppendInt(b, e)
		}
		for i := range total - lead - len(ends) {
			AppendInt(b, int64(min(n+i+1, maxRunEnd(dt.RunEnds()))))
		}
		return g.maybeDropValidity(b.NewArray())
	})
	defer runEnds.Release()
	values := g.array(dt.Encoded(), len(ends), dt.ValueNullable)
	defer values.Release()
	return array.NewRunEndEncodedArrayWithType(dt, runEnds, values, n, 0)
}

// maxRunEnd returns the largest run end a run-end type holds.
func maxRunEnd(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.INT16:
		return math.MaxInt16
	case arrow.INT32:
		return math.MaxInt32
	}
	return math.MaxInt
}
