package codec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// The schemas the structure-aware builders draw: every type the codec
// decodes, nested up to a few levels.

// leafTypes are the leaf types a drawn schema picks from: every leaf of
// randbatch.AllTypes (all widths, units, zones, decimals, the UUID
// extension) and a few more fixed-size binary widths.
var leafTypes = func() []arrow.DataType {
	var out []arrow.DataType
	for _, dt := range randbatch.AllTypes() {
		if _, nested := dt.(arrow.NestedType); nested {
			continue
		}
		switch dt.ID() {
		case arrow.DICTIONARY, arrow.RUN_END_ENCODED:
			continue
		case arrow.EXTENSION:
			if _, nested := dt.(arrow.ExtensionType).StorageType().(arrow.NestedType); nested {
				continue
			}
		}
		out = append(out, dt)
	}
	return append(out, &arrow.FixedSizeBinaryType{ByteWidth: 3}, &arrow.FixedSizeBinaryType{ByteWidth: 8})
}()

var (
	dictIndexTypes = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	}
	runEndTypes = []arrow.DataType{arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}
)

// drawSchema draws a schema of 0..3 columns (mostly 1..3).
func drawSchema(c *choices) *arrow.Schema {
	fields := make([]arrow.Field, (1+c.intn(4))%4)
	for i := range fields {
		t := drawType(c, 3, false)
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: t, Nullable: c.intn(4) != 0 || t.ID() == arrow.NULL}
	}
	return arrow.NewSchema(fields, nil)
}

// drawType draws a type nested up to depth levels; noEnc rules out
// dictionaries and run-end encoding (inside dictionary values and run-end
// values, where arrow-go does not support them) and extension types (whose
// test arrays lack the ValueStr that dictionary and run-end arrays call).
func drawType(c *choices, depth int, noEnc bool) arrow.DataType {
	k := c.intn(24)
	if depth <= 0 || k < 10 || (k == 20 && noEnc) {
		t := leafTypes[c.intn(len(leafTypes))]
		if noEnc && t.ID() == arrow.EXTENSION {
			t = arrow.BinaryTypes.String
		}
		return t
	}
	field := func(name string, noEnc bool) arrow.Field {
		t := drawType(c, depth-1, noEnc)
		return arrow.Field{Name: name, Type: t, Nullable: c.intn(4) != 0 || t.ID() == arrow.NULL}
	}
	switch k {
	case 10:
		return arrow.ListOfField(field("item", noEnc))
	case 11:
		return arrow.LargeListOfField(field("item", noEnc))
	case 12:
		// Not size 0: arrow-go's FixedSizeListOfField refuses it.
		return arrow.FixedSizeListOfField(int32(1+c.intn(3)), field("item", noEnc))
	case 13:
		return arrow.ListViewOfField(field("item", noEnc))
	case 14:
		return arrow.LargeListViewOfField(field("item", noEnc))
	case 15, 16:
		fields := make([]arrow.Field, c.intn(4))
		for i := range fields {
			fields[i] = field(fmt.Sprintf("f%d", i), noEnc)
		}
		return arrow.StructOf(fields...)
	case 17:
		key := leafTypes[c.intn(len(leafTypes))]
		for key.ID() == arrow.NULL {
			key = arrow.PrimitiveTypes.Int32
		}
		m := arrow.MapOfFields(arrow.Field{Name: "key", Type: key}, field("value", noEnc))
		m.KeysSorted = c.oneIn(4)
		return m
	case 18, 19:
		fields := make([]arrow.Field, 1+c.intn(3))
		codes := make([]arrow.UnionTypeCode, len(fields))
		used := map[arrow.UnionTypeCode]bool{}
		for i := range fields {
			fields[i] = field(fmt.Sprintf("u%d", i), noEnc)
			fields[i].Nullable = true
			code := arrow.UnionTypeCode(i)
			if c.oneIn(2) {
				code = arrow.UnionTypeCode(c.intn(128))
			}
			for used[code] {
				code = (code + 1) & 127
			}
			used[code] = true
			codes[i] = code
		}
		if k == 18 {
			return arrow.SparseUnionOf(fields, codes)
		}
		return arrow.DenseUnionOf(fields, codes)
	case 20:
		return randbatch.NewLabelsType()
	case 21, 22:
		if noEnc {
			return drawType(c, depth-1, true)
		}
		return &arrow.DictionaryType{
			IndexType: dictIndexTypes[c.intn(len(dictIndexTypes))],
			ValueType: drawType(c, depth-1, true),
			Ordered:   c.oneIn(4),
		}
	default:
		if noEnc {
			return drawType(c, depth-1, true)
		}
		values := drawType(c, depth-1, true)
		if values.ID() == arrow.NULL {
			values = arrow.BinaryTypes.String
		}
		return arrow.RunEndEncodedOf(runEndTypes[c.intn(len(runEndTypes))], values)
	}
}

// childFields returns the fields of the child nodes of a node of type dt, in
// the order of plan.children: element, struct or union fields; a
// dictionary's values; a run-end encoded array's run ends and values.
func childFields(dt arrow.DataType) []arrow.Field {
	for dt.ID() == arrow.EXTENSION {
		dt = dt.(arrow.ExtensionType).StorageType()
	}
	switch t := dt.(type) {
	case arrow.ListLikeType:
		return []arrow.Field{t.ElemField()}
	case *arrow.StructType:
		return t.Fields()
	case arrow.UnionType:
		return t.Fields()
	case *arrow.DictionaryType:
		return []arrow.Field{{Name: "dictionary", Type: t.ValueType, Nullable: true}}
	case *arrow.RunEndEncodedType:
		return []arrow.Field{{Name: "run_ends", Type: t.RunEnds()}, {Name: "values", Type: t.Encoded(), Nullable: true}}
	}
	return nil
}
