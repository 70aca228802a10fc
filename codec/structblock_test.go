package codec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// builtBlock is a block made by buildBlock and what its builder knows of it.
type builtBlock struct {
	block []byte
	// raw is the block uncompressed: its header as Encoder.write puts it
	// and its raw body, transforms applied. Encoder.write of the decoded
	// batch with the same transforms gives it back when canonical.
	raw      []byte
	rows     int
	xf       flags
	declared int // the raw body length the header declares
	bad, odd []string
	mismatch bool // the fingerprint is not the schema's: ErrSchemaMismatch
	kinds    map[kind]int
}

func (bb *builtBlock) canonical() bool { return len(bb.bad) == 0 && len(bb.odd) == 0 && !bb.mismatch }

// buildBlock builds a block of schema (whose plans are plans) from c.
func buildBlock(c *choices, schema *arrow.Schema, plans []*plan) builtBlock {
	comp := Compression(c.intn(4))
	if comp == 3 {
		comp = Light // sections of the lightweight codecs (section_light_struct_test.go)
	}
	var xf flags
	if comp != None {
		xf = flags(c.intn(4)) // any mix of the transforms is a valid block
	}
	b := newBlockBuilder(c, xf)
	rows := b.rows()
	for i, p := range plans {
		b.node(p, schema.Field(i), rows, mayBeNull)
	}
	switch c.hostile(2) {
	case 0:
		b.markBad("8 bytes after the last column")
		b.word(0)
	case 1:
		if len(b.body) >= 8 {
			b.markBad("body cut short by a word")
			b.body = b.body[:len(b.body)-8]
			b.cut = true
		}
	}
	h := header{compression: None, fingerprint: fingerprint(schema), rows: rows, stored: len(b.body), raw: len(b.body)}
	raw := make([]byte, headerSize+len(b.body))
	h.put(raw)
	copy(raw[headerSize:], b.body)
	stored := b.body
	if comp != None && len(b.body) > 0 {
		// An empty raw body has no section to hold it: an encoder writes
		// it uncompressed.
		stored, h.raw = b.wrapCompressed(comp, b.body)
		h.compression, h.flags = comp, xf
	}
	h.stored = len(stored)
	out := builtBlock{raw: raw, rows: rows, xf: xf, declared: h.raw, kinds: b.kinds}
	var patch func(block []byte)
	switch c.hostile(10) {
	case 9:
		// Flags that do not say what the buffers went through: the
		// decoder undoes the wrong transforms, which may still give a
		// sound batch.
		if comp != None {
			b.markOdd("header flags %d over buffers transformed with %d", xf^flagTranspose, xf)
			h.flags ^= flagTranspose
		}
	case 0:
		out.mismatch = true
		h.fingerprint ^= 1 << c.intn(64)
	case 1:
		h.rows++
		if len(plans) == 0 {
			b.markOdd("rows+1 in a block of no columns")
		} else {
			b.markBad("header rows one more than the nodes'")
		}
	case 2:
		b.markBad("2^31 rows")
		patch = func(block []byte) { binary.LittleEndian.PutUint64(block[16:], 1<<31) }
	case 3:
		b.markBad("stored length 8 more than the body")
		h.stored += 8
	case 4:
		b.markBad("raw length 8 more than the body's")
		h.raw += 8
	case 5:
		b.markBad("bad magic")
		patch = func(block []byte) { block[3] = '2' }
	case 6:
		b.markBad("format version 2")
		patch = func(block []byte) { block[4] = 2 }
	case 7:
		b.markBad("unknown flag")
		patch = func(block []byte) { block[6] |= 0x10 }
	case 8:
		if comp == None {
			b.markBad("flags on an uncompressed block")
			h.flags = flagLengths
		} else {
			b.markBad("unknown compression")
			h.compression = Light + 1
		}
	}
	out.block = make([]byte, headerSize+len(stored))
	h.put(out.block)
	copy(out.block[headerSize:], stored)
	if patch != nil {
		patch(out.block)
	}
	out.bad, out.odd = b.bad, b.odd
	return out
}

// wrapCompressed returns the stored body of a block whose raw body is raw
// compressed with comp, and the raw length its header declares. This is
// the only code that knows the layout of a compressed body (FORMAT.md,
// "Compressed bodies"): a section count, then per section a word holding
// its codec (low byte) and raw length, and its stored bytes as a buffer.
// Sections are compressed with comp or, by a harmless choice, stored raw.
// Hostile choices: raw lengths that lie, sections that decompress to more
// than they declare (bombs), corrupt compressed bytes, wrong counts and
// lengths, bytes after the sections, a codec no version knows.
func (b *blockBuilder) wrapCompressed(comp Compression, raw []byte) ([]byte, int) {
	k := 1 + b.c.intn(3)
	step := pad8((len(raw) + k - 1) / k)
	chunks := make([]testChunk, k)
	declared := len(raw)
	h := b.c.hostile(11)
	victim := b.c.intn(k)
	// Sections are never empty: fewer of them when raw is short.
	k = min(k, (len(raw)+step-1)/step)
	chunks = chunks[:k]
	victim = min(victim, k-1)
	for i := range chunks {
		part := raw[min(len(raw), i*step):min(len(raw), (i+1)*step)]
		chunks[i].r = len(part)
		chunks[i].codec = comp
		if i == victim {
			switch {
			case h == 2:
				extra := 8 << b.c.intn(20)
				b.markBad("chunk decompressing to %d bytes more than it declares", extra)
				part = append(cloneBytes(part), make([]byte, extra)...)
			case h == 9:
				extra := 8 << b.c.intn(20)
				if b.cut && extra == 8 {
					// Eight zero bytes may give back the word cut from
					// the body: a bad choice that can make up for another.
					b.markOdd("chunk of 8 zero bytes more, declared, in a body cut short by a word")
				} else {
					b.markBad("chunk of %d zero bytes more, declared", extra)
				}
				part = append(cloneBytes(part), make([]byte, extra)...)
				chunks[i].r += extra
				declared += extra
			}
		}
		if h != 3 && b.c.intn(4) == 0 {
			chunks[i].codec, chunks[i].z = None, cloneBytes(part)
			if len(part) != chunks[i].r {
				b.markBad("raw section of %d bytes declaring %d", len(part), chunks[i].r)
			}
			continue
		}
		if comp == Light {
			chunks[i].codec, chunks[i].z = b.lightChunk(part)
			continue
		}
		chunks[i].z = compressForTest(comp, part)
	}
	c := &chunks[victim]
	switch {
	case h == 0:
		b.markBad("chunk raw length 8 more than its data")
		c.r += 8
	case h == 1 && c.r >= 8:
		b.markBad("chunk raw length 8 less than its data")
		c.r -= 8
	case h == 3 && len(c.z) > 0:
		b.markOdd("a compressed byte changed")
		c.z[b.c.intn(len(c.z))] ^= byte(1 + b.c.intn(255))
	case h == 7:
		b.markBad("header raw length 8 more than the chunks'")
		declared += 8
	}
	count := uint64(k)
	switch {
	case h == 4:
		b.markBad("chunk count one more")
		count++
	case h == 5:
		b.markBad("chunk count 0")
		count = 0
	}
	if h == 6 {
		b.markBad("compressed length 8 more")
		chunks[victim].pad = 8
	}
	if h == 8 {
		b.markBad("a word after the last chunk")
	}
	if h == 10 {
		b.markBad("a section codec no version knows")
		chunks[victim].codec = maxCodec + 1
	}
	return chunkTable(count, chunks, h == 8), declared
}

// testChunk is one chunk of a compressed body: the raw length it declares,
// its compressed bytes, and how many bytes more than len(z) its length word
// says (hostile when not 0).
type testChunk struct {
	r     int
	codec Compression
	z     []byte
	pad   int
}

// chunkTable lays out a compressed body: the section count, then per
// section a word holding its codec and raw length (r<<8 | codec) and its
// stored bytes as a buffer; trailer adds a word after the last section. With wrapCompressed, the only code that knows this
// layout: adapt both when the compression format changes.
func chunkTable(count uint64, chunks []testChunk, trailer bool) []byte {
	w := newBlockBuilder(newChoices(nil), 0)
	w.word(count)
	for _, ch := range chunks {
		w.word(uint64(ch.r)<<8 | uint64(ch.codec))
		w.word(uint64(len(ch.z) + ch.pad))
		w.body = append(w.body, ch.z...)
		w.body = append(w.body, make([]byte, pad8(len(ch.z))-len(ch.z))...)
	}
	if trailer {
		w.word(0)
	}
	return w.body
}

func cloneBytes(b []byte) []byte { return append([]byte(nil), b...) }

var testZstd = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return enc
})

// compressForTest compresses src as one LZ4 block or zstd frame.
func compressForTest(comp Compression, src []byte) []byte {
	if comp == Zstd {
		return testZstd().EncodeAll(src, nil)
	}
	z := make([]byte, lz4.CompressBlockBound(len(src)))
	n, err := lz4.CompressBlock(src, z, nil)
	if err == nil && n > 0 {
		return z[:n]
	}
	return lz4Literals(src)
}

// lz4Literals returns an LZ4 block holding src as one literal run, for
// input LZ4 cannot compress.
func lz4Literals(src []byte) []byte {
	z := []byte{byte(min(len(src), 15)) << 4}
	if rest := len(src) - 15; rest >= 0 {
		for ; rest >= 255; rest -= 255 {
			z = append(z, 255)
		}
		z = append(z, byte(rest))
	}
	return append(z, src...)
}

// builtStream is a stream made by buildStream and what its builder knows.
type builtStream struct {
	stream   []byte
	blocks   []builtBlock // the blocks of every stream in it, in order
	bad, odd []string
	mismatch bool // a later stream's schema differs, or a block's fingerprint
}

func (bs *builtStream) canonical() bool {
	if len(bs.bad) > 0 || len(bs.odd) > 0 || bs.mismatch {
		return false
	}
	for i := range bs.blocks {
		if !bs.blocks[i].canonical() {
			return false
		}
	}
	return true
}

// ipcSchema serializes schema as a stream's schema bytes.
func ipcSchema(schema *arrow.Schema) []byte {
	var sb bytes.Buffer
	iw := ipc.NewWriter(&sb, ipc.WithSchema(schema))
	if err := iw.Close(); err != nil {
		panic(err)
	}
	return sb.Bytes()
}

// buildStream builds one stream of schema (of 0 to 3 blocks), sometimes
// followed by another, with hostile stream headers, frames and end frames.
func buildStream(c *choices, schema *arrow.Schema, plans []*plan) builtStream {
	var s builtStream
	w := newBlockBuilder(c, 0)
	for part := 0; part == 0 || (part < 3 && c.oneIn(3)); part++ {
		sch := schema
		if part > 0 && c.oneIn(4) {
			other := drawSchema(c)
			if fingerprint(other) != fingerprint(schema) {
				s.mismatch = true
			}
			sch = other
		}
		sb := ipcSchema(sch)
		n, crc := len(sb), crc32.Checksum(sb, castagnoli)
		var hdr [streamHeaderSize]byte
		copy(hdr[:], streamMagic[:])
		hdr[4] = streamVersion
		switch h := c.hostile(6); h {
		case 0:
			w.markBad("schema length 8 more")
			n += 8
		case 1:
			w.markBad("schema checksum wrong")
			crc ^= 1
		case 2:
			w.markBad("stream version 2")
			hdr[4] = 2
		case 3:
			w.markBad("stream header reserved byte set")
			hdr[5+c.intn(3)] = 1
		case 4:
			// The schema message without its end-of-stream marker.
			if n >= 8 {
				w.markOdd("schema cut by 8 bytes, checksum matching")
				n -= 8
				crc = crc32.Checksum(sb[:n], castagnoli)
			}
		case 5:
			if n > 0 {
				w.markOdd("a schema byte changed, checksum matching")
				sb = cloneBytes(sb)
				sb[c.intn(n)] ^= byte(1 + c.intn(255))
				crc = crc32.Checksum(sb, castagnoli)
			}
		}
		binary.LittleEndian.PutUint64(hdr[8:], uint64(n))
		binary.LittleEndian.PutUint32(hdr[16:], crc)
		w.body = append(w.body, hdr[:]...)
		w.body = append(w.body, sb...)
		w.body = append(w.body, make([]byte, pad8(len(sb))-len(sb))...)
		blocks := c.intn(4)
		schPlans, err := newPlans(sch)
		if err != nil {
			panic(err)
		}
		for range blocks {
			bb := buildBlock(c, sch, schPlans)
			s.blocks = append(s.blocks, bb)
			var fh [frameHeaderSize]byte
			size := uint64(len(bb.block))
			crc := crc32.Checksum(bb.block, castagnoli)
			switch c.hostile(5) {
			case 0:
				w.markBad("frame length 8 more")
				size += 8
			case 1:
				w.markBad("frame length not a multiple of 8")
				size++
			case 2:
				w.markBad("huge frame length")
				size = 1 << 62
			case 3:
				w.markBad("frame checksum wrong")
				crc ^= 1 << c.intn(32)
			case 4:
				w.markBad("frame reserved byte set")
				fh[12+c.intn(4)] = 1
			}
			binary.LittleEndian.PutUint64(fh[:], size)
			binary.LittleEndian.PutUint32(fh[8:], crc)
			w.body = append(w.body, fh[:]...)
			w.body = append(w.body, bb.block...)
		}
		count := uint64(blocks)
		switch c.hostile(3) {
		case 0:
			w.markBad("end frame count one more")
			count++
		case 1:
			w.markBad("no end frame")
			return s.done(w)
		case 2:
			if len(w.body) > 0 {
				w.markBad("stream cut short")
				w.body = w.body[:len(w.body)-1-c.intn(min(len(w.body), 16))]
				return s.done(w)
			}
		}
		w.word(0)
		w.word(count)
	}
	return s.done(w)
}

func (s builtStream) done(w *blockBuilder) builtStream {
	s.stream, s.bad, s.odd = w.body, w.bad, w.odd
	return s
}
