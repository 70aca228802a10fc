package flight

import (
	"bytes"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// codecMessages are FlightData of every shape the codec writes by hand:
// each field present or not, empty descriptor, bodies below and above
// gRPC's pooling threshold and its 16 KiB frames.
func codecMessages() []*aflight.FlightData {
	r := rand.New(rand.NewPCG(3, 4))
	bytesOf := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	var out []*aflight.FlightData
	for _, desc := range []*aflight.FlightDescriptor{nil, {}, {Type: aflight.DescriptorPATH, Path: []string{"a", "b"}}, {Type: aflight.DescriptorCMD, Cmd: bytesOf(200)}} {
		for _, hdr := range [][]byte{nil, bytesOf(1), bytesOf(300)} {
			for _, meta := range [][]byte{nil, bytesOf(24), bytesOf(130)} {
				for _, body := range []int{0, 1, 127, 128, 1 << 10, 5000, 40000} {
					out = append(out, &aflight.FlightData{FlightDescriptor: desc, DataHeader: hdr, AppMetadata: meta, DataBody: bytesOf(body)})
				}
			}
		}
	}
	return out
}

// The codec writes exactly protobuf's bytes, with and without a block to
// reference, and gives the block back once gRPC frees what it marshalled.
func TestCodecMarshalIdentical(t *testing.T) {
	for i, fd := range codecMessages() {
		want, err := proto.Marshal(fd)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Codec.Marshal(fd)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Materialize(), want) {
			t.Fatalf("message %d: codec wrote %d bytes unlike protobuf's %d", i, got.Len(), len(want))
		}
		got.Free()

		// A block in a pooled buffer larger than it, as a small one is.
		buf := blocks.get(max(len(fd.DataBody), 8<<10))[:len(fd.DataBody)]
		copy(buf, fd.DataBody)
		live := liveBlocks.Load()
		sb := newSendBlock(buf, nil)
		msg := &sendMsg{FlightData: &aflight.FlightData{FlightDescriptor: fd.FlightDescriptor, DataHeader: fd.DataHeader, AppMetadata: fd.AppMetadata, DataBody: buf}, owner: sb}
		got, err = Codec.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		sb.release() // the Writer's reference
		if !bytes.Equal(got.Materialize(), want) {
			t.Fatalf("message %d by reference: codec wrote %d bytes unlike protobuf's %d", i, got.Len(), len(want))
		}
		got.Free()
		if n := liveBlocks.Load(); n != live {
			t.Fatalf("message %d: %d blocks not given back after gRPC freed them", i, n-live)
		}
	}
	// Other messages, and FlightData with unknown fields, are protobuf's.
	fd := &aflight.FlightData{DataBody: []byte("body")}
	fd.ProtoReflect().SetUnknown(protowire.AppendBytes(protowire.AppendTag(nil, 7, protowire.BytesType), []byte("x")))
	for _, m := range []proto.Message{fd, &aflight.Ticket{Ticket: []byte("t")}, &aflight.PutResult{AppMetadata: []byte("m")}} {
		want, _ := proto.Marshal(m)
		got, err := Codec.Marshal(m)
		if err != nil || !bytes.Equal(got.Materialize(), want) {
			t.Fatalf("%T: codec wrote %x, %v; protobuf %x", m, got.Materialize(), err, want)
		}
	}
}

// countingPool is a gRPC buffer pool that counts the buffers out.
type countingPool struct{ out int }

func (p *countingPool) Get(n int) *[]byte { p.out++; b := make([]byte, n); return &b }
func (p *countingPool) Put(*[]byte)       { p.out-- }

// split cuts b at the given offsets into pooled gRPC buffers.
func split(p *countingPool, b []byte, cuts ...int) mem.BufferSlice {
	var out mem.BufferSlice
	prev := 0
	for _, c := range append(cuts, len(b)) {
		c = min(c, len(b))
		if c > prev {
			buf := p.Get(c - prev)
			copy(*buf, b[prev:c])
			if mem.IsBelowBufferPoolingThreshold(c - prev) {
				p.out-- // gRPC does not pool it: a plain slice
			}
			out = append(out, mem.NewBuffer(buf, p))
		}
		prev = c
	}
	return out
}

// checkUnmarshal parses wire cut at cuts into a FlightData and into a
// recvMsg and checks both against protobuf, the checksum, and that every
// gRPC buffer is given back once the body is released.
func checkUnmarshal(t *testing.T, wire []byte, want *aflight.FlightData, cuts ...int) {
	t.Helper()
	p := &countingPool{}
	data := split(p, wire, cuts...)
	got := new(aflight.FlightData)
	if err := Codec.Unmarshal(data, got); err != nil {
		t.Fatalf("cuts %v: %v", cuts, err)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("cuts %v: codec parsed %v, want %v", cuts, got, want)
	}
	data.Free()

	data = split(p, wire, cuts...)
	rm := &recvMsg{FlightData: new(aflight.FlightData), seed: 12345}
	if err := Codec.Unmarshal(data, rm); err != nil {
		t.Fatalf("cuts %v: %v", cuts, err)
	}
	data.Free()
	if !proto.Equal(rm.FlightData, want) {
		t.Fatalf("cuts %v: codec parsed %v, want %v", cuts, rm.FlightData, want)
	}
	if got, want := rm.checksum(), crc32.Update(12345, castagnoli, want.DataBody); got != want {
		t.Fatalf("cuts %v: checksum %#x, want %#x", cuts, got, want)
	}
	if b := rm.buffer(); !bytes.Equal(b.Bytes(), want.DataBody) {
		t.Fatalf("cuts %v: body buffer differs", cuts)
	} else {
		b.Release()
	}
	// The first parse kept (stole) one buffer when the body lay in it.
	if p.out > 1 {
		t.Fatalf("cuts %v: %d gRPC buffers not given back", cuts, p.out)
	}
}

// A FlightData parses the same however gRPC's buffers cut it: at every
// one and every two places.
func TestCodecUnmarshalEverySplit(t *testing.T) {
	fd := &aflight.FlightData{
		FlightDescriptor: &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"p"}},
		DataHeader:       []byte("header"),
		AppMetadata:      bytes.Repeat([]byte("m"), 130), // a two-byte length
		DataBody:         bytes.Repeat([]byte("0123456789abcdef"), 12),
	}
	wire, err := proto.Marshal(fd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= len(wire); i++ {
		for j := i; j <= len(wire); j++ {
			checkUnmarshal(t, wire, fd, i, j)
		}
	}
	for i, fd := range codecMessages() {
		wire, _ := proto.Marshal(fd)
		checkUnmarshal(t, wire, fd)
		checkUnmarshal(t, wire, fd, len(wire)/3, len(wire)/2)
		if t.Failed() {
			t.Fatalf("message %d", i)
		}
	}
}

// Messages the codec does not parse itself go through protobuf, with its
// result or its error: unknown fields, repeated ones, other wire types,
// and malformed ones.
func TestCodecUnmarshalFallback(t *testing.T) {
	base, _ := proto.Marshal(&aflight.FlightData{DataHeader: []byte("h"), DataBody: []byte("body")})
	cases := map[string][]byte{
		"unknown field":        protowire.AppendBytes(protowire.AppendTag(bytes.Clone(base), 7, protowire.BytesType), []byte("x")),
		"repeated body":        protowire.AppendBytes(protowire.AppendTag(bytes.Clone(base), 1000, protowire.BytesType), []byte("second")),
		"repeated header":      protowire.AppendBytes(protowire.AppendTag(bytes.Clone(base), 2, protowire.BytesType), []byte("h2")),
		"repeated descriptor":  append(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0x08, 0x01}), protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0x12, 0x01, 'x'})...),
		"varint field 2":       protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 5),
		"body length too long": append(protowire.AppendVarint(protowire.AppendTag(nil, 1000, protowire.BytesType), 100), "short"...),
		"cut in a tag":         base[:len(base)-6],
		"bad varint":           bytes.Repeat([]byte{0xff}, 11),
		"bad descriptor":       protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0xff}),
		"empty":                {},
	}
	for name, wire := range cases {
		t.Run(name, func(t *testing.T) {
			want := new(aflight.FlightData)
			werr := proto.Unmarshal(wire, want)
			for _, cuts := range [][]int{nil, {1}, {len(wire) / 2}} {
				got := new(aflight.FlightData)
				gerr := Codec.Unmarshal(split(&countingPool{}, wire, cuts...), got)
				if (gerr != nil) != (werr != nil) {
					t.Fatalf("codec error %v, protobuf's %v", gerr, werr)
				}
				if werr == nil && !proto.Equal(got, want) {
					t.Fatalf("codec parsed %v, protobuf %v", got, want)
				}
			}
		})
	}
}

// FuzzCodecUnmarshal: whatever the bytes and however they are cut, the
// codec agrees with protobuf.
func FuzzCodecUnmarshal(f *testing.F) {
	for _, fd := range codecMessages()[:20] {
		w, _ := proto.Marshal(fd)
		f.Add(w, uint16(3))
	}
	f.Fuzz(func(t *testing.T, wire []byte, cut uint16) {
		want := new(aflight.FlightData)
		werr := proto.Unmarshal(wire, want)
		c := int(cut) % (len(wire) + 1)
		got := &recvMsg{FlightData: new(aflight.FlightData)}
		data := split(&countingPool{}, wire, c)
		gerr := Codec.Unmarshal(data, got)
		if (gerr != nil) != (werr != nil) {
			t.Fatalf("codec error %v, protobuf's %v", gerr, werr)
		}
		if werr == nil {
			if !proto.Equal(got.FlightData, want) {
				t.Fatalf("codec parsed %v, protobuf %v", got.FlightData, want)
			}
			got.buffer().Release()
		}
	})
}
