package flight

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/pierrec/lz4/v4"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Attacks on the store built field by field, as issue 18 found them: a
// small DoPut whose block declares a huge raw body, a small stored file
// whose block does. Each measures the bytes the whole process allocates
// while the server handles it (runtime.MemStats.TotalAlloc, client
// included), and bounds them by the call's fixed cost plus a small
// multiple of the input. Before the server capped blocks (MaxBlock), the
// put allocated 512 MiB and the get 256 MiB or more.

// bombRawBody is the raw body the hostile blocks declare: the codec's
// default cap, four times the server's.
const bombRawBody = 256 << 20

// callOverhead is what one call may allocate whatever its input: gRPC's
// buffers, a 1 MiB bufio.Writer (DoPut) or Reader (DoGet), the schema.
const callOverhead = 4 << 20

var bombSchema = arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)

// bombBlock returns a block of bombSchema compressed with c (LZ4 or
// zstd) in one section, whose header and section declare a raw body of
// rawLen bytes. An LZ4 section holds the compression of stored random
// bytes, which decompresses to far less; a zstd section is a real bomb, a
// frame of RLE blocks that does produce rawLen bytes (stored is then
// ignored), whose tags the codec cannot fault.
func bombBlock(t testing.TB, c codec.Compression, stored, rawLen int) []byte {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(bombSchema, []arrow.Array{col}, 3)
	col.Release()
	defer rec.Release()
	enc, err := codec.NewEncoder(bombSchema)
	if err != nil {
		t.Fatal(err)
	}
	real, err := enc.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, stored)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	var z []byte
	switch c {
	case codec.LZ4:
		z = make([]byte, lz4.CompressBlockBound(len(src)))
		n, err := lz4.CompressBlock(src, z, nil)
		if err != nil || n == 0 {
			t.Fatalf("lz4: %d, %v", n, err)
		}
		z = z[:n]
	case codec.Zstd:
		z = binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
		z = append(z, 3<<6|1<<5) // an 8-byte content size, single segment
		z = binary.LittleEndian.AppendUint64(z, uint64(rawLen))
		for n := rawLen; n > 0; {
			size := min(n, 128<<10)
			n -= size
			last := 0
			if n == 0 {
				last = 1
			}
			hdr := last | 1<<1 | size<<3 // an RLE block of zeros
			z = append(z, byte(hdr), byte(hdr>>8), byte(hdr>>16), 0)
		}
	default:
		t.Fatalf("bombBlock of %s", c)
	}
	pad := (8 - len(z)%8) % 8
	// Header (40 bytes, from a real block), then the section table: the
	// count, one descriptor (raw length << 8 | codec), one buffer (its
	// length, its bytes padded to 8).
	blk := append([]byte(nil), real[:40]...)
	blk[5] = byte(c)
	binary.LittleEndian.PutUint16(blk[6:], 0)
	blk = binary.LittleEndian.AppendUint64(blk, 1)
	blk = binary.LittleEndian.AppendUint64(blk, uint64(rawLen)<<8|uint64(c))
	blk = binary.LittleEndian.AppendUint64(blk, uint64(len(z)))
	blk = append(blk, z...)
	blk = append(blk, make([]byte, pad)...)
	binary.LittleEndian.PutUint64(blk[24:], uint64(len(blk)-40))
	binary.LittleEndian.PutUint64(blk[32:], uint64(rawLen))
	return blk
}

// bombs are the hostile blocks: the LZ4 one, about 2 KB declaring
// 256 MiB, which the codec now refuses by itself (LZ4 expands at most
// 255x); and a zstd one of about 8 KB that really produces as much, which
// the codec's bound for zstd (128 KiB per 4 stored bytes) and its walk of
// the block headers let through, so that only the server's cap stands
// between it and a 256 MiB allocation.
var bombs = []struct {
	name   string
	c      codec.Compression
	stored int
	capped bool // the codec accepts its header: the server's cap must refuse it
}{
	{"lz4 2KB", codec.LZ4, 2000, false},
	{"zstd 8KB", codec.Zstd, 8300, true},
}

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A DoPut of a few KB carrying a block that declares a 256 MiB raw body is
// refused before anything is allocated for the body: by the server's cap
// (ResourceExhausted) when the codec would accept the block's header.
func TestDoPutBlockBomb(t *testing.T) {
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	for _, bomb := range bombs {
		t.Run(bomb.name, func(t *testing.T) {
			blk := bombBlock(t, bomb.c, bomb.stored, bombRawBody)
			if _, err := codec.ReadBlockInfo(blk); (err == nil) != bomb.capped {
				t.Fatalf("the codec reads the block's header: %v, want an error: %v", err, !bomb.capped)
			}
			// The schema message of bombSchema (all a Writer of no
			// batches sends), then the block.
			var m memStream
			w, err := NewWriter(&m, bombSchema)
			if err != nil {
				t.Fatal(err)
			}
			w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"bomb"}})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			msgs := append(m.msgs, &aflight.FlightData{AppMetadata: appendMarker(nil, true, len(blk), codec.Checksum(blk)), DataBody: blk})
			in := 0
			for _, fd := range msgs {
				in += len(fd.DataHeader) + len(fd.DataBody) + len(fd.AppMetadata)
			}
			var perr error
			n := allocated(func() {
				stream, err := c.DoPut(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, fd := range msgs {
					if err := stream.Send(fd); err != nil {
						break
					}
				}
				perr = closePut(stream)
			})
			t.Logf("a DoPut of %d bytes declaring a %d-byte raw body: %v; allocated %d bytes (%.0f per input byte)", in, bombRawBody, perr, n, float64(n)/float64(in))
			if bomb.capped && (status.Code(perr) != codes.ResourceExhausted || !strings.Contains(perr.Error(), "max-block")) {
				t.Errorf("status %v, want ResourceExhausted naming -max-block", perr)
			}
			if perr == nil {
				t.Error("the put was accepted")
			}
			if n > callOverhead+64*uint64(in) {
				t.Errorf("allocated %d bytes for a %d-byte put, want at most %d", n, in, callOverhead+64*in)
			}
			if used := ts.store.budget.inUse(); used != 0 {
				t.Errorf("the budget holds %d bytes after the call", used)
			}
		})
	}
}

// streamFile returns an arrowpack stream file of schema holding the given
// blocks, each in a frame (length, CRC32C, reserved), and its end frame.
func streamFile(t testing.TB, schema *arrow.Schema, blocks ...[]byte) []byte {
	t.Helper()
	var empty bytes.Buffer
	w, err := codec.NewWriter(&empty, schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// An empty stream is its header and an end frame of 16 bytes.
	out := bytes.Clone(empty.Bytes()[:empty.Len()-16])
	table := crc32.MakeTable(crc32.Castagnoli)
	for _, b := range blocks {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(b)))
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(b, table))
		out = binary.LittleEndian.AppendUint32(out, 0)
		out = append(out, b...)
	}
	out = binary.LittleEndian.AppendUint64(out, 0)
	return binary.LittleEndian.AppendUint64(out, uint64(len(blocks)))
}

// A stored file of a few KB whose block declares a 256 MiB raw body
// (damaged on disk, or put there by hand): DoGet and GetFlightInfo refuse
// it with DataLoss, allocating little, and ListFlights leaves it out.
func TestDoGetStoredBomb(t *testing.T) {
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	for _, bomb := range bombs {
		t.Run(bomb.name, func(t *testing.T) {
			file := streamFile(t, bombSchema, bombBlock(t, bomb.c, bomb.stored, bombRawBody))
			if err := os.WriteFile(filepath.Join(ts.dir, "bomb.apk"), file, 0o644); err != nil {
				t.Fatal(err)
			}
			var gerr error
			n := allocated(func() {
				stream, err := c.DoGet(ctx, &aflight.Ticket{Ticket: []byte("bomb")})
				if err != nil {
					t.Fatal(err)
				}
				for {
					if _, gerr = stream.Recv(); gerr != nil {
						break
					}
				}
			})
			t.Logf("a DoGet of a %d-byte stored file declaring a %d-byte raw body: %v; allocated %d bytes (%.0f per stored byte)", len(file), bombRawBody, gerr, n, float64(n)/float64(len(file)))
			if status.Code(gerr) != codes.DataLoss {
				t.Errorf("status %v, want DataLoss", gerr)
			}
			if n > callOverhead+64*uint64(len(file)) {
				t.Errorf("allocated %d bytes for a %d-byte file, want at most %d", n, len(file), callOverhead+64*len(file))
			}
			n = allocated(func() {
				_, gerr = c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"bomb"}})
			})
			if status.Code(gerr) != codes.DataLoss || n > callOverhead+64*uint64(len(file)) {
				t.Errorf("GetFlightInfo: %v, allocated %d bytes", gerr, n)
			}
			if infos := listAll(ctx, t, c); len(infos) != 0 {
				t.Errorf("ListFlights lists %q", tickets(infos))
			}
			if used := ts.store.budget.inUse(); used != 0 {
				t.Errorf("the budget holds %d bytes after the calls", used)
			}
		})
	}
}
