package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// TestParquetRowGroups: a Parquet output gathers batches into row groups
// of -row-group-rows rows, by default pqarrow's (one here), instead of a
// row group a batch (issue 19 item 11).
func TestParquetRowGroups(t *testing.T) {
	dir := t.TempDir()
	src, _ := testStream(t, dir) // batches of 300, 1 and 399 rows
	for _, tc := range []struct {
		args []string
		want []int64
	}{
		{nil, []int64{700}},
		{[]string{"-row-group-rows", "250"}, []int64{250, 250, 200}},
		{[]string{"-row-group-rows", "1000"}, []int64{700}},
	} {
		out := filepath.Join(dir, "rg.parquet")
		code, _, stderr := runCmd(t, append(append([]string{"convert", "-f", "-verify"}, tc.args...), src, out)...)
		if code != 0 {
			t.Fatalf("%v: %s", tc.args, stderr)
		}
		in, err := openInput(out, nil, defaultBatchRows)
		if err != nil {
			t.Fatal(err)
		}
		md := in.pq.MetaData()
		var got []int64
		for g := range md.NumRowGroups() {
			got = append(got, md.RowGroup(g).NumRows())
		}
		in.Close()
		if itoaAll(got) != itoaAll(tc.want) {
			t.Errorf("%v: row groups of %v rows, want %v", tc.args, got, tc.want)
		}
	}
	code, _, stderr := runCmd(t, "convert", "-row-group-rows", "10", src, filepath.Join(dir, "x.apk"))
	checkFailure(t, code, stderr, 2, "-row-group-rows is for a Parquet output")
	code, _, stderr = runCmd(t, "convert", "-row-group-rows", "0", src, filepath.Join(dir, "x.parquet"))
	checkFailure(t, code, stderr, 2, "-row-group-rows must be above 0")
	code, _, stderr = runCmd(t, "convert", "-level", "3", src, filepath.Join(dir, "x.apk"))
	checkFailure(t, code, stderr, 2, "-level 3 needs a compression")
}

func itoaAll(v []int64) string {
	var s []string
	for _, n := range v {
		s = append(s, itoa(n))
	}
	return "[" + strings.Join(s, ",") + "]"
}

// TestParquetTypeChanges: convert names each type Parquet will give back
// as another before it writes; -verify then finds the output unequal and
// removes it, leaving the target as it was (issue 19 item 7).
func TestParquetTypeChanges(t *testing.T) {
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.FixedWidthTypes.Date64},
		{Name: "t", Type: arrow.FixedWidthTypes.Time32s},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	b.Field(0).(*array.Date64Builder).Append(86400000)
	b.Field(1).(*array.Time32Builder).Append(3600)
	b.Field(2).(*array.TimestampBuilder).Append(1700000000)
	b.Field(3).(*array.Int64Builder).Append(1)
	lb := b.Field(4).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{7, 8}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	src := filepath.Join(dir, "types.arrows")
	writeIPC(t, src, []arrow.RecordBatch{rec}, false)

	out := filepath.Join(dir, "types.parquet")
	code, _, stderr := runCmd(t, "convert", src, out)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, w := range []string{
		"warning: Parquet cannot hold field d as date64: it will read back as date32",
		"warning: Parquet cannot hold field t as time32[s]: it will read back as time32[ms]",
		"warning: Parquet cannot hold field ts as timestamp[s",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not warn %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "field n") {
		t.Errorf("a warning for a type Parquet keeps:\n%s", stderr)
	}

	// -verify compares the values after the announced changes: the
	// output is equal, and takes the target's place (issue 31 item 8).
	old := []byte("the old target\n")
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "convert", "-f", "-verify", src, out)
	if code != 0 || !strings.Contains(stdout, "verified") {
		t.Fatalf("-verify of an output with the announced type changes: status %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	f, back := readAll(t, out)
	defer batches.Release(back)
	if f != formatParquet || len(back) != 1 || back[0].Column(0).(*array.Date32).Value(0) != 1 ||
		back[0].Column(4).(*array.List).ListValues().(*array.Int64).Value(1) != 8 {
		t.Errorf("the verified output: %v", back)
	}
}

// TestParquetRefusedColumnNamed: a column pqarrow refuses only when it
// meets its values (a dictionary of structs) is named, with its type,
// before anything is written, and no output is left (issue 31 item 8).
func TestParquetRefusedColumnNamed(t *testing.T) {
	dir := t.TempDir()
	var dt arrow.DataType
	for _, d := range randbatch.AllTypes() {
		if strings.HasPrefix(d.String(), "dictionary<values=struct") {
			dt = d
		}
	}
	if dt == nil {
		t.Fatal("the generator has no dictionary of structs")
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "ok", Type: arrow.PrimitiveTypes.Int64}, {Name: "dict", Type: dt, Nullable: true}}, nil)
	rec := randbatch.Batch(memory.NewGoAllocator(), randRand(3), schema, 20, randbatch.Options{})
	defer rec.Release()
	src := filepath.Join(dir, "d.arrows")
	writeIPC(t, src, []arrow.RecordBatch{rec}, false)
	out := filepath.Join(dir, "d.parquet")
	code, _, stderr := runCmd(t, "convert", src, out)
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	if code != 1 || !strings.Contains(last, "Parquet output cannot hold column dict (dictionary<values=struct") {
		t.Errorf("status %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused conversion left %s", out)
	}
}

// TestParquetRefusedLaterBatch: a later batch whose column pqarrow refuses
// (here a dictionary holding a null, the first batch's not) is named, with
// the column and its type, before any of its rows are written: pqarrow,
// refusing a batch part way, closes the file with part of the batch in it,
// which reached standard output. A file output leaves nothing behind, and
// an existing target is left as it was (issue 31 item 8).
func TestParquetRefusedLaterBatch(t *testing.T) {
	dir := t.TempDir()
	recs := refusedLater(laterRows)
	defer batches.Release(recs)
	src := filepath.Join(dir, "in.arrows")
	writeIPC(t, src, recs, false)
	const want = "writing batch 1 to %s: Parquet output cannot hold column d (dictionary<values=utf8, indices=int32, ordered=false>): not implemented: writing DictionaryArray with null encoded in dictionary"

	out := filepath.Join(dir, "out.parquet")
	code, _, stderr := runCmd(t, "convert", src, out)
	checkFailure(t, code, stderr, 1, fmt.Sprintf(want, out))
	old := filepath.Join(dir, "old.parquet")
	writeFile(t, old, []byte("the old target\n"))
	code, _, stderr = runCmd(t, "convert", "-f", src, old)
	checkFailure(t, code, stderr, 1, fmt.Sprintf(want, old))
	if b, err := os.ReadFile(old); err != nil || string(b) != "the old target\n" {
		t.Errorf("the target of a refused conversion holds %q (%v)", b, err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 2 {
		t.Errorf("refused conversions left %v (%v), want in.arrows and old.parquet", ents, err)
	}

	// Standard output, which cannot be taken back, gets none of the
	// refused batch's rows (column n alone takes 8 bytes a row).
	code, stdout, stderr := runCmd(t, "convert", "-to", "parquet", "-row-group-rows", "100000", src, "-")
	checkFailure(t, code, stderr, 1, fmt.Sprintf(want, "-"))
	if len(stdout) >= 8*laterRows {
		t.Errorf("a refused batch reached stdout: %d bytes", len(stdout))
	}
}

// laterRows is the rows of refusedLater's second batch.
const laterRows = 200_000

// refusedLater returns two batches of a column n of int64 and a column d of
// dictionaries of strings: the first of 10 rows, the second of rows rows
// with a null in its dictionary, which pqarrow refuses.
func refusedLater(rows int) []arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	sc := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}, {Name: "d", Type: dt, Nullable: true}}, nil)
	batch := func(rows int, nullInDictionary bool) arrow.RecordBatch {
		vb := array.NewStringBuilder(mem)
		defer vb.Release()
		vb.Append("a")
		if nullInDictionary {
			vb.AppendNull()
		} else {
			vb.Append("b")
		}
		ib, nb := array.NewInt32Builder(mem), array.NewInt64Builder(mem)
		defer ib.Release()
		defer nb.Release()
		for i := range rows {
			ib.Append(int32(i % 2))
			nb.Append(int64(i))
		}
		values, indices, n := vb.NewArray(), ib.NewArray(), nb.NewArray()
		defer values.Release()
		defer indices.Release()
		defer n.Release()
		d := array.NewDictionaryArray(dt, indices, values)
		defer d.Release()
		return array.NewRecordBatch(sc, []arrow.Array{n, d}, int64(rows))
	}
	return []arrow.RecordBatch{batch(10, false), batch(rows, true)}
}

// TestParquetRefusedBatchNotWritten: the Parquet writer tries a batch's
// refusable columns before writing any of its rows, so that a refused
// batch leaves the writer as it was, holding the batches before it, which
// close into a whole file; pqarrow, refusing a batch part way, closes
// the file with part of the batch in it (issue 31 item 8).
func TestParquetRefusedBatchNotWritten(t *testing.T) {
	recs := refusedLater(1000)
	defer batches.Release(recs)
	var buf bytes.Buffer
	w, err := newBatchWriter(&buf, formatParquet, recs[0].Schema(), writeOptions{rowGroupRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[1]); err == nil || !strings.Contains(err.Error(), "column d") {
		t.Fatalf("the refused batch: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("closing after a refused batch: %v", err)
	}
	path := filepath.Join(t.TempDir(), "first.parquet")
	writeFile(t, path, buf.Bytes())
	_, back := readAll(t, path)
	defer batches.Release(back)
	if len(back) != 1 || !sameBatch(back[0], recs[0]) {
		t.Errorf("the file closed after a refused batch holds %v, want the first batch", back)
	}
}

// TestParquetInt96NoZone: legacy INT96 timestamps, which have no time
// zone but pqarrow reads as timestamp[ns, tz=UTC], read as timestamp[ns]
// without a zone, at the top level and nested, so that every output holds
// them without one and a Parquet output's INT64 is not adjusted to UTC,
// with the values of the input and no note; a zone the file's stored Arrow
// schema gives is kept (issue 31 item 8).
func TestParquetInt96NoZone(t *testing.T) {
	dir := t.TempDir()
	ns := &arrow.TimestampType{Unit: arrow.Nanosecond}
	utc := &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: ns, Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "t", Type: ns, Nullable: true}, arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int32}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(ns), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.PrimitiveTypes.Int32, ns), Nullable: true},
		{Name: "z", Type: utc, Nullable: true},
	}, nil)
	rec, _, err := array.RecordFromJSON(memory.NewGoAllocator(), sc, strings.NewReader(`[
		{"ts": 1700000000123456789, "s": {"t": 86400000000001, "n": 1}, "l": [1, 2000000000000000000], "m": [{"key": 1, "value": 3}], "z": 7},
		{"ts": null, "s": null, "l": null, "m": null, "z": null},
		{"ts": 5, "s": {"t": null, "n": 2}, "l": [null], "m": [{"key": 2, "value": null}], "z": 1600000000000000000}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	int96 := pqarrow.WithDeprecatedInt96Timestamps(true)
	for _, tc := range []struct {
		name  string
		props pqarrow.ArrowWriterProperties
		zoned []string // the fields that keep the zone UTC
	}{
		// As Spark and Impala write it: no stored Arrow schema.
		{"spark", pqarrow.NewArrowWriterProperties(int96), nil},
		// The stored Arrow schema gives z its zone back.
		{"stored", pqarrow.NewArrowWriterProperties(int96, pqarrow.WithStoreSchema()), []string{"z"}},
	} {
		src := filepath.Join(dir, tc.name+".parquet")
		writeFile(t, src, parquetBytes(t, rec, parquet.NewWriterProperties(), tc.props))
		for _, name := range []string{"a.parquet", "a.apk", "a.arrows"} {
			out := filepath.Join(dir, tc.name+"-"+name)
			code, _, stderr := runCmd(t, "convert", "-verify", src, out)
			if code != 0 || strings.Contains(stderr, "INT96") || strings.Contains(stderr, "warning") {
				t.Errorf("%s -> %s: status %d, stderr %q", tc.name, name, code, stderr)
				continue
			}
			_, back := readAll(t, out)
			if len(back) != 1 {
				t.Fatalf("%s -> %s: %d batches", tc.name, name, len(back))
			}
			for i, f := range back[0].Schema().Fields() {
				want := sc.Field(i).Type
				if !slices.Contains(tc.zoned, f.Name) {
					want = zoneFree(want)
				}
				if !arrow.TypeEqual(f.Type, want) {
					t.Errorf("%s -> %s: field %s is %s, want %s", tc.name, name, f.Name, f.Type, want)
				}
				if got, want := jsonColumn(t, back[0].Column(i)), jsonColumn(t, rec.Column(i)); got != want {
					t.Errorf("%s -> %s: field %s holds %s, want %s", tc.name, name, f.Name, got, want)
				}
			}
			batches.Release(back)
			if name != "a.parquet" {
				continue
			}
			// What other readers see: INT64 timestamps, adjusted to UTC
			// only where the zone is kept.
			pf, err := file.OpenParquetFile(out, false)
			if err != nil {
				t.Fatal(err)
			}
			for i := range pf.MetaData().Schema.NumColumns() {
				c := pf.MetaData().Schema.Column(i)
				lt, ok := c.LogicalType().(*schema.TimestampLogicalType)
				if !ok {
					continue
				}
				top := c.ColumnPath()[0]
				if c.PhysicalType() != parquet.Types.Int64 || lt.IsAdjustedToUTC() != slices.Contains(tc.zoned, top) {
					t.Errorf("%s -> %s: column %s is %s %s", tc.name, name, c.ColumnPath(), c.PhysicalType(), lt)
				}
			}
			pf.Close()
		}
	}
}

// TestZonelessLeavesWhatItCannotRebuild: an INT96 timestamp inside a type
// zoneless does not rebuild (an extension's storage) keeps the zone UTC and
// is reported left, for convert to name its field; beside it, a rebuilt
// one is not (issue 31 item 8).
func TestZonelessLeavesWhatItCannotRebuild(t *testing.T) {
	utc := &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	leaf := func(col int) pqarrow.SchemaField {
		return pqarrow.SchemaField{Field: &arrow.Field{Name: "t", Type: utc, Nullable: true}, ColIndex: col}
	}
	ext := randbatch.NewLabelsType() // any extension type stands for one
	inExt := pqarrow.SchemaField{Field: &arrow.Field{Name: "e", Type: ext}, ColIndex: -1, Children: []pqarrow.SchemaField{leaf(0)}}
	if typ, changed, left := zoneless(&inExt, map[int]bool{0: true}, nil); changed || !left || typ != ext {
		t.Errorf("inside an extension: %s, changed %v, left %v", typ, changed, left)
	}
	st := pqarrow.SchemaField{Field: &arrow.Field{Name: "s", Type: arrow.StructOf(*leaf(1).Field)}, ColIndex: -1, Children: []pqarrow.SchemaField{leaf(1)}}
	want := arrow.StructOf(arrow.Field{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true})
	if typ, changed, left := zoneless(&st, map[int]bool{1: true}, nil); !changed || left || !arrow.TypeEqual(typ, want) {
		t.Errorf("inside a struct: %s, changed %v, left %v", typ, changed, left)
	}
	if typ, changed, left := zoneless(&st, map[int]bool{1: true}, arrow.StructOf(*leaf(1).Field)); changed || left || typ != st.Field.Type {
		t.Errorf("with the zone in the stored schema: %s, changed %v, left %v", typ, changed, left)
	}
}

// zoneFree returns dt with every timestamp in it without a time zone.
func zoneFree(dt arrow.DataType) arrow.DataType {
	switch dt := dt.(type) {
	case *arrow.TimestampType:
		return &arrow.TimestampType{Unit: dt.Unit}
	case *arrow.StructType:
		fields := slices.Clone(dt.Fields())
		for i := range fields {
			fields[i].Type = zoneFree(fields[i].Type)
		}
		return arrow.StructOf(fields...)
	case *arrow.MapType:
		return arrow.MapOfFields(dt.KeyField(), arrow.Field{Type: zoneFree(dt.ItemType()), Nullable: dt.ItemField().Nullable})
	case *arrow.ListType:
		f := dt.ElemField()
		f.Type = zoneFree(f.Type)
		return arrow.ListOfField(f)
	}
	return dt
}

// jsonColumn returns the values of a column as JSON, by cat's rule, its
// time zone aside.
func jsonColumn(t *testing.T, a arrow.Array) string {
	t.Helper()
	var b []byte
	for i := range a.Len() {
		var err error
		if b, err = appendJSON(append(b, ' '), a, i); err != nil {
			t.Fatal(err)
		}
	}
	return strings.ReplaceAll(string(b), "Z\"", "\"")
}

// TestInspectParquetCodecNames: inspect names Parquet's codecs as the
// rest of the command names compressions (issue 31 item 11).
func TestInspectParquetCodecNames(t *testing.T) {
	dir := t.TempDir()
	rec := lineitem(t, 10)
	for c, want := range map[compress.Compression]string{compress.Codecs.Uncompressed: "none", compress.Codecs.Lz4Raw: "lz4", compress.Codecs.Zstd: "zstd", compress.Codecs.Snappy: "snappy"} {
		path := filepath.Join(dir, want+".parquet")
		writeFile(t, path, parquetBytes(t, rec, parquet.NewWriterProperties(parquet.WithCompression(c)), pqarrow.DefaultWriterProps()))
		code, out, stderr := runCmd(t, "inspect", path)
		if code != 0 {
			t.Fatal(stderr)
		}
		if !strings.Contains(out, " "+want+" ") || strings.Contains(out, "uncompressed ") || strings.Contains(out, "lz4_raw") {
			t.Errorf("%s: inspect does not name the codec %s:\n%s", path, want, out)
		}
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
