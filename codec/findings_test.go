//go:build findings

package codec

// Regression tests for the bugs FuzzStructured and the resource tests
// found (issue 9). Each fails until its bug is fixed; CI leaves them out
// (build tag findings) until then. Run them with
//
//	go test -tags findings -run TestFinding ./codec
//
// When one passes, drop its knownBugs entry (structfuzz_test.go) and move
// the test out from under the tag.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// decodeNoPanic decodes block, turning a panic into a test failure so that
// the other findings still run.
func decodeNoPanic(t *testing.T, dec *Decoder, block []byte) (rec arrow.RecordBatch, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("Decode panicked: %v", p)
		}
	}()
	return dec.Decode(block)
}

func int32s(v ...int32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

// mapBlock is a one-row map<int32, int32> block holding one entry; the
// entries struct's and the key's validity bitmaps are given.
func mapBlock(entriesValidity, keyValidity []byte) (*arrow.Schema, []byte) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32), Nullable: true}}, nil)
	body := handBody(func(b *blockBuilder) {
		b.word(1)                 // map: 1 row
		b.buffer(nil)             // valid
		b.buffer(int32s(0, 1))    // offsets
		b.word(1)                 // entries: 1 row
		b.buffer(entriesValidity) //
		b.word(1)                 // keys: 1 row
		b.buffer(keyValidity)     //
		b.buffer(int32s(7))       //
		b.word(1)                 // items: 1 row
		b.buffer(nil)             //
		b.buffer(int32s(9))       //
	})
	return schema, handBlock(schema, 1, body, None)
}

// TestFindingNullMapKey: a map whose key is null makes Decode panic in
// arrow-go's NewMapData ("map array keys array should have no nulls",
// arrow-go arrow/array/map.go:72, called from array.MakeFromData at
// codec/decoder.go:122). It must be ErrCorrupt. knownBugs.nullMapKeys.
func TestFindingNullMapKey(t *testing.T) {
	schema, block := mapBlock(nil, []byte{0})
	_, err := decodeNoPanic(t, must(NewDecoder(schema)), block)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("null map key: %v, want ErrCorrupt", err)
	}
}

// TestFindingNullMapEntry: a map whose entries struct has a null row
// panics the same way ("map array child array should have no nulls",
// arrow-go arrow/array/map.go:64). knownBugs.nullMapEntries.
func TestFindingNullMapEntry(t *testing.T) {
	schema, block := mapBlock([]byte{0}, nil)
	_, err := decodeNoPanic(t, must(NewDecoder(schema)), block)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("null map entry: %v, want ErrCorrupt", err)
	}
}

// TestFindingZstdBomb: a zstd chunk declaring 24 raw bytes that
// decompresses to 32 MiB more makes Decode allocate all of it before the
// length check (DecodeAll appends past raw's capacity,
// codec/decompress.go:154): a 3.6 KB block allocates 34 MB; six such chunks
// with WithConcurrency(2) allocate 200 MB, every chunk decompressing after
// the first failed (codec/decompress.go:114-116). knownBugs.zstdBombs.
func TestFindingZstdBomb(t *testing.T) {
	for _, chunks := range []int{1, 6} {
		schema, block := bombBlock(Zstd, chunks, 32<<20)
		r := decodeResource(t, schema, block, WithConcurrency(2))
		if !errors.Is(r.err, ErrCorrupt) {
			t.Errorf("%d chunks: %v, want ErrCorrupt", chunks, r.err)
		}
		if bound := allocBound(r.in, r.declared); r.allocated > bound {
			t.Errorf("%d chunks: a %d-byte bomb allocated %d bytes, the bound is %d", chunks, r.in, r.allocated, bound)
		}
	}
}

// TestFindingEmptyDataBuffers: each empty data buffer of a view node costs
// about 155 heap bytes for its 8 wire bytes (the [][]byte at
// codec/decode_node.go:368, a memory.Buffer and a slot in the buffer list
// per buffer at :408-409), so a 1000-byte zstd block of 2^20 of them
// allocates 160 MB. knownBugs.emptyDataBuffers.
func TestFindingEmptyDataBuffers(t *testing.T) {
	schema, block := emptyBuffersBlock(1<<20, Zstd)
	r := decodeResource(t, schema, block)
	if bound := allocBound(r.in, r.declared); r.allocated > bound {
		t.Errorf("a %d-byte block of empty data buffers allocated %d bytes, the bound is %d", r.in, r.allocated, bound)
	}
}

// TestFindingOverlappingViews: 4096 string views that all cover the same
// 4096 bytes of one data buffer decode, each view's UTF-8 checked on its
// own (codec/decode_node.go:403): 16 MiB of validation for a 120-byte zstd
// block, quadratic in the block. The decoder must refuse such views or
// validate each buffer once; this test counts the bytes the views cover
// and fails if the block is accepted while covering more than 64 per
// block byte (a decoder that validates each buffer once and accepts
// overlapping views needs a counter of bytes validated here instead).
// knownBugs.overlappingViews.
func TestFindingOverlappingViews(t *testing.T) {
	schema, block, covered := overlappingViewsBlock(4096, Zstd)
	r := decodeResource(t, schema, block)
	if r.err == nil && covered > 64*len(block)+1<<20 {
		t.Errorf("accepted %d views covering %d bytes from a %d-byte block", 4096, covered, len(block))
	}
}

// TestFindingQuadraticFingerprint: fingerprinting hashes each nested
// type's Fingerprint() and String(), which hold its whole subtree
// (codec/plan.go:259), so a schema 256 structs deep (11 KB serialized)
// hashes 1 MB. A Reader fingerprints the schema of every stream after the
// first before anything checks its depth (codec/reader.go:205).
// knownBugs.quadraticFingerprint.
func TestFindingQuadraticFingerprint(t *testing.T) {
	schema := deepStructSchema(256)
	var cw countingWriter
	for _, f := range schema.Fields() {
		writeField(&cw, f)
	}
	if n := len(ipcSchema(schema)); cw.n > 64*n {
		t.Errorf("a %d-byte schema hashes %d bytes", n, cw.n)
	}
	// The same through a Reader: a second stream with the deep schema.
	var s bytes.Buffer
	w := must(NewWriter(&s, deepStructSchema(1)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// NewWriter refuses a schema this deep; write the stream by hand.
	sb := ipcSchema(schema)
	var hdr [streamHeaderSize]byte
	copy(hdr[:], streamMagic[:])
	hdr[4] = streamVersion
	binary.LittleEndian.PutUint64(hdr[8:], uint64(len(sb)))
	binary.LittleEndian.PutUint32(hdr[16:], crc32.Checksum(sb, castagnoli))
	s.Write(hdr[:])
	s.Write(sb)
	s.Write(make([]byte, pad8(len(sb))-len(sb)+frameHeaderSize)) // padding, end frame of 0 blocks
	rd, err := NewReader(&s)
	if err != nil {
		t.Fatal(err)
	}
	for rd.Next() {
	}
	if !errors.Is(rd.Err(), ErrSchemaMismatch) {
		t.Errorf("a second stream of another schema: %v, want ErrSchemaMismatch", rd.Err())
	}
}

// TestFindingRunEnds32 (fails on GOARCH=386 only): a run-end encoded array
// of 1 row whose int64 run end is 1 + 2^32 decodes there, because the run
// ends are read through int (runEndReader.at, codec/encode_node.go:301,
// called at codec/decode_node.go:569) and the truncated 1 matches the
// length; on 64-bit platforms it is ErrCorrupt, as it must be.
// knownBugs.runEnds32.
func TestFindingRunEnds32(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "r", Type: arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int8), Nullable: true}}, nil)
	body := handBody(func(b *blockBuilder) {
		b.word(1) // 1 row
		b.word(1) // run ends: 1 run
		b.buffer(nil)
		b.buffer(binary.LittleEndian.AppendUint64(nil, 1+1<<32))
		b.word(1) // values: 1
		b.buffer(nil)
		b.buffer([]byte{7})
	})
	rec, err := decodeNoPanic(t, must(NewDecoder(schema)), handBlock(schema, 1, body, None))
	if err == nil {
		rec.Release()
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("run end 1+2^32 for 1 row: %v, want ErrCorrupt", err)
	}
}
