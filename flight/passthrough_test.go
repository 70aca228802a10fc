package flight

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// storedBlocks reads the raw blocks of the stream stored under key.
func storedBlocks(t *testing.T, ts *testServer, key string) []codec.RawBlock {
	t.Helper()
	f, err := os.Open(filepath.Join(ts.dir, key+fileExt))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := codec.NewRawReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []codec.RawBlock
	for {
		b, err := r.Next(nil)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
}

// getBlocks reads the stream stored under key asking for comp, returning
// the raw block of every batch as the Reader received it.
func getBlocks(ctx context.Context, c aflight.Client, key string, comp codec.Compression) ([]codec.RawBlock, error) {
	stream, err := c.DoGet(Accept(ctx, comp), &aflight.Ticket{Ticket: []byte(key)})
	if err != nil {
		return nil, err
	}
	r, err := NewReader(stream)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var out []codec.RawBlock
	for r.Next() {
		b, ok := r.rawBlock()
		if !ok {
			return nil, errors.New("an IPC batch")
		}
		out = append(out, codec.RawBlock{Bytes: bytes.Clone(b.Bytes), CRC: b.CRC})
	}
	return out, r.Err()
}

// DoPut stores arrowpack blocks as they came, whatever the server's own
// compression; DoGet sends stored blocks as they are to a client that asks
// for their compression (or names none), and converts for one that asks for
// another.
func TestPassThrough(t *testing.T) {
	recs := lineitemBatches(3000, 1, 5000)
	defer batches.Release(recs)
	for _, side := range []string{"standard", "codec", "codec-nomap"} {
		t.Run(side, func(t *testing.T) {
			if side != "standard" {
				withTransport(t, GRPCServerOptions(), GRPCDialOptions())
			} else {
				withTransport(t, GRPCServerOptions(WithStandardCodec()), GRPCDialOptions(WithStandardCodec()))
			}
			ts := startServer(t, nil, codec.WithCompression(codec.LZ4))
			ts.store.noMap = side == "codec-nomap"
			c := dial(t, ts.addr)
			ctx := testCtx(t, 60*time.Second)
			// What the Writer sends: the blocks a codec.Writer writes.
			var want bytes.Buffer
			sw, err := codec.NewWriter(&want, recs[0].Schema(), codec.WithCompression(codec.Zstd))
			if err != nil {
				t.Fatal(err)
			}
			if err := batches.WriteAll(sw, recs); err != nil {
				t.Fatal(err)
			}
			if err := put(ctx, c, []string{"pt"}, recs[0].Schema(), recs, codec.WithCompression(codec.Zstd)); err != nil {
				t.Fatal(err)
			}
			stored := storedBlocks(t, ts, "pt")
			stream, err := os.ReadFile(filepath.Join(ts.dir, "pt"+fileExt))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stream, want.Bytes()) {
				t.Fatal("DoPut did not store the blocks as they came")
			}
			for _, comp := range []codec.Compression{codec.Zstd, codec.None} {
				got, err := getBlocks(ctx, c, "pt", comp)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(stored) {
					t.Fatalf("%s: %d blocks, %d stored", comp, len(got), len(stored))
				}
				for i := range got {
					same := bytes.Equal(got[i].Bytes, stored[i].Bytes) && got[i].CRC == stored[i].CRC
					if same != (comp == codec.Zstd) {
						t.Fatalf("%s block %d: sent as stored %v", comp, i, same)
					}
				}
			}
			got, err := get(ctx, c, []string{"pt"}, true, codec.Zstd)
			if err != nil {
				t.Fatal(err)
			}
			checkEqual(t, got, recs)
			batches.Release(got)
			waitLive(t)
		})
	}
}

// A stored block damaged on disk: passed through or converted, the server
// finds its checksum wrong as it reads it and reports DataLoss naming the
// stream, logging the file.
func TestPassThroughDamagedStore(t *testing.T) {
	for _, noMap := range []bool{false, true} {
		t.Run(map[bool]string{false: "mapped", true: "read"}[noMap], func(t *testing.T) {
			testPassThroughDamaged(t, noMap)
		})
	}
}

// testPassThroughDamaged is TestPassThroughDamagedStore with the server's
// files mapped or read.
func testPassThroughDamaged(t *testing.T, noMap bool) {
	recs := lineitemBatches(2000, 2000)
	defer batches.Release(recs)
	ts, logs := startStore(t, ServerOptions{})
	ts.store.noMap = noMap
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	if err := put(ctx, c, []string{"dmg"}, recs[0].Schema(), recs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ts.dir, "dmg"+fileExt)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-100] ^= 0x40 // in the last block's body
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = getBlocks(ctx, c, "dmg", codec.None)
	if st, _ := status.FromError(err); st.Code() != codes.DataLoss || !strings.Contains(st.Message(), "stored stream dmg is damaged") {
		t.Fatalf("passed through: %v, want DataLoss naming the stream", err)
	}
	if l := logs.String(); !strings.Contains(l, path) || !strings.Contains(l, "checksum") {
		t.Fatalf("the server log does not name the file %s and the checksum:\n%s", path, l)
	}
	_, err = getBlocks(ctx, c, "dmg", codec.LZ4)
	if status.Code(err) != codes.DataLoss {
		t.Fatalf("converted: %v, want DataLoss", err)
	}
	_, err = get(ctx, c, []string{"dmg"}, false, 0)
	if status.Code(err) != codes.DataLoss {
		t.Fatalf("as IPC: %v, want DataLoss", err)
	}
	// Cut short in the last block: a frame claiming more than the file
	// holds is DataLoss, mapped or read, and nothing is left mapped.
	if err := os.WriteFile(path, data[:len(data)-200], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = getBlocks(ctx, c, "dmg", codec.None)
	if status.Code(err) != codes.DataLoss {
		t.Fatalf("truncated: %v, want DataLoss", err)
	}
	waitLive(t)
}

// A server whose codec options coalesce (WithBlockRows) converting stored
// uncompressed blocks for a client asking for LZ4: the batches decoded from
// the stored blocks, held by the coalescing Writer until its block is full,
// keep their rows, whether the file is mapped or read into pooled buffers
// (which the next block must not reuse while a batch aliases them).
func TestConvertCoalescing(t *testing.T) {
	recs := lineitemBatches(1000)
	defer batches.Release(recs)
	small := pieces(recs[0], 100)
	defer batches.Release(small)
	withTransport(t, GRPCServerOptions(), GRPCDialOptions())
	for _, noMap := range []bool{false, true} {
		t.Run(map[bool]string{false: "mapped", true: "read"}[noMap], func(t *testing.T) {
			ts := startServer(t, nil, codec.WithBlockRows(1000))
			ts.store.noMap = noMap
			c := dial(t, ts.addr)
			ctx := testCtx(t, 60*time.Second)
			if err := put(ctx, c, []string{"co"}, recs[0].Schema(), small); err != nil {
				t.Fatal(err)
			}
			if n := len(storedBlocks(t, ts, "co")); n != len(small) {
				t.Fatalf("%d blocks stored, want %d", n, len(small))
			}
			got, err := get(ctx, c, []string{"co"}, true, codec.LZ4)
			if err != nil {
				t.Fatal(err)
			}
			if off := checkRowsInOrder(t, got, recs[0]); off != 1000 {
				t.Fatalf("%d rows, want 1000", off)
			}
			batches.Release(got)
			waitLive(t)
		})
	}
}

// A client may ask for any of the codec's compressions: MinLZ and Light
// blocks are converted to (or, stored so, passed through) like LZ4's.
func TestAcceptEveryCompression(t *testing.T) {
	recs := lineitemBatches(2000, 500)
	defer batches.Release(recs)
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	if err := put(ctx, c, []string{"all"}, recs[0].Schema(), recs, codec.WithCompression(codec.MinLZ)); err != nil {
		t.Fatal(err)
	}
	stored := storedBlocks(t, ts, "all")
	for _, comp := range []codec.Compression{codec.None, codec.LZ4, codec.Zstd, codec.MinLZ, codec.Light} {
		blocks, err := getBlocks(ctx, c, "all", comp)
		if err != nil {
			t.Fatalf("%s: %v", comp, err)
		}
		for i, b := range blocks {
			info, err := codec.ReadBlockInfo(b.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			if comp != codec.None && info.Compression != comp && info.Compression != codec.None {
				t.Fatalf("%s: block %d is %s", comp, i, info.Compression)
			}
			if same := bytes.Equal(b.Bytes, stored[i].Bytes); same != (comp == codec.MinLZ) {
				t.Fatalf("%s: block %d sent as stored: %v", comp, i, same)
			}
		}
		got, err := get(ctx, c, []string{"all"}, true, comp)
		if err != nil {
			t.Fatalf("%s: %v", comp, err)
		}
		checkEqual(t, got, recs)
		batches.Release(got)
	}
	waitLive(t)
}

// A client that goes away in the middle of a DoGet of a mapped stored
// stream: the file is unmapped (and every pooled block given back) once
// gRPC has given back the blocks it held, or dropped them (gRPC drops the
// data queued for a stream that has ended without giving it back: their
// cleanup releases them).
func TestMappedDoGetCanceled(t *testing.T) {
	recs := lineitemBatches(5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000)
	defer batches.Release(recs)
	withTransport(t, GRPCServerOptions(), GRPCDialOptions())
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	if err := put(ctx, c, []string{"big"}, recs[0].Schema(), recs); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		cctx, cancel := context.WithCancel(ctx)
		stream, err := c.DoGet(Accept(cctx, codec.None), &aflight.Ticket{Ticket: []byte("big")})
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(stream)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatalf("no first batch: %v", r.Err())
		}
		if liveMaps.Load() == 0 {
			t.Fatal("the stored file is not mapped while it is served")
		}
		cancel()
		for r.Next() {
		}
		if status.Code(r.Err()) != codes.Canceled {
			t.Fatalf("after cancel: %v, want Canceled", r.Err())
		}
		r.Release()
		waitLiveGC(t)
	}
}
