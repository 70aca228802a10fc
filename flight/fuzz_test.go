package flight

import (
	"encoding/binary"
	"testing"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/measure"
)

// encodeMessages serialises FlightData for the fuzzer: for each, the
// lengths of header, app_metadata and body (uint32 each) and the bytes.
func encodeMessages(msgs []*aflight.FlightData) []byte {
	var b []byte
	for _, m := range msgs {
		for _, f := range [][]byte{m.DataHeader, m.AppMetadata, m.DataBody} {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(f)))
			b = append(b, f...)
		}
	}
	return b
}

// decodeMessages is encodeMessages' inverse, cutting lengths to the bytes
// left.
func decodeMessages(b []byte) []*aflight.FlightData {
	var msgs []*aflight.FlightData
	for len(b) > 0 {
		var f [3][]byte
		for i := range f {
			if len(b) < 4 {
				b = nil
				break
			}
			n := min(int(binary.LittleEndian.Uint32(b)), len(b)-4)
			f[i], b = b[4:4+n], b[4+n:]
		}
		msgs = append(msgs, &aflight.FlightData{DataHeader: f[0], AppMetadata: f[1], DataBody: f[2]})
	}
	return msgs
}

// FuzzReader feeds a Reader arbitrary FlightData: it must end with a batch
// or an error each time, never panic.
func FuzzReader(f *testing.F) {
	recs := lineitemBatches(50, 3)
	defer batches.Release(recs)
	for _, comp := range []codec.Compression{codec.None, codec.LZ4} {
		var m memStream
		w, err := NewWriter(&m, recs[0].Schema(), codec.WithCompression(comp))
		if err != nil {
			f.Fatal(err)
		}
		w.SetMaxMessageSize(1 << 10)
		for _, rec := range recs {
			w.WriteWithAppMetadata(rec, []byte("m"))
		}
		f.Add(encodeMessages(m.msgs))
		// IPC FlightData as arrow-go writes them.
		var ipcm memStream
		opts, err := measure.IPCOptions(recs[0].Schema(), comp, 1)
		if err != nil {
			f.Fatal(err)
		}
		iw := aflight.NewRecordWriter(&ipcm, opts...)
		for _, rec := range recs {
			iw.Write(rec)
		}
		iw.Close()
		f.Add(encodeMessages(ipcm.msgs))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &memStream{msgs: decodeMessages(data)}
		r, err := NewReader(m)
		if err != nil {
			return
		}
		defer r.Release()
		for r.Next() {
			_ = r.RecordBatch().NumRows()
		}
	})
}
