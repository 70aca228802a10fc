//go:build findings

package codec

// Regression tests for the bugs FuzzStructured and the resource tests
// found (issue 9). Each fails until its bug is fixed; CI leaves them out
// (build tag findings) until then. Run them with
//
//	go test -tags findings -run TestFinding ./codec
//
// When one passes, drop its knownBugs entry (structfuzz_test.go) and
// the test, or move it out from under the tag if no other test pins the
// fix. (Fixed already, and pinned by hardening_test.go and the resource
// tests: null map keys and entries, overlapping views, empty view data
// buffers, 64-bit run ends on 386.)

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

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

// TestFindingQuadraticFingerprint: fingerprinting hashes each nested
// type's Fingerprint() and String(), which hold its whole subtree
// (codec/plan.go:260), so a schema 256 structs deep (11 KB serialized)
// hashes 1 MB. A Reader fingerprints the schema of every stream after the
// first before anything checks its depth (codec/reader.go:248).
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
