package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// BenchmarkCompressionLayout measures two ways to compress a block body,
// side by side, on every randbatch bench shape:
//
//   - whole: the raw body (length words, buffers and padding) as one LZ4
//     block or one zstd frame, as compress.go does today; it counts 8 bytes
//     of framing (the compressed length word).
//   - perbuffer: each Arrow buffer of the body on its own, as Arrow IPC
//     does, stored raw when compressing does not shrink it; it counts 16
//     bytes of framing per buffer (raw and compressed length words).
//
// Both report B/block, the compressed size with that framing. perbuffer's
// size leaves out the body bytes outside the buffers (node length words,
// the length words of empty buffers, alignment padding); unbuf-B reports
// them, raw, for whoever wants to add them back. Decompression writes into
// a preallocated body-sized destination: whole fills all of it, perbuffer
// writes each buffer at its place in the body.

// layoutCase is one bench shape's raw body and where its buffers lie in it.
type layoutCase struct {
	name string
	body []byte
	bufs []bufRange // sorted by offset, disjoint, non-empty
}

type bufRange struct{ off, n int }

func (c *layoutCase) buf(i int) []byte {
	r := c.bufs[i]
	return c.body[r.off : r.off+r.n : r.off+r.n]
}

// bufBytes is the sum of the buffers' lengths.
func (c *layoutCase) bufBytes() int {
	n := 0
	for _, r := range c.bufs {
		n += r.n
	}
	return n
}

var (
	layoutOnce  sync.Once
	layoutCases []*layoutCase
	layoutErr   error
)

func loadLayoutCases(tb testing.TB) []*layoutCase {
	tb.Helper()
	benchCases := loadBenchCases(tb)
	layoutOnce.Do(func() {
		for _, bc := range benchCases {
			c, err := newLayoutCase(bc.name, bc.rec)
			if err != nil {
				layoutErr = fmt.Errorf("%s: %w", bc.name, err)
				return
			}
			layoutCases = append(layoutCases, c)
		}
	})
	if layoutErr != nil {
		tb.Fatal(layoutErr)
	}
	return layoutCases
}

// newLayoutCase encodes rec uncompressed and finds its buffers in the body
// by decoding the block zero-copy and walking the arrays.
func newLayoutCase(name string, rec arrow.RecordBatch) (*layoutCase, error) {
	enc, err := NewEncoder(rec.Schema())
	if err != nil {
		return nil, err
	}
	dec, err := NewDecoder(rec.Schema())
	if err != nil {
		return nil, err
	}
	sized, err := enc.Append(nil, rec)
	if err != nil {
		return nil, err
	}
	// Encode again into 8-byte aligned memory, so that the decoder can use
	// every buffer in place.
	words := make([]uint64, (len(sized)+7)/8)
	block := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:0:len(sized)]
	if block, err = enc.Append(block, rec); err != nil {
		return nil, err
	}
	if !bytes.Equal(block, sized) {
		return nil, fmt.Errorf("two encodings of the batch differ")
	}
	c := &layoutCase{name: name, body: block[40:]}

	out, err := dec.Decode(block)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(c.body)))
	var walk func(d arrow.ArrayData) error
	walk = func(d arrow.ArrayData) error {
		for _, b := range d.Buffers() {
			if b == nil || b.Len() == 0 {
				continue
			}
			bs := b.Bytes()
			p := uintptr(unsafe.Pointer(unsafe.SliceData(bs)))
			if p < base || p+uintptr(len(bs)) > base+uintptr(len(c.body)) {
				return fmt.Errorf("a %s buffer of %d bytes is not in the block", d.DataType(), len(bs))
			}
			off := int(p - base)
			// Every buffer is preceded by a word holding its length.
			if off < 8 || binary.LittleEndian.Uint64(c.body[off-8:]) != uint64(len(bs)) {
				return fmt.Errorf("a %s buffer of %d bytes at %d is not a whole buffer of the block", d.DataType(), len(bs), off)
			}
			c.bufs = append(c.bufs, bufRange{off, len(bs)})
		}
		for _, ch := range d.Children() {
			if err := walk(ch); err != nil {
				return err
			}
		}
		// Dictionary returns a nil *array.Data, not a nil interface, when
		// there is none.
		if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
			if err := walk(dict); err != nil {
				return err
			}
		}
		return nil
	}
	for _, col := range out.Columns() {
		if err := walk(col.Data()); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(c.bufs, func(a, b bufRange) int { return a.off - b.off })
	c.bufs = slices.Compact(c.bufs) // a buffer shared by two arrays counts once
	for i := 1; i < len(c.bufs); i++ {
		if prev := c.bufs[i-1]; prev.off+prev.n > c.bufs[i].off {
			return nil, fmt.Errorf("buffers at %d and %d overlap", prev.off, c.bufs[i].off)
		}
	}
	if len(c.bufs) == 0 {
		return nil, fmt.Errorf("no buffers")
	}
	return c, nil
}

// layoutCodec compresses and decompresses one unit (the whole body, or one
// buffer), reusing its state across calls. It is not safe for concurrent
// use.
type layoutCodec interface {
	// bound is the room compress may need for n bytes.
	bound(n int) int
	// compress writes src compressed at the start of dst, which has room
	// for bound(len(src)) bytes, and returns its length, or 0 when
	// compressing does not make src smaller.
	compress(dst, src []byte) int
	// decompress fills dst, exactly, from src.
	decompress(dst, src []byte) error
}

type lz4LayoutCodec struct{ c lz4.Compressor }

func (*lz4LayoutCodec) bound(n int) int { return lz4.CompressBlockBound(n) }

func (l *lz4LayoutCodec) compress(dst, src []byte) int {
	n, err := l.c.CompressBlock(src, dst)
	if err != nil || n >= len(src) {
		return 0
	}
	return n
}

func (*lz4LayoutCodec) decompress(dst, src []byte) error {
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return err
	}
	if n != len(dst) {
		return fmt.Errorf("lz4: %d bytes decompressed, want %d", n, len(dst))
	}
	return nil
}

type zstdLayoutCodec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// newZstdLayoutCodec makes the encoder and decoder as compress.go does.
func newZstdLayoutCodec() (*zstdLayoutCodec, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	if err != nil {
		return nil, err
	}
	return &zstdLayoutCodec{enc: enc, dec: dec}, nil
}

func (z *zstdLayoutCodec) bound(n int) int { return z.enc.MaxEncodedSize(n) }

func (z *zstdLayoutCodec) compress(dst, src []byte) int {
	out := z.enc.EncodeAll(src, dst[:0])
	if len(out) >= len(src) {
		return 0
	}
	if &out[0] != &dst[0] {
		panic("zstd: EncodeAll did not write into the room given")
	}
	return len(out)
}

func (z *zstdLayoutCodec) decompress(dst, src []byte) error {
	got, err := z.dec.DecodeAll(src, dst[:0])
	if err != nil {
		return err
	}
	if len(got) != len(dst) || (len(got) > 0 && &got[0] != &dst[0]) {
		return fmt.Errorf("zstd: %d bytes decompressed, want %d in place", len(got), len(dst))
	}
	return nil
}

func (z *zstdLayoutCodec) close() {
	z.enc.Close()
	z.dec.Close()
}

// newLayoutCodec returns the codec named lz4 or zstd and a function that
// frees it.
func newLayoutCodec(tb testing.TB, name string) (layoutCodec, func()) {
	tb.Helper()
	switch name {
	case "lz4":
		return &lz4LayoutCodec{}, func() {}
	case "zstd":
		z, err := newZstdLayoutCodec()
		if err != nil {
			tb.Fatal(err)
		}
		return z, z.close
	}
	tb.Fatalf("unknown codec %q", name)
	return nil, nil
}

var (
	layoutCodecs  = []string{"lz4", "zstd"}
	layoutLayouts = []string{"whole", "perbuffer"}
)

// packedPart is where one unit lies in a packed output: n bytes at off,
// compressed, or stored as is when raw.
type packedPart struct {
	off, n int
	raw    bool
}

// packed is a compressed body in one layout: the units' bytes one after
// another in out, described by parts (one for whole, one per buffer for
// perbuffer).
type packed struct {
	whole bool
	out   []byte
	parts []packedPart
}

func newPacked(c *layoutCase, codec layoutCodec, whole bool) *packed {
	p := &packed{whole: whole}
	room := 0
	if whole {
		room = codec.bound(len(c.body))
		p.parts = make([]packedPart, 1)
	} else {
		for _, r := range c.bufs {
			room += max(codec.bound(r.n), r.n)
		}
		p.parts = make([]packedPart, len(c.bufs))
	}
	p.out = make([]byte, max(room, len(c.body)))
	return p
}

// compress fills p from c's body.
func (p *packed) compress(c *layoutCase, codec layoutCodec) {
	if p.whole {
		p.parts[0] = compressUnit(codec, p.out, 0, c.body)
		return
	}
	pos := 0
	for i := range c.bufs {
		part := compressUnit(codec, p.out, pos, c.buf(i))
		p.parts[i] = part
		pos += part.n
	}
}

func compressUnit(codec layoutCodec, out []byte, pos int, src []byte) packedPart {
	n := codec.compress(out[pos:], src)
	if n == 0 {
		return packedPart{off: pos, n: copy(out[pos:], src), raw: true}
	}
	return packedPart{off: pos, n: n}
}

// size is the compressed body's size with its framing: 8 bytes for whole,
// 16 per buffer for perbuffer.
func (p *packed) size() int {
	framing := 16
	if p.whole {
		framing = 8
	}
	n := 0
	for _, part := range p.parts {
		n += framing + part.n
	}
	return n
}

// decompress writes the units back into body, a body-sized destination:
// all of it for whole, each buffer at its place for perbuffer.
func (p *packed) decompress(c *layoutCase, codec layoutCodec, body []byte) error {
	if p.whole {
		return decompressUnit(codec, body[:len(c.body):len(c.body)], p.out, p.parts[0])
	}
	for i, r := range c.bufs {
		if err := decompressUnit(codec, body[r.off:r.off+r.n:r.off+r.n], p.out, p.parts[i]); err != nil {
			return err
		}
	}
	return nil
}

func decompressUnit(codec layoutCodec, dst, out []byte, part packedPart) error {
	src := out[part.off : part.off+part.n]
	if part.raw {
		if copy(dst, src) != len(dst) || len(src) != len(dst) {
			return fmt.Errorf("raw unit of %d bytes for %d", len(src), len(dst))
		}
		return nil
	}
	return codec.decompress(dst, src)
}

func TestCompressionLayoutRoundTrip(t *testing.T) {
	for _, c := range loadLayoutCases(t) {
		for _, cn := range layoutCodecs {
			for _, layout := range layoutLayouts {
				t.Run(fmt.Sprintf("shape=%s/codec=%s/layout=%s", c.name, cn, layout), func(t *testing.T) {
					codec, done := newLayoutCodec(t, cn)
					defer done()
					whole := layout == "whole"
					p := newPacked(c, codec, whole)
					// Twice, so that reused codec state and output are
					// exercised as the benchmark does.
					for round := range 2 {
						p.compress(c, codec)
						// Fill the destination with garbage, so that a
						// unit not written shows.
						dst := bytes.Repeat([]byte{0xa5}, len(c.body))
						if err := p.decompress(c, codec, dst); err != nil {
							t.Fatalf("round %d: %v", round, err)
						}
						if whole {
							if !bytes.Equal(dst, c.body) {
								t.Fatalf("round %d: the body does not round-trip", round)
							}
						} else {
							for i := range c.bufs {
								r := c.bufs[i]
								if !bytes.Equal(dst[r.off:r.off+r.n], c.buf(i)) {
									t.Fatalf("round %d: buffer %d (%d bytes at %d) does not round-trip", round, i, r.n, r.off)
								}
							}
						}
						// The packed units must be at most their raw size,
						// and not overlap in out.
						end := 0
						for i, part := range p.parts {
							if part.off != end {
								t.Fatalf("part %d at %d, want %d", i, part.off, end)
							}
							end += part.n
						}
						if !whole && p.size() > 16*len(c.bufs)+c.bufBytes() {
							t.Fatalf("perbuffer size %d above raw %d", p.size(), 16*len(c.bufs)+c.bufBytes())
						}
						if whole && p.size() > 8+len(c.body) {
							t.Fatalf("whole size %d above raw %d", p.size(), 8+len(c.body))
						}
					}
					t.Logf("body %d B, %d buffers (%d B), %s: %d B/block", len(c.body), len(c.bufs), c.bufBytes(), layout, p.size())
				})
			}
		}
	}
}

func BenchmarkCompressionLayout(b *testing.B) {
	for _, c := range loadLayoutCases(b) {
		for _, cn := range layoutCodecs {
			for _, layout := range layoutLayouts {
				whole := layout == "whole"
				name := fmt.Sprintf("shape=%s/codec=%s/layout=%s", c.name, cn, layout)
				report := func(b *testing.B, p *packed) {
					b.ReportMetric(float64(p.size()), "B/block")
					b.ReportMetric(float64(len(c.bufs)), "bufs")
					b.ReportMetric(float64(len(c.body)-c.bufBytes()), "unbuf-B")
				}
				b.Run(name+"/op=compress", func(b *testing.B) {
					codec, done := newLayoutCodec(b, cn)
					defer done()
					p := newPacked(c, codec, whole)
					p.compress(c, codec) // warm the codec state
					b.ReportAllocs()
					b.SetBytes(int64(len(c.body)))
					for b.Loop() {
						p.compress(c, codec)
					}
					report(b, p)
				})
				b.Run(name+"/op=decompress", func(b *testing.B) {
					codec, done := newLayoutCodec(b, cn)
					defer done()
					p := newPacked(c, codec, whole)
					p.compress(c, codec)
					dst := make([]byte, len(c.body))
					if err := p.decompress(c, codec, dst); err != nil { // warm
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.SetBytes(int64(len(c.body)))
					for b.Loop() {
						if err := p.decompress(c, codec, dst); err != nil {
							b.Fatal(err)
						}
					}
					report(b, p)
				})
			}
		}
	}
}
