package randbatch

import (
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultMaxListLen is the longest list, list view or map generated when
// Options.MaxListLen is 0.
const DefaultMaxListLen = 5

// Options control a generated array.
type Options struct {
	// NullProb is the probability of a null in each slot whose field is
	// nullable: 0 gives no nulls, 1 gives all nulls. Non-nullable fields (map
	// keys, for one) never hold nulls.
	NullProb float64
	// MaxListLen bounds the length of each list, list view and map; 0 means
	// DefaultMaxListLen.
	MaxListLen int
	// Slice builds every array, at every level of nesting, longer than needed
	// and slices it at a random offset, and lays out nested arrays so that
	// their offsets need not start at 0 and their children are referenced only
	// in part.
	Slice bool
}

// Array returns a random array of type dt with n rows. The array is treated as
// nullable. It panics if dt is not a type the generator knows (see AllTypes;
// map keys must be integers of 8 to 64 bits, strings, binaries, dates,
// timestamps, fixed-size binaries or decimals, so that they can be made
// distinct), or if n rows do not fit the type (a run-end encoded array with
// int16 run ends holds at most 32767 rows).
func Array(mem memory.Allocator, r *rand.Rand, dt arrow.DataType, n int, opts Options) arrow.Array {
	return newGen(mem, r, opts).array(dt, n, true)
}

// Batch returns a random record batch for schema with n rows. Each column is
// generated as by Array, honouring the field's nullability. With opts.Slice the
// whole batch is also, at random, built longer and cut with
// RecordBatch.NewSlice.
func Batch(mem memory.Allocator, r *rand.Rand, schema *arrow.Schema, n int, opts Options) arrow.RecordBatch {
	g := newGen(mem, r, opts)
	lead, tail := 0, 0
	if opts.Slice && r.IntN(2) == 0 {
		lead, tail = g.sliceOffset(), r.IntN(4)
	}
	total := lead + n + tail
	cols := make([]arrow.Array, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = g.array(f.Type, total, f.Nullable)
	}
	rec := array.NewRecordBatch(schema, cols, int64(total))
	for _, c := range cols {
		c.Release()
	}
	if lead == 0 && tail == 0 {
		return rec
	}
	defer rec.Release()
	return rec.NewSlice(int64(lead), int64(lead+n))
}

// sliceOffsets are the offsets that catch bit-offset and word-boundary bugs.
var sliceOffsets = []int{0, 1, 7, 8, 9, 63, 64, 65}

// gen holds the state of one Array or Batch call.
type gen struct {
	mem    memory.Allocator
	r      *rand.Rand
	opts   Options
	maxLen int
	// vals keeps, for each builder being filled, the value generator chosen
	// for it, so that values appended row by row (inside nested builders)
	// still follow one distribution per array.
	vals map[array.Builder]*valueGen
}

func newGen(mem memory.Allocator, r *rand.Rand, opts Options) *gen {
	maxLen := opts.MaxListLen
	if maxLen <= 0 {
		maxLen = DefaultMaxListLen
	}
	return &gen{mem: mem, r: r, opts: opts, maxLen: maxLen, vals: make(map[array.Builder]*valueGen)}
}

// sliceOffset picks the offset at which a longer array is sliced.
func (g *gen) sliceOffset() int {
	if g.r.IntN(4) == 0 {
		return g.r.IntN(130)
	}
	return sliceOffsets[g.r.IntN(len(sliceOffsets))]
}

// null reports whether the next slot of a field is null.
func (g *gen) null(nullable bool) bool {
	p := g.opts.NullProb
	return nullable && p > 0 && (p >= 1 || g.r.Float64() < p)
}

// array returns a random array of dt with n rows; with Options.Slice it is a
// slice of a longer array.
func (g *gen) array(dt arrow.DataType, n int, nullable bool) arrow.Array {
	return g.sliced(n, func(_, total int) arrow.Array { return g.build(dt, total, nullable) })
}

// sliced returns build(0, n) or, with Options.Slice, the rows [lead, lead+n) of
// build(lead, total) for a random lead and a total a little over lead+n.
func (g *gen) sliced(n int, build func(lead, total int) arrow.Array) arrow.Array {
	if !g.opts.Slice {
		return build(0, n)
	}
	lead := g.sliceOffset()
	whole := build(lead, lead+n+g.r.IntN(4))
	defer whole.Release()
	return array.NewSlice(whole, int64(lead), int64(lead+n))
}

// build returns an unsliced array of dt with n rows (its children may be
// sliced). Nested types are either filled through arrow-go's nested builders or
// assembled from separately generated children.
func (g *gen) build(dt arrow.DataType, n int, nullable bool) arrow.Array {
	if isNested(dt) && (!builderFriendly(dt) || g.r.IntN(2) == 0) {
		return g.assemble(dt, n, nullable)
	}
	b := array.NewBuilder(g.mem, dt)
	defer b.Release()
	g.fill(b, dt, n, nullable)
	return g.maybeDropValidity(b.NewArray())
}

// isNested reports whether dt has child arrays (or, for dictionaries and
// extensions, another array inside).
func isNested(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW,
		arrow.STRUCT, arrow.MAP, arrow.SPARSE_UNION, arrow.DENSE_UNION,
		arrow.DICTIONARY, arrow.RUN_END_ENCODED, arrow.EXTENSION:
		return true
	}
	return false
}

// builderFriendly reports whether an arrow-go builder can produce dt whole:
// dictionaries of arbitrary values and run-end encoded arrays are always
// assembled, and so are unions with an extension child (arrow-go v18.8's union
// builder gives such a child its storage type).
func builderFriendly(dt arrow.DataType) bool {
	switch dt := dt.(type) {
	case *arrow.DictionaryType, *arrow.RunEndEncodedType:
		return false
	case arrow.ExtensionType:
		return builderFriendly(dt.StorageType())
	case arrow.NestedType:
		union := dt.ID() == arrow.SPARSE_UNION || dt.ID() == arrow.DENSE_UNION
		for _, f := range dt.Fields() {
			if !builderFriendly(f.Type) || union && f.Type.ID() == arrow.EXTENSION {
				return false
			}
		}
	}
	return true
}

// maybeDropValidity removes, half the time, the validity bitmap of an array
// that has no nulls: builders always write one, but arrays from elsewhere
// (IPC, compute kernels) often have none.
func (g *gen) maybeDropValidity(arr arrow.Array) arrow.Array {
	d := arr.Data()
	bufs := d.Buffers()
	if arr.NullN() != 0 || len(bufs) == 0 || bufs[0] == nil || g.r.IntN(2) == 0 {
		return arr
	}
	defer arr.Release()
	bufs = slices.Clone(bufs)
	bufs[0] = nil
	nd := array.NewData(d.DataType(), d.Len(), bufs, d.Children(), 0, d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// validity draws n validity flags and returns them with their bitmap and null
// count. The bitmap is nil, half the time, when there are no nulls. The caller
// releases the bitmap.
func (g *gen) validity(n int, nullable bool) (bitmap *memory.Buffer, nulls int, valid []bool) {
	valid = make([]bool, n)
	for i := range valid {
		valid[i] = !g.null(nullable)
		if !valid[i] {
			nulls++
		}
	}
	if nulls == 0 && g.r.IntN(2) == 0 {
		return nil, 0, valid
	}
	b := array.NewBooleanBuilder(g.mem)
	defer b.Release()
	b.AppendValues(valid, nil)
	return valuesBuffer(b.NewArray()), nulls, valid
}

// valuesBuffer returns the data buffer of a primitive array (the bitmap of a
// boolean array), retained, and releases the array.
func valuesBuffer(arr arrow.Array) *memory.Buffer {
	defer arr.Release()
	buf := arr.Data().Buffers()[1]
	if buf != nil {
		buf.Retain()
	}
	return buf
}

// int8Buffer, int32Buffer and int64Buffer return buffers holding vals, built
// with the matching arrow-go builder. The caller releases them.
func (g *gen) int8Buffer(vals []int8) *memory.Buffer {
	b := array.NewInt8Builder(g.mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return valuesBuffer(b.NewArray())
}

func (g *gen) int32Buffer(vals []int32) *memory.Buffer {
	b := array.NewInt32Builder(g.mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return valuesBuffer(b.NewArray())
}

func (g *gen) int64Buffer(vals []int64) *memory.Buffer {
	b := array.NewInt64Builder(g.mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return valuesBuffer(b.NewArray())
}

// offsetsBuffer returns vals as 32-bit or, when large, 64-bit offsets.
func (g *gen) offsetsBuffer(vals []int64, large bool) *memory.Buffer {
	if large {
		return g.int64Buffer(vals)
	}
	v32 := make([]int32, len(vals))
	for i, v := range vals {
		v32[i] = int32(v)
	}
	return g.int32Buffer(v32)
}

// release releases the buffers that are not nil.
func release(bufs ...*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}
