package flight

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/arrowpack/arrowpack/codec"
)

// The marker an arrowpack FlightData carries at the start of its
// app_metadata (the user's own app_metadata, if any, follows it):
//
//	0  [4]byte  magic "APKF"
//	4  uint8    version (1)
//	5  uint8    flags: bit 0 set on the last part of a block
//	6  [2]byte  reserved, zero
//	8  uint64   length of the whole block in bytes, little-endian
//	16 uint32   CRC32C (Castagnoli) of the whole block, little-endian
//	20 [4]byte  reserved, zero
//
// The checksum makes any change to a block on its way an error, as the
// frame checksum does in an arrowpack stream file.
//
// A block is carried in the data_body of one FlightData, or of several in a
// row when it is larger than the message size limit, each with a marker
// giving the same block length; the parts are joined in order. An arrowpack
// FlightData has an empty data_header: a message with both an IPC header and
// the marker is refused.
const (
	markerSize    = 24
	markerVersion = 1
	flagLast      = 1
)

var markerMagic = []byte("APKF")

// DefaultMaxMessageSize is the largest data_body a Writer puts in one
// FlightData unless SetMaxMessageSize says otherwise: gRPC's default 4 MiB
// receive limit less room for the rest of the message, so that a block of
// any size goes through with default client and server options.
const DefaultMaxMessageSize = 4<<20 - 64<<10

// marker is a parsed arrowpack marker.
type marker struct {
	last     bool
	blockLen uint64
	crc      uint32
}

// appendMarker appends the marker of a part of a block of blockLen bytes
// whose CRC32C is crc.
func appendMarker(dst []byte, last bool, blockLen int, crc uint32) []byte {
	var m [markerSize]byte
	copy(m[:], markerMagic)
	m[4] = markerVersion
	if last {
		m[5] = flagLast
	}
	binary.LittleEndian.PutUint64(m[8:], uint64(blockLen))
	binary.LittleEndian.PutUint32(m[16:], crc)
	return append(dst, m[:]...)
}

// hasMarker reports whether app_metadata claims an arrowpack block.
func hasMarker(meta []byte) bool { return bytes.HasPrefix(meta, markerMagic) }

// parseMarker parses the marker at the start of meta, which hasMarker
// accepted, and returns it with the user's app_metadata that follows it.
func parseMarker(meta []byte) (marker, []byte, error) {
	if len(meta) < markerSize {
		return marker{}, nil, fmt.Errorf("%w: arrowpack marker in app_metadata is %d bytes, want at least %d", codec.ErrCorrupt, len(meta), markerSize)
	}
	if v := meta[4]; v != markerVersion {
		return marker{}, nil, fmt.Errorf("%w: arrowpack marker version %d, this reader knows %d", codec.ErrUnsupported, v, markerVersion)
	}
	if meta[5]&^flagLast != 0 || meta[6] != 0 || meta[7] != 0 || binary.LittleEndian.Uint32(meta[20:]) != 0 {
		return marker{}, nil, fmt.Errorf("%w: arrowpack marker has unknown flags or reserved bytes set", codec.ErrCorrupt)
	}
	m := marker{
		last:     meta[5]&flagLast != 0,
		blockLen: binary.LittleEndian.Uint64(meta[8:]),
		crc:      binary.LittleEndian.Uint32(meta[16:]),
	}
	var user []byte
	if len(meta) > markerSize {
		user = meta[markerSize:]
	}
	return m, user, nil
}
