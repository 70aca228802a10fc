package codec

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/minio/minlz"
	"github.com/pierrec/lz4/v4"
)

// A compressed block's body is a word holding the number of sections k,
// then k sections: a word holding the section's codec (low byte) and raw
// length (the other bytes), then its stored bytes as a buffer. A section
// stored raw (codec None) holds its raw bytes as they are; the others hold
// one LZ4 block or zstd frame. The raw body, laid out as an uncompressed
// block's (with the header flags' transforms applied), is the sections' raw
// bytes one after another. FORMAT.md has the details.
//
// An encoder cuts the raw body at buffer starts (and at the byte planes of
// transposed values), estimates for each piece whether compressing would
// save at least WithMinSavings of it (estimate.go: a look for a constant
// piece, the entropy of a sample's byte histogram and, for pieces of 2 KiB
// or more, a match parse of a sample), stores the others raw, and joins
// neighbouring pieces decided alike into one section. Sections compress
// independently, so WithConcurrency can spread them over goroutines.

// minChunk is the smallest raw section an encoder with concurrency above 1
// splits a long compressed run into: below it a goroutine costs more than it
// saves and compression loses context.
const minChunk = 128 << 10

// minPiece is the smallest piece of raw body an encoder decides on: smaller
// buffers join the piece before them, since a section costs 16 bytes and a
// codec call.
const minPiece = 512

// minDecide is the smallest raw body an encoder cuts into pieces and decides
// on: a smaller one is compressed whole, since deciding on its few small
// pieces cost as much as compressing them (lineitem-64: 67% of the encode
// time), and compressing it takes microseconds anyway.
const minDecide = 64 << 10

// minlzMax is the largest section an encoder compresses with MinLZ, whose
// blocks hold at most 8 MiB.
const minlzMax = minlz.MaxBlockSize &^ 7

// chunkCount returns how many chunks an encoder with concurrency n splits a
// compressed run of size raw bytes into.
func chunkCount(size, n int) int {
	return max(1, min(n, size/minChunk))
}

// compressor compresses block bodies for one Encoder. Its codec state is
// kept across blocks; it is safe for concurrent use.
type compressor struct {
	kind  Compression
	level int
	lz4   *freeList[lz4State]
	zstd  *zstd.Encoder
	// minSavings: compress a piece only if its estimate saves at least
	// this fraction of its bytes.
	minSavings float64
	scratch    *freeList[sectionScratch]
	// Light: the room lightweight sections are encoded in, and the
	// state kept per column across blocks (*plan -> *columnState).
	light *freeList[lightScratch]
	cols  sync.Map
}

func newCompressor(kind Compression, level int, minSavings float64) (*compressor, error) {
	c := &compressor{kind: kind, level: level, minSavings: minSavings,
		scratch: newFreeList(func() *sectionScratch { return new(sectionScratch) })}
	switch kind {
	case Light:
		c.light = newFreeList(func() *lightScratch { return new(lightScratch) })
		c.lz4 = newFreeList(newFastLZ4)
	case LZ4:
		c.lz4 = newFreeList(func() *lz4State {
			if level > 0 {
				return &lz4State{hc: &lz4.CompressorHC{Level: lz4.CompressionLevel(1 << (8 + level))}}
			}
			return newFastLZ4()
		})
	case Zstd:
		lvl := zstd.SpeedDefault
		if level > 0 {
			lvl = zstd.EncoderLevelFromZstd(level)
		}
		// EncodeAll runs on as many goroutines as the zstd encoder has
		// states; an Encoder is shared by goroutines, so give it one per
		// processor.
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl),
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)))
		if err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrUnsupported, err)
		}
		c.zstd = enc
	case MinLZ:
	default:
		return nil, fmt.Errorf("%w: unknown compression %d; want one of %s", ErrUnsupported, uint8(kind), strings.Join(compressionNames[:], ", "))
	}
	return c, nil
}

// bound is the most bytes the section s can take compressed.
func (c *compressor) bound(s section) int {
	n := s.n
	if lightweight(s.codec) {
		return lightRoom(s)
	}
	switch s.codec {
	case codecHuff:
		return c.huffBound(s)
	case LZ4:
		return lz4.CompressBlockBound(n)
	case MinLZ:
		return minlz.MaxEncodedLen(n)
	}
	return c.zstd.MaxEncodedSize(n)
}

// minlzLevel is minlz's level for WithCompressionLevel(level): 0, the
// default, is its fastest (checkLevel allows 0 .. 3).
func minlzLevel(level int) int {
	return max(level, minlz.LevelFastest)
}

// lz4State is the state of one LZ4 compressor: pierrec's fast one (a
// 128 KiB hash table) or, with a level, its high-compression one.
type lz4State struct {
	fast *lz4.Compressor
	hc   *lz4.CompressorHC
}

// newFastLZ4 is an lz4State of pierrec's fast compressor, as Light and
// LZ4 at level 0 use.
func newFastLZ4() *lz4State { return &lz4State{fast: new(lz4.Compressor)} }

// compress compresses src into dst, which has room for c.bound(s) bytes,
// with codec s.codec, st (an LZ4 compressor, nil for zstd and MinLZ) and
// ls (room for the lightweight codecs), and returns the compressed bytes,
// or nil if compressing failed. A Huffman section whose coding does not
// pay becomes its inner section (s.codec changes).
func (c *compressor) compress(st *lz4State, ls *lightScratch, dst, src []byte, s *section) []byte {
	if lightweight(s.codec) {
		return c.notOverLZ4(st, ls, dst, src, s, c.encodeLight(st, ls, dst, src, *s))
	}
	switch s.codec {
	case codecHuff:
		return c.encodeHuff(st, ls, dst, src, s)
	case Zstd:
		return c.zstd.EncodeAll(src, dst[:0])
	case MinLZ:
		z, err := minlz.Encode(dst, src, minlzLevel(c.level))
		if err != nil {
			return nil
		}
		return z
	}
	var n int
	var err error
	if st.hc != nil {
		n, err = st.hc.CompressBlock(src, dst)
	} else {
		n, err = st.fast.CompressBlock(src, dst)
	}
	if err != nil || n == 0 {
		// Cannot happen with a buffer of CompressBlockBound bytes; store
		// the section raw if it does.
		return nil
	}
	return dst[:n]
}

// getState returns an LZ4 compressor for one goroutine, nil for the other
// codecs; putState gives it back.
func (c *compressor) getState() *lz4State {
	if c.lz4 == nil {
		return nil
	}
	return c.lz4.get()
}

func (c *compressor) putState(st *lz4State) {
	if st != nil {
		c.lz4.put(st)
	}
}

// section is one section of a compressed body being written: raw bytes
// [at, at+n) of the raw body, stored raw (codec None) or compressed into z.
type section struct {
	at, n int
	codec Compression
	z     []byte
	// The lightweight codecs: the hint of the buffer the section starts
	// with and the codec's parameters, chosen by planLight; inner is
	// the codec of the section a Huffman section codes.
	inner  Compression
	hint   bufHint
	bp     bitpackChoice
	alp    alpChoice
	fsst   *fsstTable
	planes planesChoice
	rep    repChoice
	rs     *repScratch // the runs or dictionary chooseRepeats or chooseStrDict built, or nil
	lz4    int         // a lightweight section: the bytes LZ4 took for its raw bytes, if notOverLZ4 compressed them (else 0), or the least LZ4 may take if its trial stopped
}

// sectionScratch is the reusable room an encoder plans sections in.
type sectionScratch struct {
	marks  []int     // where the writer started buffers and byte planes
	secs   []section // the sections
	split  []section // room for the sections split for concurrency
	hints  []bufHint // what the buffer at each mark holds (Light)
	xf     flags     // the transforms the body went through
	out    []byte    // the compressed sections' bytes
	words  []uint64  // room for the lightweight codecs' choices
	planes []byte    // room for byte planes and Light's LZ4 trials
	joined []byte    // Light's LZ4 sections joined into one (joinLZ4)
	// reps is the room run-length and dictionary sections are tried in;
	// the first repsUsed hold the runs or dictionaries of chosen sections
	// (section.rs), which encodeLight reuses.
	reps     []*repScratch
	repsUsed int
	hist     [256]uint32
	reach    reachTable // Light: lz4MayWin's look for repeats across sections
}

// planSections cuts body at ss.marks into pieces of at least minPiece
// bytes, decides which to compress from their estimates and appends to
// ss.secs[:0] the sections of neighbouring pieces decided alike, compressed runs split
// into chunkCount(n, concurrency) sections. It returns the sections.
func (c *compressor) planSections(ss *sectionScratch, body []byte, concurrency int) []section {
	if c.kind == Light {
		return c.split(ss, c.planLight(ss, body), concurrency)
	}
	secs, marks := ss.secs[:0], ss.marks
	if len(body) < minDecide && c.minSavings < 1 {
		marks = nil
	}
	add := func(at, end int, compress bool) {
		codec := None
		if compress {
			codec = c.kind
		}
		if k := len(secs); k > 0 && secs[k-1].codec == codec {
			secs[k-1].n = end - secs[k-1].at
			return
		}
		secs = append(secs, section{at: at, n: end - at, codec: codec})
	}
	start := 0
	for i, m := range marks {
		if m-start < minPiece || len(body)-m < minPiece || i+1 < len(marks) && marks[i+1] == m {
			continue
		}
		add(start, m, c.worth(&ss.hist, body[start:m]))
		start = m
	}
	if start < len(body) {
		add(start, len(body), marks == nil && c.minSavings < 1 || c.worth(&ss.hist, body[start:]))
	}
	return c.split(ss, secs, concurrency)
}

// split returns secs with compressed runs split into chunkCount(n,
// concurrency) sections, and MinLZ's sections to its largest block; the
// lightweight sections stay whole.
func (c *compressor) split(ss *sectionScratch, secs []section, concurrency int) []section {
	if concurrency <= 1 && c.kind != MinLZ {
		return secs
	}
	// Split into ss.split, whose room is swapped with secs' for the next
	// block.
	split := ss.split[:0]
	for _, s := range secs {
		k := chunkCount(s.n, concurrency)
		if c.kind == MinLZ {
			k = max(k, (s.n+minlzMax-1)/minlzMax)
		}
		if s.codec == None || s.codec > MinLZ || k == 1 {
			split = append(split, s)
			continue
		}
		size := pad8((s.n + k - 1) / k)
		for at := s.at; at < s.at+s.n; at += size {
			split = append(split, section{at: at, n: min(size, s.at+s.n-at), codec: s.codec})
		}
	}
	ss.split = secs
	return split
}

// compressSections compresses the sections of body whose codec is not
// None into out (grown as needed and returned), on up to concurrency
// goroutines. A section that does not shrink is stored raw after all. It
// returns the compressed body's size.
func (c *compressor) compressSections(secs []section, body, out []byte, concurrency int) ([]byte, int) {
	need, ncomp := 0, 0
	for _, s := range secs {
		if s.codec != None {
			need += c.bound(s)
			ncomp++
		}
	}
	if cap(out) < need {
		out = make([]byte, need)
	}
	out = out[:need]
	if runs := min(concurrency, ncomp); runs > 1 {
		// Cut the sections into runs of about equal compressed raw bytes,
		// one goroutine each (the last on this one): a block may have
		// dozens of small sections (wide100: 50), too small for a
		// goroutine of their own.
		total := 0
		for _, s := range secs {
			if s.codec != None {
				total += s.n
			}
		}
		var wg sync.WaitGroup
		i, acc, at, from, fromAt := 0, 0, 0, 0, 0
		for r := 1; r < runs; r++ {
			for target := total / runs * r; i < len(secs) && acc < target; i++ {
				if s := secs[i]; s.codec != None {
					acc += s.n
					at += c.bound(s)
				}
			}
			if i > from {
				run, runOut := secs[from:i], out[fromAt:at:at]
				wg.Go(func() { c.compressRun(run, body, runOut) })
			}
			from, fromAt = i, at
		}
		c.compressRun(secs[from:], body, out[fromAt:])
		wg.Wait()
	} else {
		c.compressRun(secs, body, out)
	}
	stored := 8
	for i := range secs {
		s := &secs[i]
		if s.codec != None && (s.z == nil || len(s.z) >= s.n) {
			s.codec, s.z = None, nil
		}
		if s.codec == None {
			stored += 8 + bufferSize(s.n)
		} else {
			stored += 8 + bufferSize(len(s.z))
		}
	}
	return out, stored
}

// compressRun compresses the sections of secs whose codec is not None, in
// order, into out, each into the next c.bound(s.n) bytes, and sets their z.
func (c *compressor) compressRun(secs []section, body, out []byte) {
	st := c.getState()
	var ls *lightScratch
	if c.light != nil {
		ls = c.light.get()
		defer c.light.put(ls)
	}
	at := 0
	for i := range secs {
		s := &secs[i]
		if s.codec == None {
			continue
		}
		n := c.bound(*s)
		s.z = c.compress(st, ls, out[at:at+n:at+n], body[s.at:s.at+s.n], s)
		at += n
	}
	c.putState(st)
}

// putSections writes the compressed body of secs after the header.
func putSections(w *writer, secs []section, body []byte) {
	w.word(uint64(len(secs)))
	for _, s := range secs {
		w.word(uint64(s.n)<<8 | uint64(s.codec))
		if s.codec == None {
			w.bytes(body[s.at : s.at+s.n])
		} else {
			w.bytes(s.z)
		}
	}
}
