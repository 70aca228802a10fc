package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rawSources are the two ways of reading a stream as raw blocks: from an
// io.Reader and from memory.
var rawSources = map[string]func([]byte) (*RawReader, error){
	"reader": func(d []byte) (*RawReader, error) { return NewRawReader(bytes.NewReader(d)) },
	"bytes":  func(d []byte) (*RawReader, error) { return NewRawReaderBytes(d) },
}

// readRaw reads every block of a stream with a RawReader.
func readRaw(t *testing.T, data []byte) (*RawReader, []RawBlock, error) {
	t.Helper()
	return readRawFrom(t, data, rawSources["reader"])
}

// readRawFrom reads every block of a stream with the RawReader open
// returns.
func readRawFrom(t *testing.T, data []byte, open func([]byte) (*RawReader, error)) (*RawReader, []RawBlock, error) {
	t.Helper()
	r, err := open(data)
	if err != nil {
		return nil, nil, err
	}
	var out []RawBlock
	for {
		b, err := r.Next(nil)
		if errors.Is(err, io.EOF) {
			return r, out, nil
		}
		if err != nil {
			return r, out, err
		}
		out = append(out, b)
	}
}

// firstFrame returns the offset of the first frame of a stream and its
// block.
func firstFrame(t *testing.T, data []byte) (int, RawBlock) {
	t.Helper()
	r, err := NewRawReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	return len(data) - r.rd.r.(*bytes.Reader).Len() - len(first.Bytes) - frameHeaderSize, first
}

// A stream read as raw blocks and written back with a RawWriter is the
// same bytes, and each raw block decodes to the batch written.
func TestRawStreamRoundTrip(t *testing.T) {
	for src, open := range rawSources {
		for _, c := range []Compression{None, LZ4, Zstd, MinLZ} {
			testRawRoundTrip(t, src, open, c)
		}
	}
}

// testRawRoundTrip is TestRawStreamRoundTrip of one source and
// compression.
func testRawRoundTrip(t *testing.T, src string, open func([]byte) (*RawReader, error), c Compression) {
	_, schema, recs := seededBatches(t, uint64(c)+70, 4, 3, 5)
	data := writeStream(t, schema, recs, WithCompression(c))
	r, blocks, err := readRawFrom(t, data, open)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != len(recs) {
		t.Fatalf("%s %s: %d raw blocks, %d batches written", src, c, len(blocks), len(recs))
	}
	var out bytes.Buffer
	w, err := NewRawWriter(&out, r.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		if err := b.Verify(); err != nil {
			t.Fatalf("%s %s block %d: %v", src, c, i, err)
		}
		rec, err := r.Decode(b)
		if err != nil {
			t.Fatalf("%s %s block %d: %v", src, c, i, err)
		}
		checkSame(t, recs[i], rec, r.Schema())
		rec.Release()
		if err := w.WriteBlock(b.Bytes, b.CRC); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("%s %s: the RawWriter's stream differs from the Writer's", src, c)
	}
}

// Streams one after another read as one sequence of raw blocks, each
// verified: from an io.Reader into the caller's buffer when it is large
// enough; from bytes as slices of them, each ending at its block (so
// appending to one cannot overwrite the next frame), whatever buffer Next
// is given.
func TestRawStreamConcatenatedAndInto(t *testing.T) {
	_, schema, recs := seededBatches(t, 77, 3, 2, 3)
	one := writeStream(t, schema, recs)
	data := append(bytes.Clone(one), one...)
	for src, open := range rawSources {
		r, err := open(data)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, 0, 1<<20)
		n := 0
		for {
			b, err := r.Next(dst)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if src == "bytes" {
				off := int(uintptr(unsafe.Pointer(&b.Bytes[0])) - uintptr(unsafe.Pointer(&data[0])))
				if off < frameHeaderSize || off+len(b.Bytes) > len(data) {
					t.Fatalf("block %d is not a slice of the stream's bytes", n)
				}
				if cap(b.Bytes) != len(b.Bytes) {
					t.Fatalf("block %d: capacity %d past its %d bytes", n, cap(b.Bytes), len(b.Bytes))
				}
				if got := binary.LittleEndian.Uint64(data[off-frameHeaderSize:]); got != uint64(len(b.Bytes)) {
					t.Fatalf("block %d at offset %d: its frame says %d bytes, got %d", n, off, got, len(b.Bytes))
				}
			} else if &b.Bytes[0] != &dst[:1][0] {
				t.Fatalf("block %d not read into the buffer given", n)
			}
			if err := b.Verify(); err != nil {
				t.Fatalf("%s block %d: %v", src, n, err)
			}
			n++
		}
		if n != 2*len(recs) {
			t.Fatalf("%s: %d blocks, want %d", src, n, 2*len(recs))
		}
	}
}

// Framing a RawReader refuses, built as an attacker would; and a block
// whose bytes were changed, which it passes on but Verify and Decode
// refuse.
func TestRawStreamCorrupt(t *testing.T) {
	_, schema, recs := seededBatches(t, 78, 3, 2, 2)
	data := writeStream(t, schema, recs)
	frame, first := firstFrame(t, data)
	set := func(off int, v uint64) []byte {
		d := bytes.Clone(data)
		binary.LittleEndian.PutUint64(d[off:], v)
		return d
	}
	cases := map[string][]byte{
		"huge frame":         set(frame, 1<<62),
		"frame not 8-padded": set(frame, uint64(len(first.Bytes)+4)),
		"frame under header": set(frame, 8),
		"reserved bytes":     set(frame+8, uint64(first.CRC)|1<<40),
		"truncated":          data[:len(data)-20],
		"block count":        set(len(data)-8, 7),
	}
	// A frame claiming a little more than the stream holds, at its end.
	cut := data[:frame+frameHeaderSize+len(first.Bytes)]
	cases["claims past the end"] = cut[:len(cut)-8]
	for src, open := range rawSources {
		for name, d := range cases {
			_, _, err := readRawFrom(t, d, open)
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s %s: %v, want ErrCorrupt", src, name, err)
			}
		}
	}
	d := bytes.Clone(data)
	d[frame+frameHeaderSize+headerSize+3] ^= 1
	r, blocks, err := readRaw(t, d)
	if err != nil {
		t.Fatalf("a changed block: %v; the RawReader does not check blocks", err)
	}
	if err := blocks[0].Verify(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Verify: %v, want ErrCorrupt", err)
	}
	if _, err := r.Decode(blocks[0]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Decode: %v, want ErrCorrupt", err)
	}
}

// A RawWriter refuses what no Reader would read, and writing after Close.
func TestRawWriterRefuses(t *testing.T) {
	_, schema, _ := seededBatches(t, 79, 2, 1, 0)
	var out bytes.Buffer
	w, err := NewRawWriter(&out, schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 8, headerSize + 4} {
		if err := w.WriteBlock(make([]byte, n), 0); !errors.Is(err, ErrInvalidBatch) {
			t.Fatalf("block of %d bytes: %v, want ErrInvalidBatch", n, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(make([]byte, headerSize), 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
	// What it wrote is an empty stream a Reader reads.
	readStream(t, out.Bytes(), nil)
}

// A frame that claims far more than the stream holds costs what arrives,
// not what it claims.
func TestRawStreamClaimedLength(t *testing.T) {
	_, schema, recs := seededBatches(t, 80, 2, 1, 1)
	data := writeStream(t, schema, recs)
	frame, first := firstFrame(t, data)
	d := bytes.Clone(data[:frame+frameHeaderSize+len(first.Bytes)]) // cut after the first block
	binary.LittleEndian.PutUint64(d[frame:], 200<<20)               // which claims 200 MiB
	var rerr error
	n := allocated(func() {
		r, err := NewRawReader(bytes.NewReader(d))
		if err != nil {
			rerr = err
			return
		}
		_, rerr = r.Next(nil)
	})
	if !errors.Is(rerr, ErrCorrupt) {
		t.Fatalf("%v, want ErrCorrupt", rerr)
	}
	if n > 1<<20 {
		t.Fatalf("%d bytes allocated for a %d-byte stream", n, len(d))
	}
}

// freeCounter is an allocator whose Free counts the buffers given back.
type freeCounter struct{ freed int }

func (f *freeCounter) Allocate(n int) []byte             { return make([]byte, n) }
func (f *freeCounter) Reallocate(n int, b []byte) []byte { return append(b[:0:0], b...)[:n] }
func (f *freeCounter) Free([]byte)                       { f.freed++ }

// DecodeBuffer checks the checksum, and the batch it decodes keeps the
// buffer until its last array is released.
func TestRawDecodeBuffer(t *testing.T) {
	_, schema, recs := seededBatches(t, 82, 3, 1, 1)
	data := writeStream(t, schema, recs)
	r, blocks, err := readRaw(t, data)
	if err != nil {
		t.Fatal(err)
	}
	b := blocks[0]
	fc := &freeCounter{}
	buf := memory.NewBufferWithAllocator(append(alignedBytes(len(b.Bytes))[:0], b.Bytes...), fc)
	if _, err := r.DecodeBuffer(buf, b.CRC^1); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a wrong checksum: %v, want ErrCorrupt", err)
	}
	rec, err := r.DecodeBuffer(buf, b.CRC)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, recs[0], rec, r.Schema())
	buf.Release()
	if fc.freed != 0 {
		t.Fatal("the buffer was given back while the batch aliases it")
	}
	rec.Release()
	if fc.freed != 1 {
		t.Fatalf("the buffer was given back %d times after the batch's release, want 1", fc.freed)
	}
}
