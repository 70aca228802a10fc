package flight

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/randbatch"
	"golang.org/x/sync/errgroup"
)

const (
	shuffleServers    = 3
	shuffleProducers  = 4
	shufflePartitions = 12
	shuffleBatchRows  = 8192
)

// mix64 is splitmix64's finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// rowHashes returns a hash of every row of rec, over every column.
func rowHashes(t testing.TB, rec arrow.RecordBatch) []uint64 {
	h := make([]uint64, rec.NumRows())
	for c, col := range rec.Columns() {
		for i := range h {
			var v uint64
			if col.IsNull(i) {
				v = 0x6e756c6c
			} else {
				switch a := col.(type) {
				case *array.Int64:
					v = uint64(a.Value(i))
				case *array.Int32:
					v = uint64(a.Value(i))
				case *array.Date32:
					v = uint64(a.Value(i))
				case *array.Decimal128:
					n := a.Value(i)
					v = n.LowBits() ^ mix64(uint64(n.HighBits()))
				case *array.String:
					for _, b := range []byte(a.Value(i)) {
						v = (v ^ uint64(b)) * 0x100000001b3
					}
				default:
					t.Fatalf("column %d: no hash for %s", c, col.DataType())
				}
			}
			h[i] = mix64(h[i] ^ mix64(v+uint64(c)))
		}
	}
	return h
}

// checksum of a partition: rows and an order-independent sum of row hashes.
type partSum struct {
	rows int64
	sum  uint64
}

func (s *partSum) add(h uint64) { s.rows++; s.sum += h }

// partitionOf is the partition of an order key.
func partitionOf(key int64) int { return int(mix64(uint64(key)) % shufflePartitions) }

// A shuffle over loopback: 3 servers, 4 producers hash-partitioning their
// share of the lineitem rows into 12 partitions, each partition put to its
// server; 3 consumers get them back. Every row arrives exactly once: the
// per-partition row counts and checksums on both sides agree.
func TestShuffle(t *testing.T) {
	// 250,000 rows take a few seconds; under the race detector, on two
	// busy cores, minutes, so the race build shuffles 50,000.
	rows := 250_000
	if raceEnabled {
		rows = 50_000
	}
	all := randbatch.Lineitem(memory.DefaultAllocator, rows)
	defer all.Release()
	for _, comp := range []codec.Compression{codec.None, codec.LZ4, codec.Zstd} {
		t.Run(comp.String(), func(t *testing.T) { shuffle(t, all, comp) })
	}
}

func shuffle(t *testing.T, all arrow.RecordBatch, comp codec.Compression) {
	ctx := testCtx(t, 5*time.Minute)
	var servers [shuffleServers]*testServer
	for i := range servers {
		servers[i] = startServer(t, nil, codec.WithCompression(comp))
	}
	serverOf := func(p int) int { return p % shuffleServers }
	var sent, got [shufflePartitions]partSum
	var mu sync.Mutex
	n := all.NumRows()

	g, gctx := errgroup.WithContext(ctx)
	for m := range shuffleProducers {
		g.Go(func() error {
			lo, hi := n*int64(m)/shuffleProducers, n*int64(m+1)/shuffleProducers
			var clients [shuffleServers]aflight.Client
			for i, s := range servers {
				clients[i] = dial(t, s.addr)
			}
			var streams [shufflePartitions]aflight.FlightService_DoPutClient
			var writers [shufflePartitions]*Writer
			for p := range writers {
				s, err := clients[serverOf(p)].DoPut(gctx)
				if err != nil {
					return err
				}
				w, err := NewWriter(s, all.Schema(), codec.WithCompression(comp))
				if err != nil {
					return err
				}
				w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH,
					Path: []string{comp.String(), fmt.Sprintf("p%02d", p), fmt.Sprintf("m%d", m)}})
				streams[p], writers[p] = s, w
			}
			var local [shufflePartitions]partSum
			for off := lo; off < hi; off += shuffleBatchRows {
				batch := all.NewSlice(off, min(off+shuffleBatchRows, hi))
				keys := batch.Column(0).(*array.Int64)
				hashes := rowHashes(t, batch)
				// Group the rows by partition with one Take, then cut the
				// result into one slice per partition.
				var byPart [shufflePartitions][]int32
				for i := range hashes {
					part := partitionOf(keys.Value(i))
					local[part].add(hashes[i])
					byPart[part] = append(byPart[part], int32(i))
				}
				ib := array.NewInt32Builder(memory.DefaultAllocator)
				var ends [shufflePartitions]int64
				for p := range byPart {
					ib.AppendValues(byPart[p], nil)
					ends[p] = int64(ib.Len())
				}
				idx := ib.NewArray()
				ib.Release()
				taken, err := compute.Take(gctx, *compute.DefaultTakeOptions(), compute.NewDatum(batch), compute.NewDatum(idx))
				idx.Release()
				if err != nil {
					return err
				}
				grouped := taken.(*compute.RecordDatum).Value
				start := int64(0)
				for p := range writers {
					part := grouped.NewSlice(start, ends[p])
					start = ends[p]
					err := writers[p].Write(part)
					part.Release()
					if err != nil {
						taken.Release()
						return fmt.Errorf("producer %d partition %d: %w", m, p, err)
					}
				}
				taken.Release()
				batch.Release()
			}
			for p, w := range writers {
				if err := w.Close(); err != nil {
					return err
				}
				if err := closePut(streams[p]); err != nil {
					return fmt.Errorf("producer %d partition %d: put: %w", m, p, err)
				}
			}
			mu.Lock()
			for p := range local {
				sent[p].rows += local[p].rows
				sent[p].sum += local[p].sum
			}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}

	g, gctx = errgroup.WithContext(ctx)
	for j, s := range servers {
		g.Go(func() error {
			c := dial(t, s.addr)
			for p := j; p < shufflePartitions; p += shuffleServers {
				prefix := fmt.Sprintf("%s/p%02d/", comp, p)
				list, err := c.ListFlights(gctx, &aflight.Criteria{Expression: []byte(prefix)})
				if err != nil {
					return err
				}
				var infos []*aflight.FlightInfo
				for {
					info, err := list.Recv()
					if err == io.EOF {
						break
					}
					if err != nil {
						return err
					}
					infos = append(infos, info)
				}
				if len(infos) != shuffleProducers {
					return fmt.Errorf("partition %d: %d streams listed, want %d", p, len(infos), shuffleProducers)
				}
				var local partSum
				for _, info := range infos {
					stream, err := c.DoGet(Accept(gctx, comp), info.Endpoint[0].Ticket)
					if err != nil {
						return err
					}
					r, err := NewReader(stream)
					if err != nil {
						return err
					}
					for r.Next() {
						rec := r.RecordBatch()
						keys := rec.Column(0).(*array.Int64)
						for i, h := range rowHashes(t, rec) {
							if partitionOf(keys.Value(i)) != p {
								r.Release()
								return fmt.Errorf("partition %d holds a row of partition %d", p, partitionOf(keys.Value(i)))
							}
							local.add(h)
						}
					}
					err = r.Err()
					r.Release()
					if err != nil {
						return err
					}
				}
				mu.Lock()
				got[p] = local
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	var total int64
	for p := range sent {
		if got[p] != sent[p] {
			t.Errorf("partition %d: got %d rows, checksum %#x; sent %d rows, checksum %#x", p, got[p].rows, got[p].sum, sent[p].rows, sent[p].sum)
		}
		total += got[p].rows
	}
	if total != n {
		t.Errorf("%d rows arrived, %d were sent", total, n)
	}
}
