package codec_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
)

// oneColumn returns a batch of one row of one column named name of type
// int64 or, with str, utf8.
func oneColumn(t *testing.T, name string, str bool) arrow.RecordBatch {
	t.Helper()
	typ := arrow.DataType(arrow.PrimitiveTypes.Int64)
	if str {
		typ = arrow.BinaryTypes.String
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: name, Type: typ}}, nil))
	defer b.Release()
	if str {
		b.Field(0).(*array.StringBuilder).Append("x")
	} else {
		b.Field(0).(*array.Int64Builder).Append(1)
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

// TestReaderMessages: a concatenated stream of other fields is told by its
// first difference, not by two whole schemas; an Arrow IPC stream or file
// handed to NewReader is named as such (issue 31 item 11).
func TestReaderMessages(t *testing.T) {
	var buf bytes.Buffer
	for _, rec := range []arrow.RecordBatch{oneColumn(t, "k", false), oneColumn(t, "k", true)} {
		w, err := codec.NewWriter(&buf, rec.Schema())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := codec.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	err = r.Err()
	r.Release()
	want := "a stream of other fields follows the first: field k is utf8, in the first stream int64"
	if !errors.Is(err, codec.ErrSchemaMismatch) || err == nil || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "schema:\n") {
		t.Errorf("err %v, want one ending %q", err, want)
	}

	rec := oneColumn(t, "k", false)
	var stream, file bytes.Buffer
	w := ipc.NewWriter(&stream, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	fw, err := ipc.NewFileWriter(&file, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	fw.Close()
	for _, tc := range []struct {
		in   []byte
		want string
	}{{stream.Bytes(), "this looks like an Arrow IPC stream"}, {file.Bytes(), "this looks like an Arrow IPC file"}} {
		_, err := codec.NewReader(bytes.NewReader(tc.in))
		if !errors.Is(err, codec.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewReader: %v, want ErrCorrupt saying %q", err, tc.want)
		}
	}
}
