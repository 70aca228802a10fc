package flight

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/arrowpack/arrowpack/codec"
)

// verifySchema checks the IPC schema message hdr (a FlightData's
// data_header) and returns its schema. arrow-go's IPC reader trusts the
// counts in a schema flatbuffer and can be made to allocate without bound
// (a fatal error no recover catches), so the message, framed as the IPC
// stream of one message, goes through codec.ReadSchema, which verifies
// every offset, count and depth before arrow-go parses it. Errors wrap
// codec.ErrCorrupt.
func verifySchema(hdr []byte) (*arrow.Schema, error) {
	meta := len(hdr) + (8-len(hdr)%8)%8
	stream := make([]byte, 0, 8+meta)
	stream = binary.LittleEndian.AppendUint32(stream, 0xFFFFFFFF)
	stream = binary.LittleEndian.AppendUint32(stream, uint32(meta))
	stream = append(stream, hdr...)
	stream = append(stream, make([]byte, meta-len(hdr))...)
	schema, err := codec.ReadSchema(stream)
	if err != nil {
		return nil, fmt.Errorf("arrowpack flight: schema message: %w", err)
	}
	return schema, nil
}
