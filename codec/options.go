package codec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Compression names the codec that compresses a block's body.
type Compression uint8

// The compressions a block can carry. The value is stored in the block
// header, so the numbers never change.
const (
	None Compression = 0 // the body is stored as it is
	LZ4  Compression = 1 // LZ4 block format (github.com/pierrec/lz4/v4)
	Zstd Compression = 2 // Zstandard (github.com/klauspost/compress/zstd)
	// MinLZ block format (github.com/minio/minlz, LevelFastest unless
	// WithCompressionLevel picks another): on the
	// benchmark batches it encodes plus decodes in 0.84x LZ4's time
	// (geometric mean; encode 0.46-0.80x, decode 1.7-4.8x) at 0.91x its
	// size. Pick it when encode time matters more than decode time (a
	// block written once, read once); LZ4 when blocks are read many
	// times; zstd for the smallest blocks.
	MinLZ Compression = 3
	// Light stores each buffer with the lightweight encoding that knows
	// its data (section_light.go, FORMAT.md): integers bit-packed with a
	// frame of reference (or as deltas when sorted), floats that came
	// from decimals as ALP integers, string data with FSST's symbol
	// table (trained per column and kept across blocks), integers that
	// pack badly byte-transposed in one LZ4 block, as the LZ4 encoder
	// holds them, and everything else with LZ4 where LZ4 saves. No
	// section is stored larger than LZ4 would store it (but for up to 7
	// blocks of a column whose data changes in a way its sample does not
	// show: FORMAT.md), and a block where LZ4's one section is smaller is
	// written as LZ4's; after such a block
	// an Encoder writes the next 1, 2, 4, ... up to 16 blocks as LZ4's
	// without planning Light's, and tries Light again after each wait, as
	// it does for a column's encodings that lost to LZ4
	// (light_streak.go). On real tables
	// (docs/light.md) its blocks are about zstd's size and it encodes in
	// about 1.2 times LZ4's time, less than zstd's on almost all of them.
	Light Compression = 4
)

// String returns the compression's name: "none", "lz4", "zstd", "minlz" or
// "light", which ParseCompression reads back; a value that names no
// compression prints as Go would write it, "Compression(9)".
func (c Compression) String() string {
	switch c {
	case None:
		return "none"
	case LZ4:
		return "lz4"
	case Zstd:
		return "zstd"
	case MinLZ:
		return "minlz"
	case Light:
		return "light"
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}

// compressionNames is what ParseCompression accepts, in the order of the
// compressions' values.
var compressionNames = [...]string{None: "none", LZ4: "lz4", Zstd: "zstd", MinLZ: "minlz", Light: "light"}

// ParseCompression returns the compression named s, one of the names
// String returns ("none", "lz4", "zstd", "minlz", "light"), in any case.
// Any other s is refused with an error wrapping ErrUnsupported.
func ParseCompression(s string) (Compression, error) {
	for c, name := range compressionNames {
		if strings.EqualFold(s, name) {
			return Compression(c), nil
		}
	}
	return 0, fmt.Errorf("%w: ParseCompression(%q): no such compression; want one of %s",
		ErrUnsupported, s, strings.Join(compressionNames[:], ", "))
}

// checkLevel refuses a compression level (WithCompressionLevel) that
// compression c does not take; name is the constructor called.
func checkLevel(name string, c Compression, level int) error {
	hi := 0
	switch c {
	case Zstd:
		hi = 22
	case LZ4:
		hi = 9
	case MinLZ:
		hi = 3
	case None, Light:
		if level != 0 {
			return fmt.Errorf("%w: %s: WithCompressionLevel(%d): compression %s has no levels, only 0", ErrUnsupported, name, level, c)
		}
		return nil
	}
	if level < 0 || level > hi {
		return fmt.Errorf("%w: %s: WithCompressionLevel(%d) is out of range for %s: 0 (the default) to %d", ErrUnsupported, name, level, c, hi)
	}
	return nil
}

// Option configures an Encoder, a Decoder, a Writer or a Reader.
type Option func(*config)

type config struct {
	compression Compression
	level       int
	maxBlock    int
	mem         memory.Allocator // nil: decode aliases the block
	transforms  flags            // applied to the buffers of compressed blocks
	concurrency int              // goroutines per block for compression, at least 1
	err         error            // the first option given a value it cannot take
	minSavings  float64          // see WithMinSavings
	blockRows   int              // Writer: coalesce batches into blocks of up to this many rows
	blockSize   int              // Writer: coalesce batches into blocks of up to about this many bytes
	checksum    bool             // Encoder: end each block in a CRC32C of itself
	memLimit    int              // Partitioner: the bytes of pending rows, 0 for no limit
}

// DefaultMaxBlockSize is the largest block body a Decoder or Reader accepts
// unless WithMaxBlockSize says otherwise.
const DefaultMaxBlockSize = 256 << 20

// WithCompression makes an Encoder or Writer compress each block's body with
// c. Decoders and Readers read the compression from each block and need no
// option.
func WithCompression(c Compression) Option {
	return func(cfg *config) { cfg.compression = c }
}

// WithCompressionLevel sets the compression level of an Encoder or Writer;
// 0, the default, is each codec's fast default. What else each accepts:
//
//   - Zstd: the zstd level, 1 (fastest) .. 22 (smallest), mapped to the
//     nearest of klauspost/compress's four encoder levels;
//   - LZ4: 1 .. 9 selects the high-compression compressor with that depth;
//   - MinLZ: 1 fastest (what 0 also gives), 2 balanced, 3 smallest
//     (minlz.LevelFastest, LevelBalanced, LevelSmallest);
//   - Light and None: only 0, since nothing they do has a level.
//
// NewEncoder and NewWriter refuse any other level, naming the levels the
// compression accepts, with an error wrapping ErrUnsupported. Decoders and
// Readers ignore the option (a block says how it was compressed).
func WithCompressionLevel(level int) Option {
	return func(cfg *config) { cfg.level = level }
}

// WithMaxBlockSize caps the size of a block body, once decompressed, that a
// Decoder or Reader accepts, and so the memory a length read from the input
// can make it allocate. The default is DefaultMaxBlockSize. n must be
// positive: there is no way to lift the cap, and NewDecoder and NewReader
// refuse 0 or less with an error wrapping ErrUnsupported.
func WithMaxBlockSize(n int) Option {
	return func(cfg *config) {
		if n <= 0 {
			cfg.fail(fmt.Errorf("%w: WithMaxBlockSize(%d): the cap must be positive", ErrUnsupported, n))
			return
		}
		cfg.maxBlock = n
	}
}

// WithConcurrency lets one compressed block use up to n goroutines: an
// Encoder or Writer splits a block body of at least 2 x 128 KiB into up to n
// chunks that it compresses in parallel, and a Decoder or Reader
// decompresses the chunks of a block in parallel. The default, 1, keeps each
// block on the calling goroutine, which suits callers that already encode
// many blocks at once. Blocks differ with n (they have as many chunks) but
// any Decoder reads any of them. Values below 1 count as 1.
func WithConcurrency(n int) Option {
	return func(cfg *config) { cfg.concurrency = n }
}

// WithMinSavings sets how much an Encoder or Writer with compression must
// expect to save on a piece of a block (a buffer, or a byte plane of
// transposed values) before it spends compressor time on it: the piece is
// compressed only when a byte histogram of a sample estimates that it
// shrinks by at least fraction f of its bytes, and is stored raw otherwise.
// The default is DefaultMinSavings (1/8). 0 compresses every piece (as
// whole-block compression did); 1 or more stores every piece raw, which
// makes the blocks uncompressed; NaN is refused with an error wrapping
// ErrUnsupported. Decoders need no option.
func WithMinSavings(f float64) Option {
	return func(cfg *config) {
		if f != f {
			cfg.fail(fmt.Errorf("%w: WithMinSavings(NaN)", ErrUnsupported))
			return
		}
		cfg.minSavings = f
	}
}

// WithBlockChecksum makes an Encoder or Writer, when on is true, end every
// block in a CRC32C (Castagnoli, Checksum) of its header and body, and set
// a header flag saying so (FORMAT.md): Decode then refuses, with an error
// wrapping ErrCorrupt, a block whose bytes no longer match it. It costs 8
// bytes a block and a pass over it at CRC32C's speed on each side. Blocks
// without it decode as before. A stream's frames and Flight's messages
// carry CRCs of their own (docs/checksums.md); the option is for blocks
// sent or stored outside them. Decoders need no option.
func WithBlockChecksum(on bool) Option {
	return func(cfg *config) { cfg.checksum = on }
}

// WithAllocator makes Decode copy every buffer into memory allocated from
// mem, so that the decoded batch owns its bytes and the block can be reused
// at once. Without it, decoded arrays alias the block, which must then stay
// unmodified for as long as the batch is in use.
func WithAllocator(mem memory.Allocator) Option {
	return func(cfg *config) { cfg.mem = mem }
}

// defaultTransforms are the transforms compressed blocks get: the ones the
// benchmark batches showed to make blocks smaller (see FORMAT.md).
var defaultTransforms = flagLengths | flagTranspose

// newConfig applies opts to the defaults; it fails if an option was given
// a value it cannot take.
func newConfig(opts []Option) (config, error) {
	cfg := config{maxBlock: DefaultMaxBlockSize, transforms: defaultTransforms, concurrency: 1,
		minSavings: DefaultMinSavings}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.concurrency = max(cfg.concurrency, 1)
	if cfg.compression == Light {
		// The lightweight codecs read integers as they are: bit-packing
		// takes the place of transposing them.
		cfg.transforms &^= flagTranspose
	}
	return cfg, cfg.err
}

// fail records the first invalid option value, which newConfig returns.
func (cfg *config) fail(err error) {
	if cfg.err == nil {
		cfg.err = err
	}
}
