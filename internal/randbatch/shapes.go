package randbatch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Shape is a named, deterministic benchmark batch.
type Shape struct {
	// Name identifies the shape in benchmark output, e.g. "lineitem-8192".
	Name string
	// Build returns a new batch of the shape; the caller releases it.
	Build func(mem memory.Allocator) arrow.RecordBatch
}

// BenchShapes returns the benchmark shapes, in this order: lineitem-8192,
// lineitem-8192-sliced3 (8195 rows sliced at offset 3 to 8192), lineitem-64,
// utf8x3-8192, wide100x1024, nested-8192 and dict-8192.
func BenchShapes() []Shape {
	return []Shape{
		{"lineitem-8192", func(mem memory.Allocator) arrow.RecordBatch { return Lineitem(mem, 8192) }},
		{"lineitem-8192-sliced3", func(mem memory.Allocator) arrow.RecordBatch {
			rec := Lineitem(mem, 8195)
			defer rec.Release()
			return rec.NewSlice(3, 8195)
		}},
		{"lineitem-64", func(mem memory.Allocator) arrow.RecordBatch { return Lineitem(mem, 64) }},
		{"utf8x3-8192", func(mem memory.Allocator) arrow.RecordBatch { return Utf8Columns(mem, 8192) }},
		{"wide100x1024", func(mem memory.Allocator) arrow.RecordBatch { return WideNumeric(mem, 1024, 100) }},
		{"nested-8192", func(mem memory.Allocator) arrow.RecordBatch { return Nested(mem, 8192) }},
		{"dict-8192", func(mem memory.Allocator) arrow.RecordBatch { return Dictionary(mem, 8192) }},
	}
}

// shapeRand returns the fixed-seed source of one shape.
func shapeRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// Utf8Columns returns a batch of three nullable utf8 columns (free text, email
// addresses and product codes) of 5 to 40 bytes each, about 10% null.
func Utf8Columns(mem memory.Allocator, rows int) arrow.RecordBatch {
	r := shapeRand(1)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "email", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "sku", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	colors := []string{"black", "white", "red", "navy", "olive", "graphite", "sand"}
	gen := []func() string{
		func() string { return clip(sentence(r, tpchWords, 5, 40), 5, 40) },
		func() string {
			return clip(fmt.Sprintf("%s.%s%d@%s", tpchWords[r.IntN(len(tpchWords))],
				tpchWords[r.IntN(len(tpchWords))], r.IntN(1000), []string{"example.com", "mail.test", "corp.example"}[r.IntN(3)]), 5, 40)
		},
		func() string {
			return fmt.Sprintf("SKU-%05d-%s-%c", r.IntN(100_000), colors[r.IntN(len(colors))], 'A'+rune(r.IntN(26)))
		},
	}
	for range rows {
		for c, next := range gen {
			sb := b.Field(c).(*array.StringBuilder)
			if r.IntN(10) == 0 {
				sb.AppendNull()
				continue
			}
			sb.Append(next())
		}
	}
	return b.NewRecordBatch()
}

// clip cuts s, which is ASCII, to at most maxLen bytes and pads it to minLen.
func clip(s string, minLen, maxLen int) string {
	if len(s) > maxLen {
		s = s[:maxLen]
	}
	for len(s) < minLen {
		s += "x"
	}
	return s
}

// sentence returns words of vocab joined by spaces, minLen to maxLen bytes.
func sentence(r *rand.Rand, vocab []string, minLen, maxLen int) string {
	n := minLen + r.IntN(maxLen-minLen+1)
	var sb strings.Builder
	for sb.Len() < n {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(vocab[r.IntN(len(vocab))])
	}
	return strings.TrimRight(sb.String()[:n], " ")
}

// tpchWords are ASCII words in the style of TPC-H comments.
var tpchWords = []string{
	"carefully", "final", "deposits", "sleep", "furiously", "ironic", "packages", "haggle", "blithely",
	"regular", "accounts", "express", "requests", "pending", "quickly", "slyly", "bold", "even",
	"special", "unusual", "foxes", "theodolites", "pinto", "beans", "instructions", "dependencies",
	"excuses", "platelets", "asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs",
	"frets", "dinos", "attainments", "somas", "patterns", "forges", "braids", "frays", "ideas",
}

// lineitemSchema is the schema of TPC-H's lineitem table, all columns not null.
var lineitemSchema = func() *arrow.Schema {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	f := func(name string, dt arrow.DataType) arrow.Field { return arrow.Field{Name: name, Type: dt} }
	return arrow.NewSchema([]arrow.Field{
		f("l_orderkey", arrow.PrimitiveTypes.Int64),
		f("l_partkey", arrow.PrimitiveTypes.Int64),
		f("l_suppkey", arrow.PrimitiveTypes.Int64),
		f("l_linenumber", arrow.PrimitiveTypes.Int32),
		f("l_quantity", dec),
		f("l_extendedprice", dec),
		f("l_discount", dec),
		f("l_tax", dec),
		f("l_returnflag", arrow.BinaryTypes.String),
		f("l_linestatus", arrow.BinaryTypes.String),
		f("l_shipdate", arrow.FixedWidthTypes.Date32),
		f("l_commitdate", arrow.FixedWidthTypes.Date32),
		f("l_receiptdate", arrow.FixedWidthTypes.Date32),
		f("l_shipinstruct", arrow.BinaryTypes.String),
		f("l_shipmode", arrow.BinaryTypes.String),
		f("l_comment", arrow.BinaryTypes.String),
	}, nil)
}()

// Lineitem returns a batch shaped like TPC-H's lineitem table (16 columns) with
// values in the ranges dbgen produces at scale factor 1: orders of 1 to 7
// lines with ascending keys, prices derived from the part key, discounts 0 to
// 0.10, taxes 0 to 0.08, dates from 1992 to 1998 and flags that follow them.
func Lineitem(mem memory.Allocator, rows int) arrow.RecordBatch {
	r := shapeRand(2)
	b := array.NewRecordBuilder(mem, lineitemSchema)
	defer b.Release()
	i64 := func(i int) *array.Int64Builder { return b.Field(i).(*array.Int64Builder) }
	dec := func(i int) *array.Decimal128Builder { return b.Field(i).(*array.Decimal128Builder) }
	str := func(i int) *array.StringBuilder { return b.Field(i).(*array.StringBuilder) }
	date := func(i int) *array.Date32Builder { return b.Field(i).(*array.Date32Builder) }

	start := arrow.Date32FromTime(time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC))
	current := arrow.Date32FromTime(time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC))
	instructs := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}

	orderkey, line, lines := int64(1), 0, 1+r.IntN(7)
	orderdate := start + arrow.Date32(r.IntN(2406))
	for range rows {
		if line == lines {
			orderkey += 1 + r.Int64N(4)
			line, lines = 0, 1+r.IntN(7)
			orderdate = start + arrow.Date32(r.IntN(2406))
		}
		line++
		partkey := 1 + r.Int64N(200_000)
		retail := 90_000 + (partkey/10)%20_001 + 100*(partkey%1000) // cents
		qty := 1 + r.Int64N(50)
		ship := orderdate + arrow.Date32(1+r.IntN(121))
		commit := orderdate + arrow.Date32(30+r.IntN(61))
		receipt := ship + arrow.Date32(1+r.IntN(30))
		returnflag := "N"
		if receipt <= current {
			returnflag = []string{"R", "A"}[r.IntN(2)]
		}
		linestatus := "F"
		if ship > current {
			linestatus = "O"
		}

		i64(0).Append(orderkey)
		i64(1).Append(partkey)
		i64(2).Append(1 + r.Int64N(10_000))
		b.Field(3).(*array.Int32Builder).Append(int32(line))
		dec(4).Append(decimal128.FromI64(qty * 100))
		dec(5).Append(decimal128.FromI64(qty * retail))
		dec(6).Append(decimal128.FromI64(r.Int64N(11)))
		dec(7).Append(decimal128.FromI64(r.Int64N(9)))
		str(8).Append(returnflag)
		str(9).Append(linestatus)
		date(10).Append(ship)
		date(11).Append(commit)
		date(12).Append(receipt)
		str(13).Append(instructs[r.IntN(len(instructs))])
		str(14).Append(modes[r.IntN(len(modes))])
		str(15).Append(sentence(r, tpchWords, 10, 43))
	}
	return b.NewRecordBatch()
}

// WideNumeric returns a batch of cols columns alternating int64 (i0, i2, ...)
// and float64 (f1, f3, ...); every third column is nullable, about 5% null.
func WideNumeric(mem memory.Allocator, rows, cols int) arrow.RecordBatch {
	r := shapeRand(3)
	fields := make([]arrow.Field, cols)
	for c := range fields {
		fields[c] = arrow.Field{Name: fmt.Sprintf("i%d", c), Type: arrow.PrimitiveTypes.Int64, Nullable: c%3 == 2}
		if c%2 == 1 {
			fields[c].Name, fields[c].Type = fmt.Sprintf("f%d", c), arrow.PrimitiveTypes.Float64
		}
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for c, f := range fields {
		// Each column has its own scale: counters, amounts, measurements.
		scale := math.Pow(10, float64(1+r.IntN(6)))
		fb := b.Field(c)
		for range rows {
			if f.Nullable && r.IntN(20) == 0 {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Int64Builder:
				fb.Append(r.Int64N(int64(scale)))
			case *array.Float64Builder:
				fb.Append(math.Round(r.Float64()*scale*100) / 100)
			}
		}
	}
	return b.NewRecordBatch()
}

// Nested returns a batch of two nullable columns: ints list<int32> and items
// list<struct<a int64, b utf8>>, lists of 0 to 8 elements, about 5% null.
func Nested(mem memory.Allocator, rows int) arrow.RecordBatch {
	r := shapeRand(4)
	item := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
	)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ints", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "items", Type: arrow.ListOf(item), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	ints := b.Field(0).(*array.ListBuilder)
	intVals := ints.ValueBuilder().(*array.Int32Builder)
	items := b.Field(1).(*array.ListBuilder)
	itemVals := items.ValueBuilder().(*array.StructBuilder)
	as := itemVals.FieldBuilder(0).(*array.Int64Builder)
	bs := itemVals.FieldBuilder(1).(*array.StringBuilder)
	for range rows {
		if r.IntN(20) == 0 {
			ints.AppendNull()
		} else {
			ints.Append(true)
			for range r.IntN(9) {
				intVals.Append(int32(r.IntN(10_000)))
			}
		}
		if r.IntN(20) == 0 {
			items.AppendNull()
			continue
		}
		items.Append(true)
		for range r.IntN(9) {
			itemVals.Append(true)
			as.Append(r.Int64N(1_000_000))
			if r.IntN(10) == 0 {
				bs.AppendNull()
			} else {
				bs.Append(sentence(r, tpchWords, 3, 20))
			}
		}
	}
	return b.NewRecordBatch()
}

// Dictionary returns a batch of one nullable dictionary<int32, utf8> column
// holding 100 distinct category names, drawn with a skew (Zipf), about 2% null.
func Dictionary(mem memory.Allocator, rows int) arrow.RecordBatch {
	r := shapeRand(5)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "category", Type: dt, Nullable: true}}, nil)

	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("%s %s #%d", tpchWords[r.IntN(len(tpchWords))], tpchWords[r.IntN(len(tpchWords))], i)
	}
	vb := array.NewStringBuilder(mem)
	defer vb.Release()
	vb.AppendValues(names, nil)
	values := vb.NewArray()
	defer values.Release()

	b := array.NewDictionaryBuilderWithDict(mem, dt, values).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	zipf := rand.NewZipf(r, 1.2, 1, uint64(len(names)-1))
	for range rows {
		if r.IntN(50) == 0 {
			b.AppendNull()
			continue
		}
		if err := b.AppendString(names[zipf.Uint64()]); err != nil {
			panic(err)
		}
	}
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(rows))
}
