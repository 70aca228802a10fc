package codec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// goldenDir is where Arrow's golden integration streams live under
// $ARROW_TEST_DATA (the data directory of apache/arrow-testing).
const goldenDir = "arrow-ipc-stream/integration/cpp-21.0.0"

// The golden extension stream uses the canonical "arrow.uuid" type and the
// integration suite's "dict-extension" (a dictionary<utf8, int8> storage).
// They are registered here, unless something linked into the test binary
// already did, so that the stream's fields decode as extension types and
// the codec's extension path is exercised; arrow-go's extensions package
// would pull the parquet packages into the test binary.
func init() {
	for _, t := range []arrow.ExtensionType{newGoldenUUIDType(), newGoldenDictExtType()} {
		if arrow.GetExtensionType(t.ExtensionName()) == nil {
			if err := arrow.RegisterExtensionType(t); err != nil {
				panic(err)
			}
		}
	}
}

type goldenUUIDType struct{ arrow.ExtensionBase }

func newGoldenUUIDType() *goldenUUIDType {
	return &goldenUUIDType{arrow.ExtensionBase{Storage: &arrow.FixedSizeBinaryType{ByteWidth: 16}}}
}

func (*goldenUUIDType) ArrayType() reflect.Type { return reflect.TypeOf(goldenExtArray{}) }
func (*goldenUUIDType) ExtensionName() string   { return "arrow.uuid" }
func (t *goldenUUIDType) String() string        { return "extension<arrow.uuid>" }
func (*goldenUUIDType) Serialize() string       { return "" }
func (t *goldenUUIDType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == t.ExtensionName()
}
func (t *goldenUUIDType) Deserialize(storage arrow.DataType, _ string) (arrow.ExtensionType, error) {
	if !arrow.TypeEqual(storage, t.Storage) {
		return nil, fmt.Errorf("arrow.uuid: storage %s", storage)
	}
	return newGoldenUUIDType(), nil
}

type goldenDictExtType struct{ arrow.ExtensionBase }

func newGoldenDictExtType() *goldenDictExtType {
	return &goldenDictExtType{arrow.ExtensionBase{Storage: &arrow.DictionaryType{
		IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}}}
}

func (*goldenDictExtType) ArrayType() reflect.Type { return reflect.TypeOf(goldenExtArray{}) }
func (*goldenDictExtType) ExtensionName() string   { return "dict-extension" }
func (t *goldenDictExtType) String() string        { return "extension<dict-extension>" }
func (*goldenDictExtType) Serialize() string       { return "dict-extension-serialized" }
func (t *goldenDictExtType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == t.ExtensionName()
}
func (t *goldenDictExtType) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	if data != "dict-extension-serialized" || !arrow.TypeEqual(storage, t.Storage) {
		return nil, fmt.Errorf("dict-extension: storage %s, metadata %q", storage, data)
	}
	return newGoldenDictExtType(), nil
}

type goldenExtArray struct{ array.ExtensionArrayBase }

// TestGolden round-trips every batch of every golden integration stream
// through an Encoder and a Decoder built from the stream's schema: whole,
// and sliced at odd offsets, zero-copy and with a checked allocator,
// uncompressed and LZ4-compressed. A
// stream whose types the codec refuses fails the test: the codec is meant
// to cover every type.
func TestGolden(t *testing.T) {
	root := os.Getenv("ARROW_TEST_DATA")
	if root == "" {
		t.Skip("ARROW_TEST_DATA is not set")
	}
	forGoldenStreams(t, root, goldenFile)
}

// forGoldenStreams runs each in a subtest, named for the file, with a
// reader of each golden integration stream under root.
func forGoldenStreams(t *testing.T, root string, each func(t *testing.T, rdr *ipc.Reader)) {
	files, err := filepath.Glob(filepath.Join(root, goldenDir, "*.stream"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.stream files in %s (%v)", filepath.Join(root, goldenDir), err)
	}
	sort.Strings(files)
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".stream"), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rdr, err := ipc.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			defer rdr.Release()
			each(t, rdr)
		})
	}
}

func goldenFile(t *testing.T, rdr *ipc.Reader) {
	schema := rdr.Schema()

	enc, err := NewEncoder(schema)
	if err != nil {
		t.Fatalf("NewEncoder refuses the schema (%s): %v", goldenDescribe(schema), err)
	}
	dec, err := NewDecoder(schema)
	if err != nil {
		t.Fatalf("NewDecoder refuses the schema (%s): %v", goldenDescribe(schema), err)
	}
	// Compressed blocks carry transformed buffers (lengths, transposed
	// values) wherever compressing shrinks them.
	zenc, err := NewEncoder(schema, WithCompression(LZ4))
	if err != nil {
		t.Fatalf("NewEncoder(LZ4): %v", err)
	}
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer checked.AssertSize(t, 0)
	cdec, err := NewDecoder(schema, WithAllocator(checked))
	if err != nil {
		t.Fatalf("NewDecoder(WithAllocator) refuses the schema: %v", err)
	}

	batches := 0
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rec.Retain()
		n := rec.NumRows()
		for _, c := range goldenSlices(n) {
			what := fmt.Sprintf("batch %d (%d rows) %s", batches, n, c.name)
			in := rec
			if c.sliced {
				in = rec.NewSlice(c.i, c.j)
			}
			goldenRoundTrip(t, what, enc, dec, in)
			goldenRoundTrip(t, what+" WithAllocator", enc, cdec, in)
			goldenRoundTrip(t, what+" LZ4", zenc, dec, in)
			goldenRoundTrip(t, what+" LZ4 WithAllocator", zenc, cdec, in)
			if c.sliced {
				in.Release()
			}
		}
		rec.Release()
		batches++
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("ipc reader after %d batches: %v", batches, err)
	}
	t.Logf("%d batches: %s", batches, goldenDescribe(schema))
}

type goldenSlice struct {
	name   string
	sliced bool
	i, j   int64
}

// goldenSlices lists the whole batch and slices of it at offsets 1, 3 and 7:
// to the end, half of what is left, one row and no rows.
func goldenSlices(n int64) []goldenSlice {
	cases := []goldenSlice{{name: "whole"}}
	seen := map[[2]int64]bool{}
	for _, off := range []int64{1, 3, 7} {
		if off > n {
			continue
		}
		rest := n - off
		for _, l := range []int64{rest, rest / 2, 1, 0} {
			if l > rest || seen[[2]int64{off, l}] {
				continue
			}
			seen[[2]int64{off, l}] = true
			cases = append(cases, goldenSlice{
				name: fmt.Sprintf("slice[%d:%d]", off, off+l), sliced: true, i: off, j: off + l,
			})
		}
	}
	return cases
}

func goldenRoundTrip(t *testing.T, what string, enc *Encoder, dec *Decoder, in arrow.RecordBatch) {
	t.Helper()
	block, err := enc.Append(nil, in)
	if err != nil {
		t.Errorf("%s: Append: %v%s", what, err, goldenUnsupportedNote(err))
		return
	}
	out, err := dec.Decode(block)
	if err != nil {
		t.Errorf("%s: Decode of a %d-byte block: %v%s", what, len(block), err, goldenUnsupportedNote(err))
		return
	}
	defer out.Release()
	if out.Schema() != dec.Schema() {
		t.Errorf("%s: decoded batch's schema is not the decoder's", what)
	}
	if err := goldenValidate(out, in); err != nil {
		t.Errorf("%s: decoded batch fails ValidateRecordFull: %v", what, err)
	}
	if out.NumRows() != in.NumRows() || out.NumCols() != in.NumCols() {
		t.Errorf("%s: decoded %d rows x %d columns, want %d x %d", what, out.NumRows(), out.NumCols(), in.NumRows(), in.NumCols())
		return
	}
	if array.RecordEqual(in, out) {
		return
	}
	for i := range in.NumCols() {
		a, b := in.Column(int(i)), out.Column(int(i))
		if !array.Equal(a, b) {
			t.Errorf("%s: column %d %q (%s) differs after the round trip:\n in: %v\nout: %v",
				what, i, in.ColumnName(int(i)), a.DataType(), a, b)
		}
	}
}

// goldenValidate runs array.ValidateRecordFull on out. arrow-go's validator
// rejects every array of an extension type whose storage is a dictionary
// ("declares dictionary storage but is not a dictionary type"), the
// original batch read by arrow-go's own IPC reader included. For a column
// whose original fails that way, the decoded column's storage is validated
// instead, so the check stays as strict as arrow-go allows.
func goldenValidate(out, orig arrow.RecordBatch) error {
	if array.ValidateRecordFull(out) == nil {
		return nil
	}
	for i, col := range out.Columns() {
		err := array.ValidateFull(col)
		if err == nil {
			continue
		}
		ext, isExt := col.(array.ExtensionArray)
		origErr := array.ValidateFull(orig.Column(i))
		if isExt && origErr != nil && origErr.Error() == err.Error() {
			if err := array.ValidateFull(ext.Storage()); err != nil {
				return fmt.Errorf("column %d (%s) storage: %w", i, out.ColumnName(i), err)
			}
			continue
		}
		return fmt.Errorf("column %d (%s): %w", i, out.ColumnName(i), err)
	}
	return nil
}

func goldenUnsupportedNote(err error) string {
	if errors.Is(err, ErrUnsupported) {
		return " (ErrUnsupported: every type must be supported)"
	}
	return ""
}

func goldenDescribe(s *arrow.Schema) string {
	parts := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		parts[i] = f.Name + ": " + f.Type.String()
	}
	s2 := strings.Join(parts, ", ")
	if len(s2) > 300 {
		s2 = s2[:300] + "..."
	}
	return s2
}
