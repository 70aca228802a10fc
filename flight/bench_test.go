//go:build unix

package flight

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"github.com/arrowpack/arrowpack/internal/measure"
	"github.com/arrowpack/arrowpack/internal/randbatch"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The DoGet benchmark: a server streams 200 lineitem batches of 8,192 rows
// over loopback, as arrowpack blocks (this package's Writer and Reader) or
// as Arrow IPC (arrow-go's flight.NewRecordWriter and NewRecordReader), with
// the same compression; the client reads every batch. The server runs in a
// child process (this test binary again), so that the CPU time of each side
// is its own process's (getrusage), reported per GB of batch data (the
// uncompressed arrowpack size).
const (
	benchBatches  = 200
	benchRows     = 8192
	benchDistinct = 25 // distinct batches, each sent 8 times: less memory
	benchEnv      = "ARROWPACK_FLIGHT_BENCH_SERVER"
)

func TestMain(m *testing.M) {
	if os.Getenv(benchEnv) != "" {
		os.Exit(benchServerMain())
	}
	os.Exit(m.Run())
}

// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func benchBatchSet() []arrow.RecordBatch {
	all := randbatch.Lineitem(memory.DefaultAllocator, benchDistinct*benchRows)
	defer all.Release()
	recs := make([]arrow.RecordBatch, benchDistinct)
	for i := range recs {
		recs[i] = all.NewSlice(int64(i*benchRows), int64((i+1)*benchRows))
	}
	return recs
}

// benchServer streams the benchmark batches: ticket "arrowpack/C" or
// "ipc/C", C a compression; the action "cpu" returns the process's CPU
// seconds.
type benchServer struct {
	aflight.BaseFlightServer
	recs []arrow.RecordBatch
}

func (s *benchServer) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	format, name, _ := strings.Cut(string(t.Ticket), "/")
	comp := map[string]codec.Compression{"none": codec.None, "lz4": codec.LZ4, "zstd": codec.Zstd}[name]
	schema := s.recs[0].Schema()
	var w batchWriter
	switch format {
	case "arrowpack":
		aw, err := NewWriter(stream, schema, codec.WithCompression(comp))
		if err != nil {
			return err
		}
		w = aw
	case "ipc":
		opts, err := measure.IPCOptions(schema, comp, 1)
		if err != nil {
			return err
		}
		w = aflight.NewRecordWriter(stream, opts...)
	default:
		return fmt.Errorf("bad ticket %q", t.Ticket)
	}
	for i := range benchBatches {
		if err := w.Write(s.recs[i%len(s.recs)]); err != nil {
			return err
		}
	}
	return w.Close()
}

func (s *benchServer) DoAction(a *aflight.Action, stream aflight.FlightService_DoActionServer) error {
	return stream.Send(&aflight.Result{Body: []byte(strconv.FormatFloat(cpuSeconds(), 'g', -1, 64))})
}

// benchServerMain serves the benchmark on 127.0.0.1, prints the address
// and stops when its standard input closes.
func benchServerMain() int {
	s := &benchServer{recs: benchBatchSet()}
	srv := aflight.NewFlightServer()
	if err := srv.Init("127.0.0.1:0"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv.RegisterFlightService(s)
	fmt.Println(srv.Addr().String())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		srv.Shutdown()
	}()
	if err := srv.Serve(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// countingStream counts the bytes of the FlightData a client receives.
type countingStream struct {
	aflight.FlightService_DoGetClient
	bytes int64
}

func (c *countingStream) Recv() (*aflight.FlightData, error) {
	fd, err := c.FlightService_DoGetClient.Recv()
	if fd != nil {
		c.bytes += int64(len(fd.DataHeader) + len(fd.DataBody) + len(fd.AppMetadata))
	}
	return fd, err
}

var benchChild struct {
	once  sync.Once
	addr  string
	err   error
	stdin io.WriteCloser // the child stops when it closes (at exit)
}

// startBenchServer starts the child server once per benchmark run.
func startBenchServer(b *testing.B) string {
	benchChild.once.Do(func() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), benchEnv+"=1")
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			benchChild.err = err
			return
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			benchChild.err = err
			return
		}
		if err := cmd.Start(); err != nil {
			benchChild.err = err
			return
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			benchChild.err = fmt.Errorf("benchmark server: %w", err)
			cmd.Process.Kill()
			return
		}
		benchChild.addr = strings.TrimSpace(line)
		benchChild.stdin = stdin
	})
	if benchChild.err != nil {
		b.Fatal(benchChild.err)
	}
	return benchChild.addr
}

// serverCPU asks the benchmark server for its CPU seconds.
func serverCPU(b *testing.B, c aflight.Client) float64 {
	stream, err := c.DoAction(context.Background(), &aflight.Action{Type: "cpu"})
	if err != nil {
		b.Fatal(err)
	}
	res, err := stream.Recv()
	if err != nil {
		b.Fatal(err)
	}
	v, err := strconv.ParseFloat(string(res.Body), 64)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkDoGet measures one DoGet of 200 lineitem batches of 8,192 rows
// per operation, arrowpack against arrow-go's Flight IPC, per compression.
// Run it with -benchtime=Nx (each op moves ~200 MB) and compare the
// formats' rows/s, wire-B/op and the CPU s/GB of server and client.
func BenchmarkDoGet(b *testing.B) {
	addr := startBenchServer(b)
	c, err := aflight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// The data volume: the uncompressed arrowpack bytes of the batches.
	recs := benchBatchSet()
	enc, err := codec.NewEncoder(recs[0].Schema())
	if err != nil {
		b.Fatal(err)
	}
	var dataBytes int64
	for i := range benchBatches {
		blk, err := enc.Append(nil, recs[i%len(recs)])
		if err != nil {
			b.Fatal(err)
		}
		dataBytes += int64(len(blk))
	}
	batches.Release(recs)
	for _, comp := range []codec.Compression{codec.None, codec.LZ4, codec.Zstd} {
		for _, format := range []string{"arrowpack", "ipc"} {
			b.Run(format+"/"+comp.String(), func(b *testing.B) {
				ticket := &aflight.Ticket{Ticket: []byte(format + "/" + comp.String())}
				doGet(b, c, format, ticket) // warm up: gRPC grows its flow control windows
				var wire int64
				srv0, cli0 := serverCPU(b, c), cpuSeconds()
				b.SetBytes(dataBytes)
				b.ResetTimer()
				for range b.N {
					wire += doGet(b, c, format, ticket)
				}
				b.StopTimer()
				srv, cli := serverCPU(b, c)-srv0, cpuSeconds()-cli0
				gb := float64(dataBytes) * float64(b.N) / 1e9
				b.ReportMetric(float64(benchBatches*benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(wire)/float64(b.N), "wire-B/op")
				b.ReportMetric(srv/gb, "server-CPU-s/GB")
				b.ReportMetric(cli/gb, "client-CPU-s/GB")
			})
		}
	}
}

// doGet reads the benchmark stream of ticket with format's reader and
// returns the bytes received.
func doGet(b *testing.B, c aflight.Client, format string, ticket *aflight.Ticket) int64 {
	stream, err := c.DoGet(context.Background(), ticket)
	if err != nil {
		b.Fatal(err)
	}
	cs := &countingStream{FlightService_DoGetClient: stream}
	var r interface {
		Next() bool
		RecordBatch() arrow.RecordBatch
		Err() error
		Release()
	}
	if format == "arrowpack" {
		r, err = NewReader(cs)
	} else {
		r, err = aflight.NewRecordReader(cs)
	}
	if err != nil {
		b.Fatal(err)
	}
	rows := 0
	for r.Next() {
		rows += int(r.RecordBatch().NumRows())
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	r.Release()
	if rows != benchBatches*benchRows {
		b.Fatalf("%d rows, want %d", rows, benchBatches*benchRows)
	}
	return cs.bytes
}
