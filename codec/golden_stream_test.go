package codec

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/randbatch"
)

var update = flag.Bool("update", false, "rewrite the golden stream files in testdata/golden")

// goldenBatches are deterministic batches of every type: one column per
// type the generator covers, sliced, with nulls.
func goldenBatches() (*arrow.Schema, []arrow.RecordBatch) {
	var fields []arrow.Field
	for i, dt := range randbatch.AllTypes() {
		fields = append(fields, arrow.Field{Name: "c" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Type: dt, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(2026, 11))
	var recs []arrow.RecordBatch
	for _, rows := range []int{0, 7, 40} {
		recs = append(recs, randbatch.Batch(mem, r, schema, rows, randbatch.Options{NullProb: 0.25, MaxListLen: 3, Slice: true}))
	}
	return schema, recs
}

// TestGoldenStreams reads stream files committed from an amd64 machine; the
// tests run under qemu arm64 too, so a stream written on one architecture is
// shown to read on another. The uncompressed stream written here must also
// be byte for byte the committed one: the format is fixed and little-endian.
// Run with -update to rewrite the files after a deliberate format change.
func TestGoldenStreams(t *testing.T) {
	schema, recs := goldenBatches()
	defer batches.Release(recs)
	for _, c := range []Compression{None, LZ4, Zstd} {
		path := filepath.Join("testdata", "golden", "all-types-"+c.String()+".apk")
		data := writeStream(t, schema, recs, WithCompression(c))
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./codec -run TestGoldenStreams -update to create it)", err)
		}
		readStream(t, golden, recs)
		if c == None && !bytes.Equal(data, golden) {
			t.Fatalf("%s: the stream written now (%d bytes) differs from the committed %s (%d bytes)", c, len(data), path, len(golden))
		}
		if c != None && !hasTransformedBlock(golden, c) {
			t.Fatalf("%s: no block of %s has the transforms, so reading it on another architecture would not test undoing them", c, path)
		}
	}
}

// hasTransformedBlock reports whether stream holds a block compressed with c
// whose flags name every transform. Blocks start 8-byte aligned.
func hasTransformedBlock(stream []byte, c Compression) bool {
	for i := 0; i+headerSize <= len(stream); i += 8 {
		if [4]byte(stream[i:i+4]) != magic {
			continue
		}
		end := uint64(i+headerSize) + binary.LittleEndian.Uint64(stream[i+24:])
		if end > uint64(len(stream)) {
			continue
		}
		if h, err := parseHeader(stream[i:end]); err == nil && h.compression == c && h.flags == transformFlags {
			return true
		}
	}
	return false
}
