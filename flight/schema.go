package flight

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/codec"
)

// verifySchema checks the IPC schema message hdr (a FlightData's
// data_header) and returns its schema. arrow-go's IPC reader trusts the
// counts in a schema flatbuffer and can be made to allocate without bound
// (a fatal error no recover catches), so the message is first verified by
// the codec's stream reader: it is wrapped, as FORMAT.md describes, into the
// header of an arrowpack stream (magic, version, schema length, CRC32C of
// the schema, the schema as an IPC stream of the one message) and read with
// codec.NewReader, whose schema verifier checks every offset, count and
// depth before arrow-go parses it. Errors wrap codec.ErrCorrupt.
func verifySchema(hdr []byte) (*arrow.Schema, error) {
	meta := len(hdr) + (8-len(hdr)%8)%8
	ipcStream := make([]byte, 0, 8+meta+8)
	ipcStream = binary.LittleEndian.AppendUint32(ipcStream, 0xFFFFFFFF)
	ipcStream = binary.LittleEndian.AppendUint32(ipcStream, uint32(meta))
	ipcStream = append(ipcStream, hdr...)
	ipcStream = append(ipcStream, make([]byte, meta-len(hdr))...)
	ipcStream = binary.LittleEndian.AppendUint32(ipcStream, 0xFFFFFFFF)
	ipcStream = binary.LittleEndian.AppendUint32(ipcStream, 0)

	stream := make([]byte, 24, 24+len(ipcStream)+8)
	copy(stream, "APKS")
	stream[4] = 1 // stream format version
	binary.LittleEndian.PutUint64(stream[8:], uint64(len(ipcStream)))
	binary.LittleEndian.PutUint32(stream[16:], checksum(ipcStream))
	stream = append(stream, ipcStream...) // already a multiple of 8
	r, err := codec.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil, fmt.Errorf("arrowpack flight: schema message: %w", err)
	}
	defer r.Release()
	return r.Schema(), nil
}
