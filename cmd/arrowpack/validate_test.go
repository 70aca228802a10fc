package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	flatbuffers "github.com/google/flatbuffers/go"
)

// hostileColumn builds, field by field and without validation, a column of
// two values of type dt (string or large_string) with these offsets over
// the bytes values: what a buggy writer or an attacker puts in a file.
func hostileColumn(dt arrow.DataType, offsets []int64, values []byte) arrow.Array {
	return hostileColumnNulls(dt, offsets, values, nil, 0)
}

// hostileColumnNulls is hostileColumn with a validity bitmap and a null
// count that need not agree.
func hostileColumnNulls(dt arrow.DataType, offsets []int64, values, bitmap []byte, nulls int) arrow.Array {
	var ob []byte
	for _, o := range offsets {
		if dt.ID() == arrow.LARGE_STRING {
			ob = binary.LittleEndian.AppendUint64(ob, uint64(o))
		} else {
			ob = binary.LittleEndian.AppendUint32(ob, uint32(o))
		}
	}
	var valid *memory.Buffer
	if bitmap != nil {
		valid = memory.NewBufferBytes(bitmap)
	}
	data := array.NewData(dt, len(offsets)-1,
		[]*memory.Buffer{valid, memory.NewBufferBytes(ob), memory.NewBufferBytes(values)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// hostileBatches returns a sound batch and then a hostile one of schema
// (id int32, s dt).
func hostileBatches(t *testing.T, dt arrow.DataType, offsets []int64, values []byte) []arrow.RecordBatch {
	return hostileBatchesOf(t, dt, hostileColumn(dt, offsets, values))
}

// hostileBatchesOf returns a sound batch and then one whose column s is
// bad, of schema (id int32, s dt).
func hostileBatchesOf(t *testing.T, dt arrow.DataType, bad arrow.Array) []arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}, {Name: "s", Type: dt, Nullable: true}}, nil)
	mem := memory.NewGoAllocator()
	ids := array.NewInt32Builder(mem)
	defer ids.Release()
	ids.AppendValues([]int32{1, 2}, nil)
	idCol := ids.NewArray()
	defer idCol.Release()
	sb := array.NewBuilder(mem, dt)
	defer sb.Release()
	sb.(interface{ AppendString(string) }).AppendString("ok")
	sb.(interface{ AppendString(string) }).AppendString("fine")
	good := sb.NewArray()
	defer good.Release()
	ids.AppendValues([]int32{3, 4}, nil)
	idCol2 := ids.NewArray()
	defer idCol2.Release()
	defer bad.Release()
	recs := []arrow.RecordBatch{
		array.NewRecordBatch(schema, []arrow.Array{idCol, good}, 2),
		array.NewRecordBatch(schema, []arrow.Array{idCol2, bad}, 2),
	}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return recs
}

// hostileCases are the batches of issue 18: string offsets that go back,
// a large_string offset of 2^40, invalid UTF-8.
var hostileCases = []struct {
	name    string
	dt      arrow.DataType
	offsets []int64
	values  []byte
	want    string // in the error
}{
	{"string offsets [0,4,1]", arrow.BinaryTypes.String, []int64{0, 4, 1}, []byte("abcd"), "column 1 (s)"},
	{"large_string offsets [0,2^40,4]", arrow.BinaryTypes.LargeString, []int64{0, 1 << 40, 4}, []byte("abcd"), "column 1 (s)"},
	{"invalid UTF-8", arrow.BinaryTypes.String, []int64{0, 2, 4}, []byte("a\xffb\xfe"), "column 1 (s)"},
}

// TestHostileIPCInput: an IPC stream or file whose second batch breaks
// Arrow's invariants (built field by field, written by arrow-go's IPC
// writer, which does not check) is refused by cat, head, inspect and
// convert with an error naming the file, the batch and the column, status
// 1, no panic and no output file; -salvage keeps the batch before it.
func TestHostileIPCInput(t *testing.T) {
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			recs := hostileBatches(t, tc.dt, tc.offsets, tc.values)
			for _, fileFormat := range []bool{false, true} {
				dir := t.TempDir()
				src := filepath.Join(dir, "hostile.arrows")
				if fileFormat {
					src = filepath.Join(dir, "hostile.arrow")
				}
				writeIPC(t, src, recs, fileFormat)
				want := []string{src + ": batch 1 of the ", "is invalid", tc.want}
				for _, args := range [][]string{
					{"cat", src}, {"cat", "-json", src}, {"head", src}, {"inspect", src}, {"inspect", "-json", src},
					{"convert", src, filepath.Join(dir, "out.apk")},
					{"convert", src, filepath.Join(dir, "out.arrows")},
					{"convert", src, filepath.Join(dir, "out.parquet")},
				} {
					code, _, stderr := runCmd(t, args...)
					for _, w := range want {
						checkFailure(t, code, stderr, 1, w)
					}
					if !utf8Clean(stderr) {
						t.Errorf("%v: stderr is not clean UTF-8: %q", args, stderr)
					}
				}
				if names := dirNames(t, dir); len(names) != 1 {
					t.Errorf("a failed convert left files: %v", names)
				}
				out := filepath.Join(dir, "saved.apk")
				code, _, stderr := runCmd(t, "convert", "-salvage", src, out)
				checkFailure(t, code, stderr, 1, "is invalid")
				_, got := readAll(t, out)
				checkSameBatches(t, got, recs[:1])
				for _, r := range got {
					r.Release()
				}
			}
		})
	}
}

// TestValidationFastPath: string columns whose data is ASCII pass by the
// kernels' road, the others by ValidateFull's: a valid non-ASCII column is
// read, and a bitmap that disagrees with the null count is caught though
// its offsets and data are sound.
func TestValidationFastPath(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		col  arrow.Array
		want string // "" for a sound column
	}{
		{"non-ASCII", hostileColumn(arrow.BinaryTypes.String, []int64{0, 6, 12}, []byte("héllo日本")), ""},
		{"large non-ASCII", hostileColumn(arrow.BinaryTypes.LargeString, []int64{0, 6, 12}, []byte("héllo日本")), ""},
		{"ASCII", hostileColumn(arrow.BinaryTypes.String, []int64{0, 2, 4}, []byte("abcd")), ""},
		{"null count", hostileColumnNulls(arrow.BinaryTypes.String, []int64{0, 2, 4}, []byte("abcd"), []byte{0b00}, 1), "null count"},
		{"large null count", hostileColumnNulls(arrow.BinaryTypes.LargeString, []int64{0, 2, 4}, []byte("abcd"), []byte{0b11}, 1), "null count"},
	} {
		recs := hostileBatchesOf(t, tc.col.DataType(), tc.col)
		src := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".arrows")
		writeIPC(t, src, recs, false)
		code, _, stderr := runCmd(t, "cat", "-json", src)
		if tc.want == "" {
			if code != 0 {
				t.Errorf("%s: status %d: %s", tc.name, code, stderr)
			}
			continue
		}
		checkFailure(t, code, stderr, 1, tc.want)
	}
}

func utf8Clean(s string) bool { return strings.ToValidUTF8(s, "") == s }

// TestHostileParquetInput: a Parquet file whose string column holds
// invalid UTF-8 (pqarrow writes and reads it back without a check) is
// refused by cat, inspect and convert, naming the file, the batch and the
// column.
func TestHostileParquetInput(t *testing.T) {
	tc := hostileCases[2]
	recs := hostileBatches(t, tc.dt, tc.offsets, tc.values)
	dir := t.TempDir()
	src := filepath.Join(dir, "hostile.parquet")
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(recs[0].Schema(), &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		where string
	}{
		{[]string{"cat", "-batch-rows", "2", src}, "batch 1"},
		{[]string{"inspect", src}, "row group 1"},
		{[]string{"convert", "-batch-rows", "2", src, filepath.Join(dir, "out.apk")}, "batch 1"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		for _, w := range []string{src + ": ", tc.where, "is invalid", "column 1 (s)"} {
			checkFailure(t, code, stderr, 1, w)
		}
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("a failed convert left files: %v", names)
	}
}

// TestIPCStreamBodyClaim: an IPC stream whose record batch message claims a
// body of 256 MiB, in a file of a few KiB, is refused before the body is
// allocated (ipc.NewReader applies no body limit to a stream; the command's
// own message reader applies the input's size).
func TestIPCStreamBodyClaim(t *testing.T) {
	dir := t.TempDir()
	src, _ := testStream(t, dir)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// The second message (the first record batch): after the schema
	// message's framing, metadata and (empty) body.
	schemaLen := int(binary.LittleEndian.Uint32(data[4:]))
	at := 8 + schemaLen
	meta, err := ipcMetadata(data[at:])
	if err != nil {
		t.Fatal(err)
	}
	msg := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	o := msg.Offset(fieldSlot(3)) // Message.bodyLength
	if o == 0 {
		t.Fatal("no bodyLength in the record batch message")
	}
	pos := at + 8 + int(msg.Pos) + int(o)
	binary.LittleEndian.PutUint64(data[pos:], 256<<20)
	bad := filepath.Join(dir, "claim.arrows")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, stderr := runCmd(t, "cat", bad)
	runtime.ReadMemStats(&after)
	checkFailure(t, code, stderr, 1, "exceeds limit")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading a %d-byte stream allocated %d MiB", len(data), grew>>20)
	}
}
