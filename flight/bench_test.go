//go:build unix

package flight

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	"google.golang.org/grpc/stats"
)

// The DoGet benchmark: a server streams 200 lineitem batches of 8,192 rows
// over loopback and the client reads every batch, with one compression, in
// these ways (the first four with this package's default transport
// settings):
//
//   - arrowpack: this package's Writer and Reader, with Codec on both ends;
//   - arrowpack-std: the same through gRPC's standard protobuf codec;
//   - ipc: arrow-go's flight.NewRecordWriter and NewRecordReader, standard
//     codec (arrow-go as it is);
//   - floor: the same arrowpack blocks, encoded beforehand, sent as bare
//     FlightData bodies and received without decoding, with Codec: what
//     the transport alone costs;
//   - arrowpack-grpc and ipc-grpc: arrowpack and ipc with gRPC's own
//     transport settings and codec (32 KiB buffers, zeroing buffer pool),
//     as the flight package and arrow-go's Flight were before.
//
// The server runs in a child process (this test binary again), so that the
// CPU time of each side is its own process's (getrusage), reported per GB
// of batch data (the uncompressed arrowpack size).
const (
	benchBatches  = 200
	benchRows     = 8192
	benchDistinct = 25 // distinct batches, each sent 8 times: less memory
	benchEnv      = "ARROWPACK_FLIGHT_BENCH_SERVER"
)

var (
	benchRoundsFlag    = flag.Int("flight.rounds", 7, "interleaved rounds of the DoGet benchmark per operation")
	benchWays          = flag.String("flight.ways", "", "comma-separated ways of the DoGet benchmark to run (default all), to profile one")
	benchBuffers       = flag.Int("flight.buffers", DefaultReadBufferSize, "gRPC read and write buffer size of the DoGet benchmark's both ends (0: gRPC's default)")
	benchWindow        = flag.Int("flight.window", 0, "gRPC stream and connection window of the DoGet benchmark's both ends (0: dynamic)")
	benchZeroing       = flag.Bool("flight.zeroing", false, "use gRPC's zeroing default buffer pool in the DoGet benchmark")
	benchLevel         = flag.Int("flight.level", 0, "compression level of the DoGet benchmark's arrowpack ways (codec.WithCompressionLevel; IPC has none)")
	benchConcurrency   = flag.Int("flight.concurrency", 1, "goroutines per block compressing in the DoGet benchmark's arrowpack (codec.WithConcurrency) and IPC (ipc.WithCompressConcurrency) ways")
	benchServerProfile = flag.String("flight.serverprofile", "", "write the benchmark server's CPU profile to this file")
)

func TestMain(m *testing.M) {
	if os.Getenv(benchEnv) != "" {
		os.Exit(benchServerMain())
	}
	code := m.Run()
	if benchChild.stdin != nil { // let the benchmark server end (and write its profile)
		benchChild.stdin.Close()
		benchChild.cmd.Wait()
	}
	os.Exit(code)
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

// benchServer streams the benchmark batches: ticket "F/C", F a format
// (arrowpack, ipc or floor), C a compression; the action "cpu" returns the
// process's CPU seconds.
type benchServer struct {
	aflight.BaseFlightServer
	recs   []arrow.RecordBatch
	store  *Server // holds the benchmark's stream as "bench-C", C a compression
	mu     sync.Mutex
	blocks map[codec.Compression][]*sendBlock // the floor's blocks
}

// floorBlocks returns the benchmark batches encoded with comp, each held by
// a sendBlock that is never given back.
func (s *benchServer) floorBlocks(comp codec.Compression) ([]*sendBlock, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.blocks[comp]; ok {
		return b, nil
	}
	enc, err := codec.NewEncoder(s.recs[0].Schema(), codec.WithCompression(comp))
	if err != nil {
		return nil, err
	}
	var out []*sendBlock
	for _, rec := range s.recs {
		blk, err := enc.Append(nil, rec)
		if err != nil {
			return nil, err
		}
		if len(blk) > DefaultMaxMessageSize {
			return nil, fmt.Errorf("floor block of %d bytes is over one message", len(blk))
		}
		out = append(out, newSendBlock(blk, nil))
	}
	s.blocks[comp] = out
	return out, nil
}

func (s *benchServer) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	format, name, _ := strings.Cut(string(t.Ticket), "/")
	comp := map[string]codec.Compression{"none": codec.None, "lz4": codec.LZ4, "zstd": codec.Zstd}[name]
	schema := s.recs[0].Schema()
	var w batchWriter
	switch format {
	case "stored": // the Server's DoGet, blocks passed through
		return s.store.DoGet(&aflight.Ticket{Ticket: []byte("bench-" + name)}, stream)
	case "reencode": // what the Server's DoGet did before: decode, encode
		f, err := os.Open(filepath.Join(s.store.dir, "bench-"+name+fileExt))
		if err != nil {
			return err
		}
		defer f.Close()
		r, err := codec.NewReader(bufio.NewReaderSize(f, 1<<20))
		if err != nil {
			return err
		}
		defer r.Release()
		w, err := NewWriter(stream, r.Schema(), codec.WithCompression(comp))
		if err != nil {
			return err
		}
		return batches.Copy(w, r)
	case "p16", "p16-co", "p256", "p256-co": // small batches, coalesced or not
		piece := 16
		if strings.HasPrefix(format, "p256") {
			piece = 256
		}
		opts := []codec.Option{codec.WithCompression(comp)}
		if strings.HasSuffix(format, "-co") {
			opts = append(opts, codec.WithBlockRows(benchRows))
		}
		aw, err := NewWriter(stream, schema, opts...)
		if err != nil {
			return err
		}
		for i := range benchPieceBatches {
			rec := s.recs[i%len(s.recs)]
			for off := int64(0); off < rec.NumRows(); off += int64(piece) {
				p := rec.NewSlice(off, min(off+int64(piece), rec.NumRows()))
				err := aw.Write(p)
				p.Release()
				if err != nil {
					return err
				}
			}
		}
		return aw.Close()
	case "arrowpack":
		aw, err := NewWriter(stream, schema, codec.WithCompression(comp),
			codec.WithCompressionLevel(*benchLevel), codec.WithConcurrency(*benchConcurrency))
		if err != nil {
			return err
		}
		w = aw
	case "ipc":
		opts, err := measure.IPCOptions(schema, comp, *benchConcurrency)
		if err != nil {
			return err
		}
		w = aflight.NewRecordWriter(stream, opts...)
	case "floor":
		blks, err := s.floorBlocks(comp)
		if err != nil {
			return err
		}
		for i := range benchBatches {
			sb := blks[i%len(blks)]
			if err := stream.SendMsg(&sendMsg{FlightData: &aflight.FlightData{DataBody: sb.buf}, owner: sb}); err != nil {
				return err
			}
		}
		return nil
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

// benchTransport is the transport settings of the benchmark's both ends,
// from its flags (passed to the server in the environment).
func benchTransport() []TransportOption {
	opts := []TransportOption{WithBufferSizes(*benchBuffers, *benchBuffers)}
	if *benchWindow > 0 {
		opts = append(opts, WithWindowSizes(int32(*benchWindow), int32(*benchWindow)))
	}
	if *benchZeroing {
		opts = append(opts, WithZeroingBufferPool())
	}
	return opts
}

// writeBenchStream stores the benchmark's stream compressed with comp.
func writeBenchStream(path string, recs []arrow.RecordBatch, comp codec.Compression) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	w, err := codec.NewWriter(bw, recs[0].Schema(), codec.WithCompression(comp))
	if err != nil {
		return err
	}
	for i := range benchBatches {
		if err := w.Write(recs[i%len(recs)]); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// benchServerMain serves the benchmark on two ports of 127.0.0.1, with
// Codec and with the standard codec (same transport settings), prints the
// two addresses and stops when its standard input closes.
func benchServerMain() int {
	s := &benchServer{recs: benchBatchSet(), blocks: map[codec.Compression][]*sendBlock{}}
	dir, err := os.MkdirTemp("", "arrowpack-flight-bench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if s.store, err = NewServer(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, comp := range []codec.Compression{codec.None, codec.LZ4, codec.Zstd} {
		if err := writeBenchStream(filepath.Join(dir, "bench-"+comp.String()+fileExt), s.recs, comp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if path := os.Getenv(benchEnv + "_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		pprof.StartCPUProfile(f)
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	var addrs []string
	var srvs []aflight.Server
	flag.Parse()
	for _, opts := range [][]TransportOption{nil, {WithStandardCodec()}, grpcDefaults} {
		srv := aflight.NewServerWithMiddleware(nil, GRPCServerOptions(append(benchTransport(), opts...)...)...)
		if err := srv.Init("127.0.0.1:0"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		srv.RegisterFlightService(s)
		addrs = append(addrs, srv.Addr().String())
		srvs = append(srvs, srv)
	}
	fmt.Println(strings.Join(addrs, " "))
	go func() {
		io.Copy(io.Discard, os.Stdin)
		for _, srv := range srvs {
			srv.Shutdown()
		}
	}()
	errs := make(chan error, len(srvs))
	for _, srv := range srvs {
		go func() { errs <- srv.Serve() }()
	}
	for range srvs {
		if err := <-errs; err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// wireCounter counts the payload bytes a client connection receives.
type wireCounter struct{ bytes atomic.Int64 }

func (w *wireCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (w *wireCounter) HandleRPC(_ context.Context, s stats.RPCStats) {
	if p, ok := s.(*stats.InPayload); ok {
		w.bytes.Add(int64(p.WireLength))
	}
}
func (w *wireCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (w *wireCounter) HandleConn(context.Context, stats.ConnStats) {}

var benchChild struct {
	once  sync.Once
	addrs []string // with Codec, with the standard codec
	err   error
	stdin io.WriteCloser // the child stops when it closes (at exit)
	cmd   *exec.Cmd
}

// startBenchServer starts the child server once per benchmark run.
func startBenchServer(b *testing.B) []string {
	benchChild.once.Do(func() {
		cmd := exec.Command(os.Args[0], "-test.run=^$", "-flight.buffers="+strconv.Itoa(*benchBuffers),
			"-flight.level="+strconv.Itoa(*benchLevel), "-flight.concurrency="+strconv.Itoa(*benchConcurrency),
			"-flight.window="+strconv.Itoa(*benchWindow), "-flight.zeroing="+strconv.FormatBool(*benchZeroing))
		cmd.Env = append(os.Environ(), benchEnv+"=1")
		if *benchServerProfile != "" {
			cmd.Env = append(cmd.Env, benchEnv+"_PROFILE="+*benchServerProfile)
		}
		benchChild.cmd = cmd
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
		benchChild.addrs = strings.Fields(line)
		benchChild.stdin = stdin
	})
	if benchChild.err != nil {
		b.Fatal(benchChild.err)
	}
	return benchChild.addrs
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

// benchClient is a client of the benchmark server and the bytes it
// received.
type benchClient struct {
	aflight.Client
	wire *wireCounter
}

func dialBench(b *testing.B, addr string, opts ...TransportOption) benchClient {
	wc := &wireCounter{}
	do := append(GRPCDialOptions(append(benchTransport(), opts...)...), grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithStatsHandler(wc))
	c, err := aflight.NewClientWithMiddleware(addr, nil, nil, do...)
	if err != nil {
		b.Fatal(err)
	}
	return benchClient{c, wc}
}

// benchVariants are the ways of the DoGet benchmark, in the order of each
// round.
var benchVariants = []string{"arrowpack", "arrowpack-std", "ipc", "floor", "arrowpack-grpc", "ipc-grpc"}

// grpcDefaults are gRPC's own transport settings and codec, as arrow-go's
// Flight has them out of the box: the ways "arrowpack-grpc" and "ipc-grpc".
var grpcDefaults = []TransportOption{WithStandardCodec(), WithBufferSizes(0, 0), WithZeroingBufferPool()}

// benchRun is one DoGet of one variant.
type benchRun struct {
	secs, srvCPU, cliCPU float64
	wire                 int64
}

// BenchmarkDoGet measures DoGets of 200 lineitem batches of 8,192 rows,
// per compression, in the ways above (the first four with the same transport
// settings), interleaved: each operation is -flight.rounds rounds (7 by
// default) of one DoGet of each way in turn. It reports, per way, the
// median rows/s, GB/s (of uncompressed arrowpack data), CPU s/GB of server
// and client and wire bytes, and the median and range of the per-round
// ratios that the targets are stated in. Run it with -benchtime=1x:
//
//	go test ./flight -run '^$' -bench DoGet -benchtime=1x
func BenchmarkDoGet(b *testing.B) {
	benchRounds(b, benchVariants, []benchRatio{
		{"arrowpack/ipc-rows/s", "arrowpack", "ipc", benchSpeed},
		{"arrowpack/floor-rows/s", "arrowpack", "floor", benchSpeed},
		{"arrowpack-std/ipc-rows/s", "arrowpack-std", "ipc", benchSpeed},
		{"arrowpack/arrowpack-std-rows/s", "arrowpack", "arrowpack-std", benchSpeed},
		{"arrowpack/ipc-client-CPU", "arrowpack", "ipc", func(r benchRun) float64 { return r.cliCPU }},
		{"arrowpack/ipc-server-CPU", "arrowpack", "ipc", func(r benchRun) float64 { return r.srvCPU }},
		{"arrowpack/ipc-wire-bytes", "arrowpack", "ipc", func(r benchRun) float64 { return float64(r.wire) }},
		{"arrowpack/ipc-grpc-rows/s", "arrowpack", "ipc-grpc", benchSpeed},
		{"arrowpack/arrowpack-grpc-rows/s", "arrowpack", "arrowpack-grpc", benchSpeed},
		{"arrowpack/ipc-grpc-client-CPU", "arrowpack", "ipc-grpc", func(r benchRun) float64 { return r.cliCPU }},
	})
}

// BenchmarkStoredDoGet measures the Server's DoGet of a stored stream (the
// same 200 batches) to a client asking for the stored compression, whose
// blocks pass through, against decoding and encoding every block again (the
// Server's DoGet before pass-through) and against the floor (the blocks
// sent from memory, what the transport alone costs), interleaved as
// BenchmarkDoGet.
func BenchmarkStoredDoGet(b *testing.B) {
	srvCPU := func(r benchRun) float64 { return r.srvCPU }
	benchRounds(b, []string{"stored", "reencode", "floor"}, []benchRatio{
		{"stored/reencode-server-CPU", "stored", "reencode", srvCPU},
		{"stored/reencode-rows/s", "stored", "reencode", benchSpeed},
		{"stored/floor-server-CPU", "stored", "floor", srvCPU},
	})
}

// BenchmarkCoalescedDoGet measures a DoGet of 10 batches of 8,192 rows sent
// as pieces of 16 and of 256 rows, by a Writer that sends each piece as a
// block and by one that coalesces them (codec.WithBlockRows(8192)),
// interleaved as BenchmarkDoGet.
func BenchmarkCoalescedDoGet(b *testing.B) {
	benchRounds(b, []string{"p16", "p16-co", "p256", "p256-co"}, []benchRatio{
		{"p16-coalesced/p16-rows/s", "p16-co", "p16", benchSpeed},
		{"p256-coalesced/p256-rows/s", "p256-co", "p256", benchSpeed},
		{"p16-coalesced/p16-server-CPU", "p16-co", "p16", func(r benchRun) float64 { return r.srvCPU }},
		{"p16-coalesced/p16-client-CPU", "p16-co", "p16", func(r benchRun) float64 { return r.cliCPU }},
	}, codec.None, codec.LZ4)
}

// benchRatio is a ratio of two ways' runs, per round.
type benchRatio struct {
	name, num, den string
	f              func(benchRun) float64
}

func benchSpeed(r benchRun) float64 { return 1 / r.secs }

// benchRounds runs the interleaved rounds of ways per compression and
// reports them.
func benchRounds(b *testing.B, allWays []string, ratios []benchRatio, comps ...codec.Compression) {
	if len(comps) == 0 {
		comps = []codec.Compression{codec.None, codec.LZ4, codec.Zstd}
	}
	addrs := startBenchServer(b)
	clients := map[string]benchClient{
		"codec":    dialBench(b, addrs[0]),
		"standard": dialBench(b, addrs[1], WithStandardCodec()),
		"default":  dialBench(b, addrs[2], grpcDefaults...),
	}
	for _, c := range clients {
		defer c.Close()
	}
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
	gb := float64(dataBytes) / 1e9
	ways := allWays
	if *benchWays != "" {
		ways = strings.Split(*benchWays, ",")
	}
	for _, comp := range comps {
		b.Run(comp.String(), func(b *testing.B) {
			runs := map[string][]benchRun{}
			one := func(v string) benchRun {
				c := clients["codec"]
				switch {
				case v == "arrowpack-std" || v == "ipc":
					c = clients["standard"]
				case strings.HasSuffix(v, "-grpc"):
					c = clients["default"]
				}
				format := strings.TrimSuffix(strings.TrimSuffix(v, "-std"), "-grpc")
				ticket := &aflight.Ticket{Ticket: []byte(format + "/" + comp.String())}
				ctx := context.Background()
				if format == "stored" {
					ctx = Accept(ctx, comp)
				}
				srv0, cli0, wire0 := serverCPU(b, c.Client), cpuSeconds(), c.wire.bytes.Load()
				start := time.Now()
				doGet(ctx, b, c.Client, format, ticket)
				secs := time.Since(start).Seconds()
				return benchRun{secs: secs, srvCPU: serverCPU(b, c.Client) - srv0, cliCPU: cpuSeconds() - cli0, wire: c.wire.bytes.Load() - wire0}
			}
			for _, v := range ways {
				one(v) // warm up: gRPC grows its flow control windows
			}
			b.ResetTimer()
			for range b.N {
				for range *benchRoundsFlag {
					for _, v := range ways {
						runs[v] = append(runs[v], one(v))
					}
				}
			}
			b.StopTimer()
			reportDoGet(b, allWays, runs, gb, ratios)
		})
	}
}

// reportDoGet reports the medians of each way's runs and the ratios, per
// round, with their ranges.
func reportDoGet(b *testing.B, ways []string, runs map[string][]benchRun, gb float64, ratios []benchRatio) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "load average %s; %d rounds\n", loadAverage(), *benchRoundsFlag*b.N)
	fmt.Fprintf(&sb, "%-14s %12s %8s %14s %14s %12s\n", "way", "Mrows/s", "GB/s", "server CPU s/GB", "client CPU s/GB", "wire MB")
	for _, v := range ways {
		rs := runs[v]
		if len(rs) == 0 {
			continue
		}
		rows := float64(benchRowsOf(v))
		gb := gb * rows / (benchBatches * benchRows)
		rps := median(each(rs, func(r benchRun) float64 { return rows / r.secs }))
		gbs := median(each(rs, func(r benchRun) float64 { return gb / r.secs }))
		srv := median(each(rs, func(r benchRun) float64 { return r.srvCPU / gb }))
		cli := median(each(rs, func(r benchRun) float64 { return r.cliCPU / gb }))
		wire := median(each(rs, func(r benchRun) float64 { return float64(r.wire) / 1e6 }))
		fmt.Fprintf(&sb, "%-14s %12.2f %8.2f %14.3f %14.3f %12.1f\n", v, rps/1e6, gbs, srv, cli, wire)
		b.ReportMetric(rps, v+"-rows/s")
		b.ReportMetric(srv, v+"-srv-CPU-s/GB")
		b.ReportMetric(cli, v+"-cli-CPU-s/GB")
	}
	for _, r := range ratios {
		if len(runs[r.num]) == 0 || len(runs[r.den]) == 0 {
			continue
		}
		var rs []float64
		for i := range runs[r.num] {
			rs = append(rs, r.f(runs[r.num][i])/r.f(runs[r.den][i]))
		}
		med := median(rs)
		fmt.Fprintf(&sb, "%-36s %.2fx [%.2f-%.2f]\n", r.name, med, slices.Min(rs), slices.Max(rs))
		b.ReportMetric(med, r.name)
	}
	// Printed rather than logged: the testing package cuts a benchmark's
	// log short.
	fmt.Printf("--- %s\n%s", b.Name(), sb.String())
}

func each(rs []benchRun, f func(benchRun) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// loadAverage is the machine's load average (other engineers' work).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// doGet reads the benchmark stream of ticket with format's reader.
func doGet(ctx context.Context, b *testing.B, c aflight.Client, format string, ticket *aflight.Ticket) {
	stream, err := c.DoGet(ctx, ticket)
	if err != nil {
		b.Fatal(err)
	}
	if format == "floor" {
		rs := stream.(msgReceiver)
		n := 0
		for {
			m := &recvMsg{FlightData: new(aflight.FlightData)}
			if err := rs.RecvMsg(m); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				b.Fatal(err)
			}
			m.buffer().Release()
			n++
		}
		if n != benchBatches {
			b.Fatalf("%d messages, want %d", n, benchBatches)
		}
		return
	}
	var r interface {
		Next() bool
		RecordBatch() arrow.RecordBatch
		Err() error
		Release()
	}
	if format != "ipc" {
		r, err = NewReader(stream)
	} else {
		r, err = aflight.NewRecordReader(stream)
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
	if want := benchRowsOf(format); rows != want {
		b.Fatalf("%d rows, want %d", rows, want)
	}
}

// benchPieceBatches is how many of the benchmark's batches the ways of
// BenchmarkCoalescedDoGet send, in pieces.
const benchPieceBatches = 10

// benchRowsOf is the rows a DoGet of a way sends.
func benchRowsOf(format string) int {
	if strings.HasPrefix(format, "p") {
		return benchPieceBatches * benchRows
	}
	return benchBatches * benchRows
}
