package codec

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

// writeStream writes recs as one stream and returns its bytes.
func writeStream(t testing.TB, schema *arrow.Schema, recs []arrow.RecordBatch, opts ...Option) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := batches.WriteAll(w, recs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readStream reads every batch of a stream, checking each against want.
func readStream(t testing.TB, data []byte, want []arrow.RecordBatch, opts ...Option) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	i := 0
	for r.Next() {
		if i >= len(want) {
			t.Fatalf("stream holds more than the %d batches written", len(want))
		}
		checkSame(t, want[i], r.RecordBatch(), r.Schema())
		i++
	}
	if err := r.Err(); err != nil {
		t.Fatalf("after %d batches: %v", i, err)
	}
	if i != len(want) {
		t.Fatalf("read %d batches, wrote %d", i, len(want))
	}
}

func randomBatches(r *rand.Rand, mem memory.Allocator, schema *arrow.Schema, n int) []arrow.RecordBatch {
	recs := make([]arrow.RecordBatch, n)
	for i := range recs {
		recs[i] = randbatch.Batch(mem, r, schema, r.IntN(200), randbatch.Options{NullProb: 0.2, MaxListLen: 4, Slice: true})
	}
	return recs
}

// seededBatches returns the source seeded with seed, a random schema of
// fields top-level fields nested up to depth levels, and n random batches
// of it (randomBatches), which are released when t ends.
func seededBatches(t testing.TB, seed uint64, fields, depth, n int) (*rand.Rand, *arrow.Schema, []arrow.RecordBatch) {
	r := rand.New(rand.NewPCG(seed, seed))
	schema := randbatch.RandomSchema(r, fields, depth)
	recs := randomBatches(r, memory.NewGoAllocator(), schema, n)
	t.Cleanup(func() { batches.Release(recs) })
	return r, schema, recs
}

func TestStreamRoundTrip(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(21, 21))
	for _, c := range []Compression{None, LZ4, Zstd, MinLZ, Light} {
		for seed := range 20 {
			schema := randbatch.RandomSchema(r, 1+seed%5, 3)
			recs := randomBatches(r, mem, schema, seed%4)
			data := writeStream(t, schema, recs, WithCompression(c))
			readStream(t, data, recs)
			checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
			readStream(t, data, recs, WithAllocator(checked))
			checked.AssertSize(t, 0)
			batches.Release(recs)
		}
	}
}

func TestStreamSchemaSurvives(t *testing.T) {
	md := arrow.NewMetadata([]string{"k"}, []string{"v"})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: false, Metadata: md},
		{Name: "uuid", Type: randbatch.NewUUIDType(), Nullable: true},
		{Name: "dict", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}, Nullable: true},
	}, &md)
	data := writeStream(t, schema, nil)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Schema().Equal(schema) || !r.Schema().Metadata().Equal(md) || !r.Schema().Field(0).Metadata.Equal(md) {
		t.Fatalf("schema read back as %s, want %s", r.Schema(), schema)
	}
	if r.Next() || r.Err() != nil {
		t.Fatalf("empty stream: Next true or error %v", r.Err())
	}
}

func TestStreamConcatenated(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(22, 22))
	schema := randbatch.RandomSchema(r, 3, 2)
	a := randomBatches(r, mem, schema, 3)
	b := randomBatches(r, mem, schema, 2)
	defer batches.Release(a)
	defer batches.Release(b)
	// A spill appended to: stream, empty stream, stream.
	var data []byte
	data = append(data, writeStream(t, schema, a, WithCompression(LZ4))...)
	data = append(data, writeStream(t, schema, nil)...)
	data = append(data, writeStream(t, schema, b, WithCompression(Zstd))...)
	readStream(t, data, append(append([]arrow.RecordBatch{}, a...), b...))

	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8}}, nil)
	data = append(writeStream(t, schema, a), writeStream(t, other, nil)...)
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for rd.Next() {
	}
	if !errors.Is(rd.Err(), ErrSchemaMismatch) {
		t.Fatalf("stream of another schema after the first: %v, want ErrSchemaMismatch", rd.Err())
	}
	rd.Release()
}

// TestStreamRetainedBatchSurvives keeps batches past Next: the Reader must
// not reuse their memory for later blocks.
func TestStreamRetainedBatchSurvives(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(23, 23))
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	recs := randomBatches(r, mem, schema, 20)
	defer batches.Release(recs)
	rd, err := NewReader(bytes.NewReader(writeStream(t, schema, recs)))
	if err != nil {
		t.Fatal(err)
	}
	kept, err := batches.ReadAll(rd)
	rd.Release()
	if err != nil || len(kept) != len(recs) {
		t.Fatalf("read %d of %d batches: %v", len(kept), len(recs), err)
	}
	for i, rec := range kept {
		checkSame(t, recs[i], rec, rd.Schema())
		rec.Release()
	}
}

// TestStreamCorrupt cuts a stream at every length and flips bytes: every
// failure wraps ErrCorrupt, nothing panics, and what is read is sound.
func TestStreamCorrupt(t *testing.T) {
	r, schema, recs := seededBatches(t, 24, 3, 2, 3)
	for _, c := range []Compression{None, LZ4} {
		data := writeStream(t, schema, recs, WithCompression(c))
		for n := range len(data) {
			err := drain(data[:n])
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s stream cut at %d of %d bytes: %v, want ErrCorrupt", c, n, len(data), err)
			}
		}
		m := append([]byte(nil), data...)
		for i := 0; i < len(m); i += 1 + r.IntN(7) {
			m[i] ^= 1 << r.IntN(8)
			if err := drain(m); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
				t.Fatalf("byte %d changed: %v, want ErrCorrupt", i, err)
			}
			copy(m, data)
		}
	}
}

// drain reads every batch of data, checking each is sound, and returns the
// error that ended the reading.
func drain(data []byte) (err error) {
	rd, err := NewReader(bytes.NewReader(data), WithMaxBlockSize(1<<20))
	if err != nil {
		return err
	}
	defer rd.Release()
	for rd.Next() {
		if err := array.ValidateRecordFull(rd.RecordBatch()); err != nil {
			return errors.New("accepted an invalid batch: " + err.Error())
		}
	}
	return rd.Err()
}

func FuzzReader(f *testing.F) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(25, 25))
	for i, c := range []Compression{None, LZ4, Zstd} {
		schema := randbatch.RandomSchema(r, 1+i, 2)
		recs := randomBatches(r, mem, schema, 2)
		f.Add(writeStream(f, schema, recs, WithCompression(c)))
		batches.Release(recs)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data), WithMaxBlockSize(1<<20))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("NewReader: %v wraps no sentinel", err)
			}
			return
		}
		defer rd.Release()
		for rd.Next() {
			checkDecoded(t, rd.RecordBatch(), nil)
			rd.RecordBatch().Retain() // checkDecoded releases it
		}
		if err := rd.Err(); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchemaMismatch) {
			t.Fatalf("Reader: %v wraps no sentinel", err)
		}
	})
}
