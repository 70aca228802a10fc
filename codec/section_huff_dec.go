package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/huff0"
)

// huffTable is a huff0 decoding table kept between sections, and the
// bytes it was read from: a section whose codes start with the same bytes
// has the same table (a table's first byte says how long it is), which
// need not be read again (encoders reuse tables: section_huff_enc.go).
type huffTable struct {
	s     huff0.Scratch
	bytes []byte
}

// huffTableSet is the tables of the last few Huffman sections one
// goroutine decoded: a block may hold several (a small block's validity
// bitmaps), each coded with a table its encoder keeps, and reading a table
// costs huff0 as much as decoding a few KB.
type huffTableSet struct {
	t    [huffKept]huffTable
	next int // the table the next new one replaces
}

// huffTables keeps the tables of recent sections.
var huffTables = sync.Pool{New: func() any { return new(huffTableSet) }}

// huffInner is room to decode a Huffman section's inner section into, at
// most huff0.BlockSizeMax bytes.
var huffInner = sync.Pool{New: func() any { return new([]byte) }}

// huffSection is the header of a Huffman section (section_huff_enc.go has
// the layout): the inner section's codec, the number of huff0 streams, the
// inner section's stored length m and the huff0 table and streams.
type huffSection struct {
	inner   Compression
	streams int
	m       int
	coded   []byte
}

// parseHuff reads and checks the header of a Huffman section of src
// decoding to r raw bytes: an inner codec that may be inside one (not zstd,
// not Huffman), 1 or 4 streams, the reserved bytes 0, an inner section of
// 1 to huff0.BlockSizeMax bytes that its codes can hold (a code takes at
// least a bit: m <= 8 x the coded bytes) and, for raw inner bytes, exactly
// r of them; then that the inner codec can produce r bytes from m
// (sectionMaxRaw).
func parseHuff(r uint64, src []byte) (huffSection, error) {
	if len(src) < huffHeader+1 {
		return huffSection{}, corruptf("huffman section of %d bytes, shorter than its header and a table", len(src))
	}
	h := huffSection{inner: Compression(src[0]), streams: int(src[1]),
		m: int(binary.LittleEndian.Uint32(src[4:])), coded: src[huffHeader:]}
	if !huffInnerOK(h.inner) || h.streams != 1 && h.streams != 4 || src[2]|src[3] != 0 {
		return huffSection{}, corruptf("huffman section of inner codec %d in %d streams (flags %d)", h.inner, h.streams, binary.LittleEndian.Uint16(src[2:]))
	}
	if h.m == 0 || h.m > huff0.BlockSizeMax || uint64(h.m) > 8*uint64(len(h.coded)) {
		return huffSection{}, corruptf("huffman section of %d coded bytes says they decode to %d (at most %d)", len(h.coded), h.m, min(huff0.BlockSizeMax, 8*len(h.coded)))
	}
	if h.inner == None && uint64(h.m) != r {
		return huffSection{}, corruptf("huffman section of %d raw bytes codes %d", r, h.m)
	}
	if max := sectionMaxRaw(h.inner, h.m); r > max {
		return huffSection{}, corruptf("huffman section of an inner section of codec %d of %d bytes declares %d raw bytes; the most it can produce is %d", h.inner, h.m, r, max)
	}
	return h, nil
}

// huffInnerOK reports whether a Huffman section may hold a section of codec
// c: any known codec but zstd (which entropy-codes already), Huffman, the
// string dictionary and front-coded strings (whose raw bytes their stored
// ones do not bound as the Huffman section's bound assumes) and transposed
// LZ4, which only notOverLZ4 writes, never under Huffman.
func huffInnerOK(c Compression) bool {
	return c <= maxCodec && c != Zstd && c != codecHuff && c != codecStrDict && c != codecFront && c != codecTransposed
}

// checkHuff checks, before anything is allocated for it, that a Huffman
// section storing src can decode to n raw bytes (parseHuff).
func checkHuff(n uint64, src []byte) error {
	_, err := parseHuff(n, src)
	return err
}

// unhuff fills raw, exactly, from a Huffman section: it decodes the inner
// section's m bytes (into raw itself when they are raw bytes, else into
// pooled room of m bytes; huff0 writes no further than the room's
// capacity and must fill it exactly), checks the inner section as the
// section table's are checked (checkSection) and decodes it.
func (d *decompressor) unhuff(raw, src []byte) error {
	h, err := parseHuff(uint64(len(raw)), src)
	if err != nil {
		return err
	}
	dst := raw[:0:len(raw)]
	if h.inner != None {
		room := huffInner.Get().(*[]byte)
		defer huffInner.Put(room)
		if cap(*room) < h.m {
			*room = make([]byte, h.m)
		}
		dst = (*room)[:0:h.m]
	}
	out, err := h.decode(dst)
	if err != nil || h.inner == None {
		return err
	}
	if err := checkSection(h.inner, uint64(len(raw)), out); err != nil {
		return fmt.Errorf("inside a huffman section: %w", err)
	}
	if err := d.decompressBody(raw, out, h.inner); err != nil {
		return fmt.Errorf("inside a huffman section: %w", err)
	}
	return nil
}

// decode decodes h's codes into dst, which has room for exactly its m
// inner bytes, and returns them.
func (h huffSection) decode(dst []byte) ([]byte, error) {
	ts := huffTables.Get().(*huffTableSet)
	defer huffTables.Put(ts)
	ht, coded, err := ts.read(h.coded)
	if err != nil {
		return nil, err
	}
	var out []byte
	if h.streams == 1 {
		out, err = ht.s.Decoder().Decompress1X(dst, coded)
	} else {
		out, err = ht.s.Decoder().Decompress4X(dst, coded)
	}
	if err != nil {
		return nil, corruptf("huffman codes: %v", err)
	}
	if len(out) != h.m || &out[0] != &dst[:1][0] {
		return nil, corruptf("huffman codes decode to %d bytes, the section says %d", len(out), h.m)
	}
	return out, nil
}

// read returns the table src starts with and the codes after it: a kept
// table whose bytes src starts with, else the one read from src into the
// kept table read longest ago.
func (ts *huffTableSet) read(src []byte) (*huffTable, []byte, error) {
	for i := range ts.t {
		if t := &ts.t[i]; len(t.bytes) > 0 && bytes.HasPrefix(src, t.bytes) {
			return t, src[len(t.bytes):], nil
		}
	}
	t := &ts.t[ts.next]
	ts.next = (ts.next + 1) % len(ts.t)
	coded, err := t.read(src)
	return t, coded, err
}

// read makes t the table read from src and returns the codes after it.
func (t *huffTable) read(src []byte) ([]byte, error) {
	t.bytes = t.bytes[:0]
	_, coded, err := huff0.ReadTable(src, &t.s)
	if err != nil {
		return nil, corruptf("huffman table: %v", err)
	}
	t.bytes = append(t.bytes, src[:len(src)-len(coded)]...)
	return coded, nil
}
