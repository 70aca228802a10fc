package flight

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
	"golang.org/x/sync/errgroup"
)

// The end-to-end shuffle benchmark: M map tasks each write their rows for
// P partitions, R reducers each fetch their partitions from every map
// task's server over loopback Flight.
const (
	shufM         = 3
	shufR         = 4
	shufP         = 200
	shufBatches   = 8 // per map task
	shufBatchRows = 8192
	shufMemory    = 32 << 20 // a map task's MapWriter memory limit
)

// shufInput is each map task's batches and their rows' partition ids
// (splitmix64 of the row's number, mod P), the same for every way.
type shufInput struct {
	recs [shufM][]arrow.RecordBatch
	ids  [shufM][][]uint32
	rows int64
}

func newShufInput() *shufInput {
	in := &shufInput{}
	row := uint64(0)
	for m := range shufM {
		for range shufBatches {
			rec := randbatch.Lineitem(memory.DefaultAllocator, shufBatchRows)
			ids := make([]uint32, rec.NumRows())
			for i := range ids {
				ids[i] = uint32(mix64(row) % shufP)
				row++
			}
			in.recs[m] = append(in.recs[m], rec)
			in.ids[m] = append(in.ids[m], ids)
			in.rows += rec.NumRows()
		}
	}
	return in
}

// ipcShuffleServer serves partition files written with arrow-go's IPC
// writer: ticket "m/p" is dir/m-p.arrows, read with ipc.NewReader and sent
// with flight.NewRecordWriter, as an engine built on arrow-go alone serves
// its shuffle files (Ballista's way before it passed files through).
type ipcShuffleServer struct {
	aflight.BaseFlightServer
	dir  string
	comp codec.Compression
}

func (s *ipcShuffleServer) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	f, err := os.Open(filepath.Join(s.dir, strings.ReplaceAll(string(t.Ticket), "/", "-")+".arrows"))
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := ipc.NewReader(f)
	if err != nil {
		return err
	}
	defer r.Release()
	opts, err := measure.IPCOptions(r.Schema(), s.comp, 1)
	if err != nil {
		return err
	}
	return batches.Copy(aflight.NewRecordWriter(stream, opts...), r)
}

// ipcMap is one map task the arrow-go way: per batch, compute.Take of each
// partition's rows, appended to that partition's IPC file.
func ipcMap(dir string, m int, recs []arrow.RecordBatch, ids [][]uint32, comp codec.Compression) error {
	schema := recs[0].Schema()
	opts, err := measure.IPCOptions(schema, comp, 1)
	if err != nil {
		return err
	}
	files := make([]*os.File, shufP)
	writers := make([]*ipc.Writer, shufP)
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for p := range shufP {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%d-%d.arrows", m, p)))
		if err != nil {
			return err
		}
		files[p] = f
		writers[p] = ipc.NewWriter(f, opts...)
	}
	ctx := context.Background()
	rows := make([][]int32, shufP)
	for b, rec := range recs {
		for p := range rows {
			rows[p] = rows[p][:0]
		}
		for i, p := range ids[b] {
			rows[p] = append(rows[p], int32(i))
		}
		for p := range shufP {
			if len(rows[p]) == 0 {
				continue
			}
			idx := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(rows[p]), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(rows[p]))}, nil, 0, 0))
			part, err := compute.TakeArray(ctx, array.RecordToStructArray(rec), idx)
			idx.Release()
			if err != nil {
				return err
			}
			prec := array.RecordFromStructArray(part.(*array.Struct), schema)
			part.Release()
			err = writers[p].Write(prec)
			prec.Release()
			if err != nil {
				return err
			}
		}
	}
	for _, w := range writers {
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}

// shufRun is one round of one way: its wall time and the map side's
// largest heap.
type shufRun struct {
	secs, mapSecs float64
	heap          uint64
}

// heapWatch samples the heap in use until stopped and returns its peak
// above what it was at the start (after a collection): what the phase
// watched added.
func heapWatch() (stop func() uint64) {
	var peak atomic.Uint64
	var ms0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	peak.Store(ms0.HeapInuse)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() - ms0.HeapInuse }
}

// runShuffle runs one round of a shuffle: the M map tasks at once, then
// the R reducers at once, each fetching its partitions (p = r mod R) in
// turn; it checks that all the rows arrived.
func runShuffle(b *testing.B, way string, sent int64, mapTask func(m int) error, fetch func(p int, rows *atomic.Int64) error) shufRun {
	stop := heapWatch()
	start := time.Now()
	var g errgroup.Group
	for m := range shufM {
		g.Go(func() error { return mapTask(m) })
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	mapSecs := time.Since(start).Seconds()
	heap := stop()
	var rows atomic.Int64
	for r := range shufR {
		g.Go(func() error {
			for p := r; p < shufP; p += shufR {
				if err := fetch(p, &rows); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	if rows.Load() != sent {
		b.Fatalf("%s: %d rows arrived, %d sent", way, rows.Load(), sent)
	}
	return shufRun{secs: time.Since(start).Seconds(), mapSecs: mapSecs, heap: heap}
}

// countRows adds the rows of r's batches to rows.
func countRows(r array.RecordReader, rows *atomic.Int64) error {
	for r.Next() {
		rows.Add(r.RecordBatch().NumRows())
	}
	return r.Err()
}

// BenchmarkShuffleMapOutput runs a whole shuffle, M=3 map tasks, R=4
// reducers, P=200 partitions of lineitem, two ways in interleaved rounds:
// arrowpack (a MapWriter per map task, its map output served by a Server,
// FetchPartition per reducer partition) and arrow-go alone (Take per
// partition, an IPC file per partition, Flight DoGet of each, IPC read).
// It prints rows per second, their ratio per round (median and range) and
// the map side's peak heap.
func BenchmarkShuffleMapOutput(b *testing.B) {
	in := newShufInput()
	defer func() {
		for m := range shufM {
			for _, r := range in.recs[m] {
				r.Release()
			}
		}
	}()
	for _, comp := range []codec.Compression{codec.None, codec.LZ4} {
		b.Run(comp.String(), func(b *testing.B) {
			ap := make([]*testServer, shufM)
			ipcs := make([]*testServer, shufM)
			ipcDirs := make([]string, shufM)
			var apc, ipcc []aflight.Client
			for m := range shufM {
				ap[m] = startServer(b, nil)
				ipcDirs[m] = b.TempDir()
				ipcs[m] = startServer(b, &ipcShuffleServer{dir: ipcDirs[m], comp: comp})
				apc = append(apc, dial(b, ap[m].addr))
				ipcc = append(ipcc, dial(b, ipcs[m].addr))
			}
			runAP := func() shufRun {
				return runShuffle(b, "arrowpack", in.rows, func(m int) error {
					file, err := MapOutputFile(ap[m].dir, []string{"job", fmt.Sprint(m)})
					if err != nil {
						return err
					}
					w, err := codec.CreateMapWriter(file, in.recs[m][0].Schema(), shufP,
						codec.MapOutputOptions{Replace: true, NoSync: true, Buffer: shufMemory / 4},
						codec.WithCompression(comp), codec.WithBlockRows(shufBatchRows), codec.WithMemoryLimit(shufMemory))
					if err != nil {
						return err
					}
					for i, rec := range in.recs[m] {
						if err := w.Write(rec, in.ids[m][i]); err != nil {
							w.Abort()
							return err
						}
					}
					return w.Close()
				}, func(p int, rows *atomic.Int64) error {
					var srcs []PartitionSource
					for m := range shufM {
						srcs = append(srcs, PartitionSource{Client: apc[m], Server: ap[m].addr, Path: []string{"job", fmt.Sprint(m)}})
					}
					pr, err := FetchPartition(context.Background(), p, srcs, FetchOptions{Concurrency: shufM})
					if err != nil {
						return err
					}
					defer pr.Release()
					return countRows(pr, rows)
				})
			}
			runIPC := func() shufRun {
				return runShuffle(b, "ipc", in.rows, func(m int) error {
					return ipcMap(ipcDirs[m], m, in.recs[m], in.ids[m], comp)
				}, func(p int, rows *atomic.Int64) error {
					var pg errgroup.Group
					for m := range shufM {
						pg.Go(func() error {
							stream, err := ipcc[m].DoGet(context.Background(), &aflight.Ticket{Ticket: []byte(fmt.Sprintf("%d/%d", m, p))})
							if err != nil {
								return err
							}
							rr, err := aflight.NewRecordReader(stream)
							if err != nil {
								return err
							}
							defer rr.Release()
							return countRows(rr, rows)
						})
					}
					return pg.Wait()
				})
			}
			runAP()
			runIPC() // warm up
			var aps, ipcRuns []shufRun
			b.ResetTimer()
			for range b.N {
				aps = append(aps, runAP())
				ipcRuns = append(ipcRuns, runIPC())
			}
			b.StopTimer()
			var ratios, mapRatios []float64
			for i := range aps {
				ratios = append(ratios, ipcRuns[i].secs/aps[i].secs)
				mapRatios = append(mapRatios, ipcRuns[i].mapSecs/aps[i].mapSecs)
			}
			med := func(rs []shufRun, f func(shufRun) float64) float64 {
				var v []float64
				for _, r := range rs {
					v = append(v, f(r))
				}
				return median(v)
			}
			rps := func(r shufRun) float64 { return float64(in.rows) / r.secs }
			heap := func(r shufRun) float64 { return float64(r.heap) / (1 << 20) }
			fmt.Printf("--- %s: load average %s; %d rounds; M=%d R=%d P=%d, %d rows\n", b.Name(), loadAverage(), len(aps), shufM, shufR, shufP, in.rows)
			fmt.Printf("arrowpack %8.2f Mrows/s (map %.3f s, map-side heap %.0f MiB; limits %d x (%d MiB pending + %d MiB blocks))\n", med(aps, rps)/1e6, med(aps, func(r shufRun) float64 { return r.mapSecs }), med(aps, heap), shufM, shufMemory>>20, shufMemory>>22)
			fmt.Printf("ipc       %8.2f Mrows/s (map %.3f s, map-side heap %.0f MiB)\n", med(ipcRuns, rps)/1e6, med(ipcRuns, func(r shufRun) float64 { return r.mapSecs }), med(ipcRuns, heap))
			fmt.Printf("arrowpack/ipc rows/s %.2fx [%.2f-%.2f]; map time ipc/arrowpack %.2fx [%.2f-%.2f]\n",
				median(ratios), slices.Min(ratios), slices.Max(ratios), median(mapRatios), slices.Min(mapRatios), slices.Max(mapRatios))
			b.ReportMetric(median(ratios), "arrowpack/ipc-rows/s")
		})
	}
}
