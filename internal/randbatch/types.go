package randbatch

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
)

// AllTypes returns one instance of every leaf and nested type the generator
// covers, for tests that iterate over types. Parameterised types appear with
// several parameters (decimal precisions and scales, negative ones included;
// every time unit; timestamps with and without a zone; every dictionary index
// type and run-end type).
func AllTypes() []arrow.DataType {
	i32, i64, utf8 := arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	types := []arrow.DataType{
		arrow.Null,
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, i32, i64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		&arrow.Decimal32Type{Precision: 9, Scale: 2}, &arrow.Decimal32Type{Precision: 4, Scale: -3},
		&arrow.Decimal64Type{Precision: 18, Scale: 6}, &arrow.Decimal64Type{Precision: 12, Scale: -2},
		&arrow.Decimal128Type{Precision: 15, Scale: 2}, &arrow.Decimal128Type{Precision: 38, Scale: 10},
		&arrow.Decimal128Type{Precision: 20, Scale: -4},
		&arrow.Decimal256Type{Precision: 76, Scale: 30}, &arrow.Decimal256Type{Precision: 40, Scale: -5},
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64,
		arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time32ms,
		arrow.FixedWidthTypes.Time64us, arrow.FixedWidthTypes.Time64ns,
	}
	for _, unit := range arrow.TimeUnitValues {
		types = append(types,
			&arrow.TimestampType{Unit: unit},
			&arrow.TimestampType{Unit: unit, TimeZone: timeZones[1+int(unit)]},
		)
	}
	for _, unit := range arrow.TimeUnitValues {
		types = append(types, &arrow.DurationType{Unit: unit})
	}
	types = append(types,
		arrow.FixedWidthTypes.MonthInterval, arrow.FixedWidthTypes.DayTimeInterval,
		arrow.FixedWidthTypes.MonthDayNanoInterval,
		&arrow.FixedSizeBinaryType{ByteWidth: 1}, &arrow.FixedSizeBinaryType{ByteWidth: 16},
		arrow.BinaryTypes.Binary, utf8, arrow.BinaryTypes.LargeBinary, arrow.BinaryTypes.LargeString,
		arrow.BinaryTypes.BinaryView, arrow.BinaryTypes.StringView,

		// Lists of every kind.
		arrow.ListOf(i32),
		arrow.ListOfNonNullable(utf8),
		arrow.ListOf(arrow.ListOf(i64)),
		arrow.LargeListOf(arrow.PrimitiveTypes.Float64),
		arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int16),
		arrow.FixedSizeListOfNonNullable(1, arrow.FixedWidthTypes.Boolean),
		arrow.ListViewOf(i32),
		arrow.LargeListViewOf(utf8),
		arrow.ListViewOf(arrow.StructOf(arrow.Field{Name: "a", Type: i64, Nullable: true})),

		// Structs, including an empty one.
		arrow.StructOf(
			arrow.Field{Name: "a", Type: i64, Nullable: true},
			arrow.Field{Name: "b", Type: utf8, Nullable: true},
			arrow.Field{Name: "c", Type: arrow.ListOf(arrow.FixedWidthTypes.Boolean)},
		),
		arrow.StructOf(),

		// Maps.
		arrow.MapOf(utf8, i32),
		sortedMap(i64, arrow.ListOf(utf8)),
		arrow.MapOf(arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.StringView),

		// Unions, with type codes that are not 0..n-1.
		arrow.SparseUnionOf([]arrow.Field{
			{Name: "i", Type: i32, Nullable: true},
			{Name: "s", Type: utf8, Nullable: true},
			{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}), Nullable: true},
		}, []arrow.UnionTypeCode{0, 5, 17}),
		arrow.DenseUnionOf([]arrow.Field{
			{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
			{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int8), Nullable: true},
		}, []arrow.UnionTypeCode{3, 1, 0}),

		// Dictionaries: every index type; string, integer and nested values.
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: utf8},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: i64, Ordered: true},
		&arrow.DictionaryType{IndexType: i32, ValueType: arrow.BinaryTypes.LargeString},
		&arrow.DictionaryType{IndexType: i64, ValueType: arrow.BinaryTypes.Binary},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.BinaryTypes.StringView},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint16, ValueType: arrow.PrimitiveTypes.Float64},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint32, ValueType: arrow.ListOf(i32)},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint64, ValueType: arrow.StructOf(
			arrow.Field{Name: "x", Type: i32},
			arrow.Field{Name: "y", Type: utf8, Nullable: true},
		)},

		// Run-end encoded: every run-end type.
		arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, utf8),
		arrow.RunEndEncodedOf(i32, i64),
		arrow.RunEndEncodedOf(i64, arrow.ListOf(i32)),

		// Extensions, over a leaf and over a nested storage type.
		NewUUIDType(),
		NewLabelsType(),

		// Encoded and extension types below other nested types.
		arrow.ListOf(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: utf8}),
		arrow.StructOf(
			arrow.Field{Name: "r", Type: arrow.RunEndEncodedOf(i32, utf8), Nullable: true},
			arrow.Field{Name: "u", Type: NewUUIDType(), Nullable: true},
		),
	)
	return types
}

// sortedMap returns map<key, item> with sorted keys.
func sortedMap(key, item arrow.DataType) *arrow.MapType {
	m := arrow.MapOf(key, item)
	m.KeysSorted = true
	return m
}

// timeZones are the zones of generated timestamps; "" is none.
var timeZones = []string{"", "UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "+05:45"}

// RandomType picks a random type, nesting up to depth levels (0 = a leaf
// type only). Every type in AllTypes can come out, with random parameters,
// except that run-end encoded types with int16 run ends (at most 32767 rows)
// are not put below lists and maps, whose children outgrow the row count.
func RandomType(r *rand.Rand, depth int) arrow.DataType {
	return randomType(r, depth, typeRules{})
}

// RandomSchema returns a schema of ncols fields named c0, c1, ... of random
// types nested up to depth, each nullable at random.
func RandomSchema(r *rand.Rand, ncols, depth int) *arrow.Schema {
	fields := make([]arrow.Field, ncols)
	for i := range fields {
		t := RandomType(r, depth)
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: t, Nullable: r.IntN(4) != 0 || t.ID() == arrow.NULL}
	}
	return arrow.NewSchema(fields, nil)
}

// typeRules restrict what randomType may pick.
type typeRules struct {
	// noEncodings rules out dictionary and run-end encoded types (inside
	// dictionary values and run-end encoded values).
	noEncodings bool
	// repeated marks types below a list or map, whose arrays hold many values
	// per row asked for: int16 run ends, which cap an array at 32767 rows,
	// are ruled out there.
	repeated bool
}

// randomType picks a random type nested up to depth within rules.
func randomType(r *rand.Rand, depth int, rules typeRules) arrow.DataType {
	if depth <= 0 || r.IntN(3) == 0 {
		return randomLeaf(r)
	}
	child := func(name string, rules typeRules) arrow.Field {
		t := randomType(r, depth-1, rules)
		// A field of type null holds nulls only, so it must be nullable.
		return arrow.Field{Name: name, Type: t, Nullable: r.IntN(5) != 0 || t.ID() == arrow.NULL}
	}
	inList := rules
	inList.repeated = true
	kinds := 12
	if rules.noEncodings {
		kinds = 10
	}
	switch r.IntN(kinds) {
	case 0:
		return arrow.ListOfField(child("item", inList))
	case 1:
		return arrow.LargeListOfField(child("item", inList))
	case 2:
		return arrow.FixedSizeListOfField(int32(1+r.IntN(4)), child("item", inList))
	case 3:
		return arrow.ListViewOfField(child("item", inList))
	case 4:
		return arrow.LargeListViewOfField(child("item", inList))
	case 5:
		fields := make([]arrow.Field, r.IntN(5))
		for i := range fields {
			fields[i] = child(fmt.Sprintf("f%d", i), rules)
		}
		return arrow.StructOf(fields...)
	case 6:
		key := mapKeyTypes[r.IntN(len(mapKeyTypes))]
		m := arrow.MapOfFields(arrow.Field{Type: key}, child("value", inList))
		m.KeysSorted = r.IntN(4) == 0
		return m
	case 7, 8:
		fields := make([]arrow.Field, 1+r.IntN(4))
		codes := make([]arrow.UnionTypeCode, len(fields))
		perm := r.Perm(int(arrow.MaxUnionTypeCode) + 1)
		scattered, dense := r.IntN(2) == 0, r.IntN(2) == 0
		for i := range fields {
			fields[i] = child(fmt.Sprintf("u%d", i), rules)
			fields[i].Nullable = true
			codes[i] = arrow.UnionTypeCode(i)
			if scattered {
				codes[i] = arrow.UnionTypeCode(perm[i])
			}
		}
		if dense {
			return arrow.DenseUnionOf(fields, codes)
		}
		return arrow.SparseUnionOf(fields, codes)
	case 9:
		if depth >= 2 && r.IntN(2) == 0 {
			return NewLabelsType()
		}
		return NewUUIDType()
	case 10:
		return &arrow.DictionaryType{
			IndexType: indexTypes[r.IntN(len(indexTypes))],
			ValueType: dictValueType(r, depth, rules),
			Ordered:   r.IntN(4) == 0,
		}
	default:
		runEnds := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int16}
		inner := rules
		inner.noEncodings = true
		values := randomType(r, depth-1, inner)
		for values.ID() == arrow.NULL {
			values = randomType(r, depth-1, inner)
		}
		if rules.repeated {
			runEnds = runEnds[:2]
		}
		return arrow.RunEndEncodedOf(runEnds[r.IntN(len(runEnds))], values)
	}
}

// indexTypes are the dictionary index types.
var indexTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
}

// mapKeyTypes are the types of generated map keys, all ones that newDistinct
// can make distinct values of.
var mapKeyTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.StringView, arrow.BinaryTypes.Binary,
	arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Timestamp_ms,
	&arrow.FixedSizeBinaryType{ByteWidth: 8}, &arrow.Decimal128Type{Precision: 18, Scale: 0},
}

// dictValueTypes are the leaf types of dictionary values.
var dictValueTypes = []arrow.DataType{
	arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.StringView,
	arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary, arrow.BinaryTypes.BinaryView,
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Date32,
	arrow.FixedWidthTypes.Timestamp_us, &arrow.Decimal128Type{Precision: 10, Scale: 2},
	&arrow.FixedSizeBinaryType{ByteWidth: 4},
}

// dictValueType picks the value type of a dictionary: mostly a string or a
// number, sometimes (when depth allows) a nested type.
func dictValueType(r *rand.Rand, depth int, rules typeRules) arrow.DataType {
	if depth >= 2 && r.IntN(4) == 0 {
		rules.noEncodings = true
		if t := randomType(r, depth-1, rules); isNested(t) {
			return t
		}
	}
	return dictValueTypes[r.IntN(len(dictValueTypes))]
}

// randomLeaf picks a random leaf type with random parameters.
func randomLeaf(r *rand.Rand) arrow.DataType {
	unit := arrow.TimeUnitValues[r.IntN(len(arrow.TimeUnitValues))]
	switch r.IntN(19) {
	case 0:
		return arrow.Null
	case 1:
		return arrow.FixedWidthTypes.Boolean
	case 2, 3:
		ints := []arrow.DataType{
			arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
			arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		}
		return ints[r.IntN(len(ints))]
	case 4:
		floats := []arrow.DataType{arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64}
		return floats[r.IntN(len(floats))]
	case 5:
		return randomDecimal(r)
	case 6:
		return []arrow.DataType{arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64}[r.IntN(2)]
	case 7:
		if unit <= arrow.Millisecond {
			return &arrow.Time32Type{Unit: unit}
		}
		return &arrow.Time64Type{Unit: unit}
	case 8:
		return &arrow.TimestampType{Unit: unit, TimeZone: timeZones[r.IntN(len(timeZones))]}
	case 9:
		return &arrow.DurationType{Unit: unit}
	case 10:
		intervals := []arrow.DataType{
			arrow.FixedWidthTypes.MonthInterval, arrow.FixedWidthTypes.DayTimeInterval, arrow.FixedWidthTypes.MonthDayNanoInterval,
		}
		return intervals[r.IntN(len(intervals))]
	case 11:
		return &arrow.FixedSizeBinaryType{ByteWidth: 1 + r.IntN(32)}
	case 12:
		return arrow.BinaryTypes.Binary
	case 13:
		return arrow.BinaryTypes.LargeBinary
	case 14:
		return arrow.BinaryTypes.BinaryView
	case 15:
		return arrow.BinaryTypes.LargeString
	case 16:
		return arrow.BinaryTypes.StringView
	default:
		return arrow.BinaryTypes.String
	}
}

// randomDecimal returns a decimal type of random width, precision and scale;
// a fifth of the scales are negative.
func randomDecimal(r *rand.Rand) arrow.DataType {
	ids := []arrow.Type{arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256}
	maxPrec := []int{9, 18, 38, 76}
	k := r.IntN(len(ids))
	prec := int32(1 + r.IntN(maxPrec[k]))
	scale := int32(r.IntN(int(prec) + 1))
	if r.IntN(5) == 0 {
		scale = -int32(1 + r.IntN(5))
	}
	dt, err := arrow.NewDecimalType(ids[k], prec, scale)
	if err != nil {
		panic(err)
	}
	return dt
}
