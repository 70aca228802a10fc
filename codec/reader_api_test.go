package codec

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/arrio"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// TestReaderArrio: a Reader is an arrio.Reader, so arrio.Copy moves a
// stream into arrow-go's IPC writer, batch for batch.
func TestReaderArrio(t *testing.T) {
	_, schema, recs := seededBatches(t, 5, 4, 2, 3)
	data := writeStream(t, schema, recs)

	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var out bytes.Buffer
	iw := ipc.NewWriter(&out, ipc.WithSchema(schema))
	n, err := arrio.Copy(iw, rd)
	if err != nil || n != int64(len(recs)) {
		t.Fatalf("arrio.Copy = %d, %v; want %d batches", n, err, len(recs))
	}
	if err := iw.Close(); err != nil {
		t.Fatal(err)
	}
	ir, err := ipc.NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	defer ir.Release()
	for i := 0; ir.Next(); i++ {
		checkSame(t, recs[i], ir.RecordBatch(), ir.Schema())
	}
	if rec, err := rd.Read(); rec != nil || err != io.EOF {
		t.Fatalf("Read at the end = %v, %v; want nil, io.EOF", rec, err)
	}
}

// TestReaderRefCount: Release follows arrow-go's reference counting: the
// Reader stops only when the last reference goes.
func TestReaderRefCount(t *testing.T) {
	_, schema, recs := seededBatches(t, 6, 2, 1, 3)
	rd, err := NewReader(bytes.NewReader(writeStream(t, schema, recs)))
	if err != nil {
		t.Fatal(err)
	}
	rd.Retain()
	if !rd.Next() {
		t.Fatal(rd.Err())
	}
	rd.Release() // one reference left
	if !rd.Next() {
		t.Fatalf("Next after releasing one of two references: %v", rd.Err())
	}
	rd.Release()
	if rd.Next() || rd.RecordBatch() != nil {
		t.Fatal("Next after the last Release found a batch")
	}
}

// failingReader returns data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestReaderIOErrors: an error of the underlying reader is reported as
// itself, not as corruption, wherever it happens, after an end frame too.
func TestReaderIOErrors(t *testing.T) {
	_, schema, recs := seededBatches(t, 7, 2, 1, 2)
	data := writeStream(t, schema, recs)
	ioErr := errors.New("disk on fire")
	for _, cut := range []int{len(data), len(data) - 8, len(data) / 2, streamHeaderSize} {
		rd, err := NewReader(&failingReader{data: data[:cut], err: ioErr})
		if err != nil {
			if !errors.Is(err, ioErr) || errors.Is(err, ErrCorrupt) {
				t.Fatalf("cut at %d: NewReader error %v, want the I/O error", cut, err)
			}
			continue
		}
		for rd.Next() {
		}
		if err := rd.Err(); !errors.Is(err, ioErr) || errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d: Err() = %v, want the I/O error and not ErrCorrupt", cut, err)
		}
		rd.Release()
	}
	// A stream cut inside the next stream's magic is truncated: corrupt.
	rd, err := NewReader(bytes.NewReader(append(append([]byte{}, data...), 'A', 'P')))
	if err != nil {
		t.Fatal(err)
	}
	for rd.Next() {
	}
	if err := rd.Err(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("2 stray bytes after the end: %v, want ErrCorrupt", err)
	}
}

// TestMaxBlockSizeMustBePositive: 0 or a negative cap used to lift every
// cap; now it is refused.
func TestMaxBlockSizeMustBePositive(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	for _, n := range []int{0, -1} {
		if _, err := NewDecoder(schema, WithMaxBlockSize(n)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("NewDecoder(WithMaxBlockSize(%d)) error %v, want ErrUnsupported", n, err)
		}
		if _, err := NewEncoder(schema, WithMaxBlockSize(n)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("NewEncoder(WithMaxBlockSize(%d)) error %v, want ErrUnsupported", n, err)
		}
		data := writeStream(t, schema, nil)
		if _, err := NewReader(bytes.NewReader(data), WithMaxBlockSize(n)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("NewReader(WithMaxBlockSize(%d)) error %v, want ErrUnsupported", n, err)
		}
	}
}

// oneValue returns a batch of one row of one column named name of type
// int64 or, with str, utf8.
func oneValue(t *testing.T, name string, str bool) arrow.RecordBatch {
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
	var concat []byte
	for _, rec := range []arrow.RecordBatch{oneValue(t, "k", false), oneValue(t, "k", true)} {
		concat = append(concat, writeStream(t, rec.Schema(), []arrow.RecordBatch{rec})...)
	}
	r, err := NewReader(bytes.NewReader(concat))
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	err = r.Err()
	r.Release()
	want := "a stream of other fields follows the first: field k is utf8, in the first stream int64"
	if !errors.Is(err, ErrSchemaMismatch) || err == nil || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "schema:\n") {
		t.Errorf("err %v, want one ending %q", err, want)
	}

	rec := oneValue(t, "k", false)
	var stream, file bytes.Buffer
	if err := batches.WriteAll(ipc.NewWriter(&stream, ipc.WithSchema(rec.Schema())), []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	fw, err := ipc.NewFileWriter(&file, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := batches.WriteAll(fw, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   []byte
		want string
	}{{stream.Bytes(), "this looks like an Arrow IPC stream"}, {file.Bytes(), "this looks like an Arrow IPC file"}} {
		_, err := NewReader(bytes.NewReader(tc.in))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewReader: %v, want ErrCorrupt saying %q", err, tc.want)
		}
	}
}
