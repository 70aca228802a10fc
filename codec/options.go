package codec

import (
	"fmt"
	"strconv"

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
	// MinLZ block format (github.com/minio/minlz, LevelFastest): on the
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
	// table (trained per column and kept across blocks), and everything
	// else with LZ4 where LZ4 saves. Its blocks are about zstd's size at
	// about LZ4's encode speed.
	Light Compression = 4
)

// String returns the compression's name: "none", "lz4", "zstd", "minlz" or
// "light".
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
	return "compression(" + strconv.Itoa(int(c)) + ")"
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

// WithCompressionLevel sets the compression level: for zstd the zstd level
// (1 fastest .. 22 smallest; 0 the library's default), for LZ4 a level above
// 0 selects the high-compression compressor with that depth (1..9).
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
