package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	flatbuffers "github.com/google/flatbuffers/go"
)

// ipcBatchInfo is what inspect tells of an IPC record batch message that
// arrow-go's readers keep to themselves: its bytes and its compression.
type ipcBatchInfo struct {
	size        int64  // framing, metadata and body
	compression string // "none", "lz4", "zstd"; "?" when unreadable
}

// metaTapLimit bounds the bytes of a message's start that a tap keeps: the
// framing and the metadata, which holds the compression (a record batch's
// metadata is about 32 bytes a column and buffer).
const metaTapLimit = 1 << 20

// prefixTap passes reads through and keeps the first bytes read since its
// last reset.
type prefixTap struct {
	r   io.Reader
	buf []byte
	n   int64 // bytes read since the reset
}

func (p *prefixTap) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if room := metaTapLimit - len(p.buf); room > 0 {
		p.buf = append(p.buf, b[:min(n, room)]...)
	}
	p.n += int64(n)
	return n, err
}

func (p *prefixTap) reset() { p.buf, p.n = p.buf[:0], 0 }

// tapMessageReader is arrow-go's IPC message reader on a prefixTap: it
// notes the size and compression of each record batch message it reads.
type tapMessageReader struct {
	ipc.MessageReader
	tap  *prefixTap
	last ipcBatchInfo // of the last record batch message
}

// newTapMessageReader returns a message reader of the IPC stream in r.
func newTapMessageReader(r io.Reader, opts ...ipc.Option) *tapMessageReader {
	tap := &prefixTap{r: r}
	return &tapMessageReader{MessageReader: ipc.NewMessageReader(tap, opts...), tap: tap}
}

func (t *tapMessageReader) Message() (*ipc.Message, error) {
	t.tap.reset()
	msg, err := t.MessageReader.Message()
	if err == nil && msg.Type() == ipc.MessageRecordBatch {
		t.last = ipcBatchInfo{size: t.tap.n, compression: ipcMessageCompression(t.tap.buf)}
	}
	return msg, err
}

// ipcBatchInfos reads the record batch messages of an IPC stream (or of an
// IPC file's body, after its 8-byte magic) and returns what it notes of
// each, in order, until the end or a message it cannot read.
func ipcBatchInfos(r io.Reader, opts ...ipc.Option) []ipcBatchInfo {
	t := newTapMessageReader(r, opts...)
	defer t.Release()
	var infos []ipcBatchInfo
	for {
		msg, err := t.Message()
		if err != nil {
			return infos
		}
		if msg.Type() == ipc.MessageRecordBatch {
			infos = append(infos, t.last)
		}
	}
}

// ipcMessageCompression returns the compression a record batch message's
// metadata names ("none" if none), from the message's first bytes (its
// framing and flatbuffer metadata); "?" when they cannot be read.
func ipcMessageCompression(b []byte) (c string) {
	defer func() {
		// The flatbuffers library does not check its offsets.
		if recover() != nil {
			c = "?"
		}
	}()
	meta, err := ipcMetadata(b)
	if err != nil {
		return "?"
	}
	// Message { version: 0, header_type: 1, header: 2, ... }: the header
	// is a RecordBatch { length: 0, nodes: 1, buffers: 2, compression: 3 },
	// its compression a BodyCompression { codec: 0 (LZ4_FRAME 0, ZSTD 1) }.
	msg := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	hdr, ok := subTable(msg, 2)
	if !ok {
		return "?"
	}
	comp, ok := subTable(hdr, 3)
	if !ok {
		return "none"
	}
	codec := byte(0)
	if o := comp.Offset(fieldSlot(0)); o != 0 {
		codec = comp.GetByte(flatbuffers.UOffsetT(o) + comp.Pos)
	}
	switch codec {
	case 0:
		return "lz4"
	case 1:
		return "zstd"
	}
	return fmt.Sprintf("codec %d", codec)
}

// fieldSlot is the vtable offset of a table's field number i.
func fieldSlot(i int) flatbuffers.VOffsetT { return flatbuffers.VOffsetT(4 + 2*i) }

// subTable returns the table that field i of t points to, if it is set.
func subTable(t flatbuffers.Table, i int) (flatbuffers.Table, bool) {
	o := t.Offset(fieldSlot(i))
	if o == 0 {
		return flatbuffers.Table{}, false
	}
	return flatbuffers.Table{Bytes: t.Bytes, Pos: t.Indirect(flatbuffers.UOffsetT(o) + t.Pos)}, true
}

// ipcMetadata returns the flatbuffer metadata of the IPC message that b
// starts with: after the continuation marker (if any) and the length.
func ipcMetadata(b []byte) ([]byte, error) {
	if len(b) >= 4 && binary.LittleEndian.Uint32(b) == 0xFFFFFFFF {
		b = b[4:]
	}
	if len(b) < 4 {
		return nil, errors.New("no message length")
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	b = b[4:]
	if n < 4 || n > int64(len(b)) {
		return nil, errors.New("metadata longer than kept")
	}
	return b[:n], nil
}
