package codec

import (
	"hash"
	"hash/fnv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestFingerprintDistinguishes: changing anything that makes blocks
// unreadable changes the fingerprint; metadata does not.
func TestFingerprintDistinguishes(t *testing.T) {
	ts := func(u arrow.TimeUnit, tz string) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: tz} }
	base := func(dt arrow.DataType) *arrow.Schema {
		return arrow.NewSchema([]arrow.Field{{Name: "a", Type: dt, Nullable: true}}, nil)
	}
	list := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	kinds := []*arrow.Schema{
		base(arrow.PrimitiveTypes.Int32),
		base(arrow.PrimitiveTypes.Uint32),
		base(arrow.PrimitiveTypes.Float32),
		base(ts(arrow.Second, "")),
		base(ts(arrow.Millisecond, "")),
		base(ts(arrow.Millisecond, "UTC")),
		base(arrow.FixedWidthTypes.Time32s),
		base(arrow.FixedWidthTypes.Time32ms),
		base(arrow.FixedWidthTypes.Duration_s),
		base(arrow.FixedWidthTypes.Duration_ns),
		base(&arrow.Decimal128Type{Precision: 10, Scale: 2}),
		base(&arrow.Decimal128Type{Precision: 10, Scale: -2}),
		base(&arrow.Decimal128Type{Precision: 12, Scale: 2}),
		base(&arrow.Decimal256Type{Precision: 10, Scale: 2}),
		base(&arrow.FixedSizeBinaryType{ByteWidth: 3}),
		base(&arrow.FixedSizeBinaryType{ByteWidth: 4}),
		base(list),
		base(arrow.ListOfField(arrow.Field{Name: "elem", Type: arrow.PrimitiveTypes.Int32, Nullable: true})),
		base(arrow.ListOfNonNullable(arrow.PrimitiveTypes.Int32)),
		base(arrow.LargeListOf(arrow.PrimitiveTypes.Int32)),
		base(arrow.ListViewOf(arrow.PrimitiveTypes.Int32)),
		base(arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32)),
		base(arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int32)),
		base(arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)),
		base(func() arrow.DataType {
			m := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
			m.KeysSorted = true
			return m
		}()),
		base(arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32})),
		base(arrow.StructOf(arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int32})),
		base(arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true})),
		base(arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32}, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int32})),
		base(arrow.SparseUnionOf([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, []arrow.UnionTypeCode{0})),
		base(arrow.SparseUnionOf([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, []arrow.UnionTypeCode{5})),
		base(arrow.DenseUnionOf([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, []arrow.UnionTypeCode{0})),
		base(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}),
		base(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}),
		base(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.Binary}),
		base(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String, Ordered: true}),
		base(arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32)),
		base(arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32)),
		base(arrow.BinaryTypes.String),
		base(arrow.BinaryTypes.StringView),
		arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil),
		arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil),
		arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "b", Type: arrow.PrimitiveTypes.Int32}}, nil),
		arrow.NewSchema(nil, nil),
	}
	seen := map[uint64]int{}
	for i, s := range kinds {
		fp := fingerprint(s)
		if j, ok := seen[fp]; ok {
			t.Errorf("schemas %d and %d share fingerprint %#x:\n%s\n%s", j, i, fp, kinds[j], s)
		}
		seen[fp] = i
	}
	// Metadata, of the schema or of a field, is not part of it.
	md := arrow.NewMetadata([]string{"k"}, []string{"v"})
	a := arrow.NewSchema([]arrow.Field{{Name: "a", Type: list, Nullable: true}}, nil)
	b := arrow.NewSchema([]arrow.Field{{Name: "a", Type: list, Nullable: true, Metadata: md}}, &md)
	if fingerprint(a) != fingerprint(b) {
		t.Error("metadata changed the fingerprint")
	}
}

// countingHash counts the bytes hashed: the work fingerprinting does.
type countingHash struct {
	hash.Hash64
	n int
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += len(p)
	return c.Hash64.Write(p)
}

// TestFingerprintLinear counts the bytes hashed for ever deeper and wider
// schemas: each level adds the same, however deep it is.
func TestFingerprintLinear(t *testing.T) {
	nested := map[string]func(arrow.DataType) arrow.DataType{
		"list":   func(dt arrow.DataType) arrow.DataType { return arrow.ListOf(dt) },
		"struct": func(dt arrow.DataType) arrow.DataType { return arrow.StructOf(arrow.Field{Name: "next", Type: dt}) },
		"map":    func(dt arrow.DataType) arrow.DataType { return arrow.MapOf(arrow.PrimitiveTypes.Int8, dt) },
	}
	for name, wrap := range nested {
		work := func(depth int) int {
			var dt arrow.DataType = arrow.PrimitiveTypes.Int32
			for range depth {
				dt = wrap(dt)
			}
			h := &countingHash{Hash64: fnv.New64a()}
			hashSchema(h, arrow.NewSchema([]arrow.Field{{Name: "deep", Type: dt}}, nil))
			return h.n
		}
		perLevel := work(2) - work(1)
		for _, depth := range []int{8, 16, maxDepth} {
			if got, want := work(depth), work(1)+(depth-1)*perLevel; got != want {
				t.Errorf("%s nested %d deep: %d bytes hashed, want %d (%d per level)", name, depth, got, want, perLevel)
			}
		}
	}
}
