//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// What the crash and load tests share: the arrowpack binary built once,
// `arrowpack serve` run as a real process on 127.0.0.1 at a port the OS
// picks, and clients putting and getting streams whose rows they can
// check by a checksum.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// arrowpackBinary builds the command into a temporary directory once per
// test binary, for the test's own OS, architecture and kernels, and
// returns its path. Under an emulator (GOARCH=arm64 go test -exec qemu-...)
// the test is skipped: the child would run emulated too, far too slowly.
// 386 on an amd64 host runs natively.
func arrowpackBinary(t *testing.T) string {
	t.Helper()
	host, err := exec.Command("go", "env", "GOHOSTOS", "GOHOSTARCH").Output()
	if err != nil {
		t.Skipf("no go command to build arrowpack: %v", err)
	}
	h := strings.Fields(string(host))
	if len(h) != 2 || h[0] != runtime.GOOS || h[1] != runtime.GOARCH && !(h[1] == "amd64" && runtime.GOARCH == "386") {
		t.Skipf("the test runs as %s/%s on a %v host: the server would be emulated", runtime.GOOS, runtime.GOARCH, h)
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "arrowpack-bin-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "arrowpack")
		args := []string{"build", "-o", builtBin}
		if arrowpack.Implementation() == "generic" {
			args = append(args, "-tags", "purego") // as this test binary
		}
		build := exec.Command("go", append(args, ".")...)
		build.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// TestMain removes the binary arrowpackBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// serveProc is a running `arrowpack serve`.
type serveProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *syncBuffer
	exited chan struct{}
}

// startServe runs `arrowpack serve -dir dir args...` and waits for the
// address it prints.
func startServe(t *testing.T, bin, dir string, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve", "-addr", "127.0.0.1:0", "-dir", dir}, args...)...)
	p.cmd.Stderr = p.stderr
	dieWithTest(p.cmd)
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.kill)
	select {
	case line := <-lines:
		s, ok := strings.CutPrefix(line, "listening on ")
		if !ok {
			t.Fatalf("serve printed %q", line)
		}
		p.addr, _, _ = strings.Cut(s, ",")
	case <-p.exited:
		t.Fatalf("serve exited: %s", p.stderr)
	case <-time.After(60 * time.Second):
		t.Fatal("serve printed no address in 60 s")
	}
	return p
}

// kill kills the server with SIGKILL and waits for it to be gone.
func (p *serveProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// peakRSS returns the server's peak resident memory (VmHWM), or -1 where
// /proc does not tell it.
func (p *serveProc) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return -1
}

// flightClient is a Flight client of addr.
func flightClient(t *testing.T, addr string) aflight.Client {
	t.Helper()
	c, err := aflight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var procSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// procStream returns the batches of the stream of seed: n batches of
// random rows, and the checksum of its rows.
func procStream(seed uint64, n, rows int) ([]arrow.RecordBatch, uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	var recs []arrow.RecordBatch
	for range n {
		b := array.NewRecordBuilder(memory.DefaultAllocator, procSchema)
		for range rows {
			b.Field(0).(*array.Int64Builder).Append(r.Int64())
			if r.IntN(10) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(strconv.FormatUint(r.Uint64(), 36))
			}
			b.Field(2).(*array.Float64Builder).Append(r.Float64())
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return recs, rowsChecksum(recs)
}

// rowsChecksum hashes the rows of recs, in order (procSchema only).
func rowsChecksum(recs []arrow.RecordBatch) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	word := func(v uint64) {
		for i := range buf {
			buf[i] = byte(v >> (8 * i))
		}
		h.Write(buf[:])
	}
	for _, rec := range recs {
		ids := rec.Column(0).(*array.Int64)
		names := rec.Column(1).(*array.String)
		prices := rec.Column(2).(*array.Float64)
		for i := range int(rec.NumRows()) {
			word(uint64(ids.Value(i)))
			if names.IsNull(i) {
				word(math.MaxUint64)
			} else {
				word(uint64(len(names.Value(i))))
				h.Write([]byte(names.Value(i)))
			}
			word(math.Float64bits(prices.Value(i)))
		}
	}
	return h.Sum64()
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// procPut puts recs under name and waits for the server's answer: nil
// means the put was acknowledged.
func procPut(ctx context.Context, c aflight.Client, name string, recs []arrow.RecordBatch) error {
	stream, err := c.DoPut(ctx)
	if err != nil {
		return err
	}
	w, err := flight.NewWriter(stream, procSchema, codec.WithCompression(codec.LZ4))
	if err != nil {
		return err
	}
	w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{name}})
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := stream.CloseSend(); err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// procGet gets the stream stored under ticket and returns its rows'
// checksum and count.
func procGet(ctx context.Context, c aflight.Client, ticket string) (uint64, int64, error) {
	stream, err := c.DoGet(flight.Accept(ctx, codec.None), &aflight.Ticket{Ticket: []byte(ticket)})
	if err != nil {
		return 0, 0, err
	}
	r, err := flight.NewReader(stream)
	if err != nil {
		return 0, 0, err
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	defer func() { releaseAll(recs) }()
	var rows int64
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		return 0, 0, err
	}
	if !r.Schema().Equal(procSchema) {
		return 0, 0, fmt.Errorf("stream %s has schema %s", ticket, r.Schema())
	}
	return rowsChecksum(recs), rows, nil
}

// procList returns the FlightInfos the server lists.
func procList(ctx context.Context, c aflight.Client) ([]*aflight.FlightInfo, error) {
	lf, err := c.ListFlights(ctx, &aflight.Criteria{})
	if err != nil {
		return nil, err
	}
	var out []*aflight.FlightInfo
	for {
		info, err := lf.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, info)
	}
}

// sent is what a client sent under one name.
type sent struct {
	sum  uint64
	rows int64
}

// ledger records the puts of the clients: every one tried, and the ones
// the server acknowledged.
type ledger struct {
	mu    sync.Mutex
	tried map[string]sent
	acked map[string]sent
}

func newLedger() *ledger {
	return &ledger{tried: map[string]sent{}, acked: map[string]sent{}}
}

func (l *ledger) try(name string, s sent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tried[name] = s
}

func (l *ledger) ack(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked[name] = l.tried[name]
}

// verifyStore checks a running server against the ledger: every
// acknowledged put is listed and reads back equal; whatever is listed was
// tried and reads back whole (a put the server committed but could not
// acknowledge before it died may be there, never a part of one); nothing
// listed is a temporary file. It returns how many tried-but-unacknowledged
// puts are listed.
func verifyStore(ctx context.Context, t *testing.T, c aflight.Client, l *ledger) int {
	t.Helper()
	infos, err := procList(ctx, c)
	if err != nil {
		t.Fatalf("ListFlights: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	listed := map[string]bool{}
	extra := 0
	for _, info := range infos {
		name := string(info.Endpoint[0].Ticket.Ticket)
		listed[name] = true
		if strings.HasPrefix(name, ".") || strings.Contains(name, ".tmp-") {
			t.Errorf("a temporary file is listed: %q", name)
			continue
		}
		want, ok := l.tried[name]
		if !ok {
			t.Errorf("listed %q, which no client put", name)
			continue
		}
		if _, ok := l.acked[name]; !ok {
			extra++
		}
		sum, rows, err := procGet(ctx, c, name)
		if err != nil {
			t.Errorf("get %s: %v", name, err)
			continue
		}
		if sum != want.sum || rows != want.rows || info.TotalRecords != want.rows {
			t.Errorf("%s: %d rows (listed %d), checksum %#x; put %d rows, checksum %#x", name, rows, info.TotalRecords, sum, want.rows, want.sum)
		}
	}
	for name := range l.acked {
		if !listed[name] {
			t.Errorf("the acknowledged put %s is not listed", name)
		}
	}
	return extra
}

// tempFiles returns the temporary files in dir.
func tempFiles(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}
