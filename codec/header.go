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
//	6  uint16   flags: the transforms applied before compression, and
//	            flagChecksum: an 8-byte CRC32C trailer after the body
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

	// flagChecksum: the block ends in an 8-byte trailer holding the
	// CRC32C of every byte before it (header and body), then 4 zero
	// bytes (WithBlockChecksum). It is not a transform, so an
	// uncompressed block may carry it; the top bit keeps it clear of
	// transforms to come.
	flagChecksum flags = 1 << 15

	transformFlags = flagLengths | flagTranspose
	knownFlags     = transformFlags | flagChecksum
)

// blockTrailer is the length of the trailer of a block with flagChecksum.
const blockTrailer = 8

type header struct {
	compression Compression
	flags       flags // the transforms: flagChecksum is in checksum
	checksum    bool  // the block ends in a CRC32C trailer (flagChecksum)
	fingerprint uint64
	rows        int
	stored      int
	raw         int
}

func (h *header) put(b []byte) {
	copy(b, magic[:])
	b[4] = formatVersion
	b[5] = byte(h.compression)
	f := h.flags
	if h.checksum {
		f |= flagChecksum
	}
	binary.LittleEndian.PutUint16(b[6:], uint16(f))
	binary.LittleEndian.PutUint64(b[8:], h.fingerprint)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.rows))
	binary.LittleEndian.PutUint64(b[24:], uint64(h.stored))
	binary.LittleEndian.PutUint64(b[32:], uint64(h.raw))
}

// parseHeader reads and checks the header of block, which must hold exactly
// one block: with flagChecksum its header, body and trailer (the trailer's
// CRC is checked by checkTrailer, not here).
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
	h.checksum, h.flags = h.flags&flagChecksum != 0, h.flags&transformFlags
	if h.flags != 0 && h.compression == None {
		return h, corruptf("flags %#x on an uncompressed block", uint16(h.flags))
	}
	body := len(block) - headerSize
	if h.checksum {
		if body < blockTrailer {
			return h, corruptf("block of %d bytes is too short for its checksum trailer", len(block))
		}
		body -= blockTrailer
	}
	h.fingerprint = binary.LittleEndian.Uint64(block[8:])
	rows := binary.LittleEndian.Uint64(block[16:])
	stored := binary.LittleEndian.Uint64(block[24:])
	raw := binary.LittleEndian.Uint64(block[32:])
	if rows > maxLength {
		return h, corruptf("%d rows is above the limit of %d", rows, maxLength)
	}
	if stored != uint64(body) {
		return h, corruptf("header says the body is %d bytes, the block holds %d", stored, body)
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

// checkTrailer checks the CRC32C trailer of block, whose header h says it
// has one, and returns the block without it: its header and body.
func checkTrailer(block []byte, h header) ([]byte, error) {
	n := headerSize + h.stored
	if !h.checksum {
		return block, nil
	}
	t := block[n:]
	want, zero := binary.LittleEndian.Uint32(t), binary.LittleEndian.Uint32(t[4:])
	if got := Checksum(block[:n]); got != want || zero != 0 {
		return nil, corruptf("block checksum %#08x, its trailer says %#08x (and %#x in its reserved bytes)", got, want, zero)
	}
	return block[:n:n], nil
}

// sealBlock sets flagChecksum in the header of the block that starts at
// b[start:] and ends b, and appends its CRC32C trailer.
func sealBlock(b []byte, start int) []byte {
	f := binary.LittleEndian.Uint16(b[start+6:])
	binary.LittleEndian.PutUint16(b[start+6:], f|uint16(flagChecksum))
	b = binary.LittleEndian.AppendUint32(b, Checksum(b[start:]))
	return binary.LittleEndian.AppendUint32(b, 0)
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
	// Checksummed reports whether the block ends in a CRC32C of itself
	// (WithBlockChecksum), which Decode checks; ReadBlockInfo does not.
	Checksummed bool
	// Sections is the number of sections of a compressed body (0 for an
	// uncompressed block); RawSections of them are stored raw, holding
	// RawBytes bytes, because compressing them was estimated not to pay.
	Sections, RawSections, RawBytes int
}

// String describes the block in a line.
func (b BlockInfo) String() string {
	sum := ""
	if b.Checksummed {
		sum = ", checksummed"
	}
	if b.Compression == None {
		return fmt.Sprintf("%d rows, %d bytes (%s, %d raw)%s", b.Rows, b.Size, b.Compression, b.RawSize, sum)
	}
	xf := ""
	if b.Transformed {
		xf = ", transformed"
	}
	return fmt.Sprintf("%d rows, %d bytes (%s in %d section(s), %d stored raw holding %d bytes%s, %d raw)%s",
		b.Rows, b.Size, b.Compression, b.Sections, b.RawSections, b.RawBytes, xf, b.RawSize, sum)
}

// ReadBlockInfo reads the header of block, which must be exactly one block,
// and checks its lengths and section table without decompressing or
// decoding the body, or checking its checksum. Errors wrap ErrCorrupt (and ErrUnsupported for a
// section codec this version does not know).
func ReadBlockInfo(block []byte) (BlockInfo, error) {
	h, err := parseHeader(block)
	if err != nil {
		return BlockInfo{}, err
	}
	info := BlockInfo{Rows: h.rows, Size: len(block), RawSize: headerSize + h.raw,
		Compression: h.compression, Transformed: h.flags != 0, Checksummed: h.checksum}
	if h.compression != None {
		// The section table, checked as the decoder checks it.
		err := eachSection(block[headerSize:headerSize+h.stored], h.raw, func(s sectionIn) error {
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
