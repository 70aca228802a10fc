package codec

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The block header: 40 bytes, little-endian.
//
//	0  [4]byte  magic "APK1"
//	4  uint8    format version (1)
//	5  uint8    compression of the body (None, LZ4, Zstd, MinLZ)
//	6  uint16   flags: the transforms applied before compression
//	8  uint64   schema fingerprint
//	16 uint64   number of rows
//	24 uint64   stored body length: the bytes after the header
//	32 uint64   raw body length: the body's length once decompressed
const (
	headerSize    = 40
	formatVersion = 1
)

var magic = [4]byte{'A', 'P', 'K', '1'}

// flags are the transforms a compressed block's buffers went through before
// compression, to make them compress better. An uncompressed block has none:
// its buffers are used in place.
type flags uint16

const (
	// flagLengths: offsets of binary, string, list and map arrays (32- and
	// 64-bit) are stored as a 0 then the lengths of the values.
	flagLengths flags = 1 << iota
	// flagTranspose: fixed-width values of 2, 4, 8 or 16 bytes (run ends
	// excepted) are stored byte-transposed, all first bytes, then all
	// second bytes, and so on.
	flagTranspose

	knownFlags = flagLengths | flagTranspose
)

type header struct {
	compression Compression
	flags       flags
	fingerprint uint64
	rows        int
	stored      int
	raw         int
}

func (h *header) put(b []byte) {
	copy(b, magic[:])
	b[4] = formatVersion
	b[5] = byte(h.compression)
	binary.LittleEndian.PutUint16(b[6:], uint16(h.flags))
	binary.LittleEndian.PutUint64(b[8:], h.fingerprint)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.rows))
	binary.LittleEndian.PutUint64(b[24:], uint64(h.stored))
	binary.LittleEndian.PutUint64(b[32:], uint64(h.raw))
}

// parseHeader reads and checks the header of block, which must hold exactly
// one block.
func parseHeader(block []byte) (header, error) {
	var h header
	if len(block) < headerSize {
		return h, corruptf("block of %d bytes is shorter than its %d-byte header", len(block), headerSize)
	}
	if [4]byte(block[:4]) != magic {
		return h, corruptf("bad magic %q, want %q", block[:4], magic[:])
	}
	if block[4] != formatVersion {
		return h, corruptf("format version %d, this library reads %d", block[4], formatVersion)
	}
	h.compression = Compression(block[5])
	if h.compression > Light {
		return h, corruptf("unknown compression %d", block[5])
	}
	h.flags = flags(binary.LittleEndian.Uint16(block[6:]))
	if h.flags&^knownFlags != 0 {
		return h, corruptf("unknown flags %#x", uint16(h.flags&^knownFlags))
	}
	if h.flags != 0 && h.compression == None {
		return h, corruptf("flags %#x on an uncompressed block", uint16(h.flags))
	}
	h.fingerprint = binary.LittleEndian.Uint64(block[8:])
	rows := binary.LittleEndian.Uint64(block[16:])
	stored := binary.LittleEndian.Uint64(block[24:])
	raw := binary.LittleEndian.Uint64(block[32:])
	if rows > maxLength {
		return h, corruptf("%d rows is above the limit of %d", rows, maxLength)
	}
	if stored != uint64(len(block)-headerSize) {
		return h, corruptf("header says the body is %d bytes, the block holds %d", stored, len(block)-headerSize)
	}
	if h.compression == None && raw != stored {
		return h, corruptf("uncompressed body of %d bytes says its raw length is %d", stored, raw)
	}
	if raw%8 != 0 || raw > maxBlockBody {
		return h, corruptf("raw body length %d is not a multiple of 8 at most %d", raw, maxBlockBody)
	}
	h.rows, h.stored, h.raw = int(rows), int(stored), int(raw)
	return h, nil
}

// maxBlockBody bounds a block's raw body so that its length fits an int on
// every platform.
const maxBlockBody = math.MaxInt &^ 7

// BlockInfo describes a block from its header.
type BlockInfo struct {
	Rows        int         // rows of the batch
	Size        int         // bytes of the block, header included
	RawSize     int         // bytes of the block once decompressed
	Compression Compression // how the body is compressed
	// Transformed reports whether the buffers went through the transforms
	// FORMAT.md describes (offsets as lengths, byte transposition) before
	// they were compressed.
	Transformed bool
	// Sections is the number of sections of a compressed body (0 for an
	// uncompressed block); RawSections of them are stored raw, holding
	// RawBytes bytes, because compressing them was estimated not to pay.
	Sections, RawSections, RawBytes int
}

// String describes the block in a line.
func (b BlockInfo) String() string {
	if b.Compression == None {
		return fmt.Sprintf("%d rows, %d bytes (%s, %d raw)", b.Rows, b.Size, b.Compression, b.RawSize)
	}
	xf := ""
	if b.Transformed {
		xf = ", transformed"
	}
	return fmt.Sprintf("%d rows, %d bytes (%s in %d section(s), %d stored raw holding %d bytes%s, %d raw)",
		b.Rows, b.Size, b.Compression, b.Sections, b.RawSections, b.RawBytes, xf, b.RawSize)
}

// ReadBlockInfo reads the header of block, which must be exactly one block,
// and checks its lengths and section table without decompressing or
// decoding the body. Errors wrap ErrCorrupt (and ErrUnsupported for a
// section codec this version does not know).
func ReadBlockInfo(block []byte) (BlockInfo, error) {
	h, err := parseHeader(block)
	if err != nil {
		return BlockInfo{}, err
	}
	info := BlockInfo{Rows: h.rows, Size: headerSize + h.stored, RawSize: headerSize + h.raw,
		Compression: h.compression, Transformed: h.flags != 0}
	if h.compression != None {
		// The section table, checked as the decoder checks it.
		err := eachSection(block[headerSize:], h.raw, func(s sectionIn) error {
			info.Sections++
			if s.codec == None {
				info.RawSections++
				info.RawBytes += s.raw
			}
			return checkRawLen(s)
		})
		if err != nil {
			return BlockInfo{}, err
		}
	}
	return info, nil
}
