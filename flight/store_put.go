package flight

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// wireSlack is how much longer than its raw body a compressed block may be
// on the wire (its section table, sections stored raw), as the Reader
// allows.
const wireSlack = 1 << 20

// limitedPut is the stream a DoPut reads through: it enforces the server's
// per-block cap and takes the memory of each block from the server's
// budget before the Reader allocates for it. Every message is charged its
// bytes as it arrives (gRPC has allocated them; its receive limit bounds
// one message); the last part of an arrowpack block is also charged twice
// the block's raw size, for the batch decoded from it and the block
// encoded again for the store. That raw size is read from the block's
// header when the block came in one message (codec.ReadBlockInfo, before
// any decoding); a block split over several messages is charged the cap,
// since its header is in the Reader's joined buffer. DoPut gives the share
// back once the batch is stored.
type limitedPut struct {
	aflight.FlightService_DoPutServer
	maxBlock int
	share    *share
	inSplit  bool // parts of a split block have arrived, not its last
	ipc      bool // the last data message was an IPC one
}

// Recv receives the next message and charges it.
func (p *limitedPut) Recv() (*aflight.FlightData, error) {
	fd, err := p.FlightService_DoPutServer.Recv()
	if err != nil || fd == nil {
		return fd, err
	}
	wire := int64(len(fd.DataHeader) + len(fd.DataBody) + len(fd.AppMetadata))
	if err := p.share.take(wire, "a DoPut message"); err != nil {
		return nil, err
	}
	if !hasMarker(fd.AppMetadata) {
		if len(fd.DataHeader) > 0 {
			p.ipc = true
		}
		return fd, nil
	}
	p.ipc = false
	m, _, err := parseMarker(fd.AppMetadata)
	if err != nil {
		return fd, nil // the Reader refuses it with the reason
	}
	if m.blockLen > uint64(p.maxBlock)+wireSlack {
		return nil, p.overCap(fmt.Sprintf("a block of %d bytes", m.blockLen))
	}
	if !m.last {
		p.inSplit = true
		return fd, nil
	}
	raw := int64(p.maxBlock)
	if !p.inSplit {
		info, err := codec.ReadBlockInfo(fd.DataBody)
		if err != nil {
			return fd, nil // the Reader refuses it with the reason
		}
		if info.RawSize > p.maxBlock {
			return nil, p.overCap(fmt.Sprintf("a block of %d bytes once decompressed", info.RawSize))
		}
		raw = int64(info.RawSize)
	}
	p.inSplit = false
	if err := p.share.take(2*raw, "decoding a DoPut block"); err != nil {
		return nil, err
	}
	return fd, nil
}

// overCap is the error of a block over the per-block cap.
func (p *limitedPut) overCap(what string) error {
	return status.Errorf(codes.ResourceExhausted, "arrowpack flight: DoPut sent %s, over the server's -max-block of %d bytes", what, p.maxBlock)
}

// batchBytes returns the bytes of the buffers of rec, children and
// dictionaries included (a buffer shared by columns counts once per use).
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

// dataBytes returns the bytes of the buffers of d and its children and
// dictionary.
func dataBytes(d arrow.ArrayData) int64 {
	if d == nil {
		return 0
	}
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += dataBytes(dict)
	}
	return n
}
