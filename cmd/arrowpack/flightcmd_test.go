package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"github.com/arrowpack/arrowpack/internal/batches"
	"google.golang.org/grpc"
)

// startFlight starts an arrowpack Flight server (flight.Server) on a port
// of 127.0.0.1 the system chooses, storing in a new temporary directory,
// and returns its address; it stops when the test ends. wrap, if not nil,
// returns the service to register in place of the server itself (to make
// it fail, say).
func startFlight(t *testing.T, wrap func(*flight.Server) aflight.FlightServer) string {
	t.Helper()
	store, err := flight.NewServer(t.TempDir(), codec.WithCompression(codec.LZ4))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var svc aflight.FlightServer = store
	if wrap != nil {
		svc = wrap(store)
	}
	srv := grpc.NewServer()
	aflight.RegisterFlightServiceServer(srv, svc)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// putTest puts the test batches (an IPC stream written to dir) to the
// server at addr under path and returns them.
func putTest(t *testing.T, addr, dir, path string) []arrow.RecordBatch {
	t.Helper()
	in, recs := testStream(t, dir)
	if code, _, stderr := runCmd(t, "put", "-addr", addr, in, path); code != 0 {
		t.Fatalf("put: %d %s", code, stderr)
	}
	return recs
}

// cutServer serves DoGet's first messages (the schema is one) and then
// fails the call, as a server that dies mid-stream.
type cutServer struct {
	*flight.Server
	after int
}

func (s cutServer) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	return s.Server.DoGet(t, &cutStream{FlightService_DoGetServer: stream, left: s.after})
}

type cutStream struct {
	aflight.FlightService_DoGetServer
	left int
}

func (c *cutStream) Send(d *aflight.FlightData) error {
	if c.left == 0 {
		return errors.New("the test cuts the stream here")
	}
	c.left--
	return c.FlightService_DoGetServer.Send(d)
}

// TestGetNeverLosesTheTarget (issue 19 item 1): get refuses to replace an
// existing file without -f; a transfer that fails part way leaves the
// target as it was and no temporary file; -f replaces it with the stream.
func TestGetNeverLosesTheTarget(t *testing.T) {
	good := startFlight(t, nil)
	cut := startFlight(t, func(s *flight.Server) aflight.FlightServer { return cutServer{s, 3} })
	src := t.TempDir()
	recs := putTest(t, good, src, "t/line")
	putTest(t, cut, src, "t/line")

	dir := t.TempDir()
	target := filepath.Join(dir, "p.apk")
	old := []byte("what was there before")
	if err := os.WriteFile(target, old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "get", "-addr", good, "t/line", target)
	checkFailure(t, code, stderr, 1, "give -f to replace it")
	checkIntact(t, target, old, dir, "p.apk")

	code, _, stderr = runCmd(t, "get", "-addr", cut, "-f", "t/line", target)
	checkFailure(t, code, stderr, 1, "the test cuts the stream here")
	checkIntact(t, target, old, dir, "p.apk")

	// Nothing appears when there was nothing.
	fresh := filepath.Join(dir, "fresh.parquet")
	code, _, stderr = runCmd(t, "get", "-addr", cut, "t/line", fresh)
	checkFailure(t, code, stderr, 1, "the test cuts the stream here")
	checkIntact(t, target, old, dir, "p.apk")

	if code, _, stderr := runCmd(t, "get", "-addr", good, "-f", "t/line", target); code != 0 {
		t.Fatalf("get -f: %d %s", code, stderr)
	}
	f, got := readAll(t, target)
	defer batches.Release(got)
	if f != formatArrowpack {
		t.Errorf("get -f wrote a %s", f)
	}
	checkSameBatches(t, got, recs)
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("the directory holds %v", names)
	}
}

// TestGetToStdout (issue 19 item 2): "get NAME -" writes the stream to
// stdout, which cat reads from its stdin, and no file named "-"; the
// status line goes to stderr.
func TestGetToStdout(t *testing.T) {
	addr := startFlight(t, nil)
	recs := putTest(t, addr, t.TempDir(), "ree")
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCmd(t, "get", "-addr", addr, "ree", "-")
	if code != 0 {
		t.Fatalf("get -: %d %s", code, stderr)
	}
	if !strings.Contains(stderr, "ree -> stdout") || !strings.Contains(stderr, "3 batches, 700 rows") {
		t.Errorf("the status line on stderr: %q", stderr)
	}
	if names := dirNames(t, "."); len(names) != 0 {
		t.Errorf("get - wrote files %v", names)
	}
	code, out, stderr := runWith(t, strings.NewReader(stdout), "cat", "-json", "-")
	if code != 0 {
		t.Fatalf("get - | cat -: %d %s", code, stderr)
	}
	if n := strings.Count(out, "\n"); n != 700 {
		t.Errorf("cat read %d rows from get's stdout, want 700", n)
	}
	// And the bytes are the arrowpack stream of the batches.
	checkSameBatches(t, readStream(t, stdout), recs)
}

// readStream reads the batches of the arrowpack stream s, released when
// the test ends.
func readStream(t *testing.T, s string) []arrow.RecordBatch {
	t.Helper()
	r, err := codec.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	got, err := batches.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { batches.Release(got) })
	return got
}

// TestPutRefusesToReplace (issue 19 item 3): a put onto a stored stream
// fails with a message saying so and leaves the stored stream as it was;
// put -f replaces it.
func TestPutRefusesToReplace(t *testing.T) {
	addr := startFlight(t, nil)
	dir := t.TempDir()
	recs := putTest(t, addr, dir, "tiny")
	pq := filepath.Join(dir, "other.parquet")
	other := lineitem(t, 8)
	writeParquet(t, pq, other)
	code, _, stderr := runCmd(t, "put", "-addr", addr, pq, "tiny")
	checkFailure(t, code, stderr, 1, "tiny is already stored on "+addr+": give -f to replace it")
	out := filepath.Join(dir, "back.apk")
	if code, _, stderr := runCmd(t, "get", "-addr", addr, "tiny", out); code != 0 {
		t.Fatal(stderr)
	}
	_, got := readAll(t, out)
	checkSameBatches(t, got, recs)
	batches.Release(got)

	if code, stdout, stderr := runCmd(t, "put", "-addr", addr, "-f", pq, "tiny"); code != 0 || !strings.Contains(stdout, "8 rows") {
		t.Fatalf("put -f: %d %q %q", code, stdout, stderr)
	}
	if code, _, stderr := runCmd(t, "get", "-addr", addr, "-f", "tiny", out); code != 0 {
		t.Fatal(stderr)
	}
	_, got = readAll(t, out)
	defer batches.Release(got)
	checkSameBatches(t, got, []arrow.RecordBatch{other})
}

// TestPutHelp (issue 19 item 14, the put part): the help of put names the
// value of -batch-rows, not a placeholder "input", and every compression
// put can send (minlz too), which the server stores.
func TestPutHelp(t *testing.T) {
	_, out, _ := runCmd(t, "help", "put")
	if strings.Contains(out, "-batch-rows input") || !strings.Contains(out, "-batch-rows n") ||
		strings.Count(out, "zstd|minlz|light") != 1 || strings.Count(out, "zstd, minlz or light") != 1 {
		t.Errorf("help put:\n%s", out)
	}
	addr := startFlight(t, nil)
	in, recs := testStream(t, t.TempDir())
	if code, _, stderr := runCmd(t, "put", "-addr", addr, "-compression", "minlz", in, "m"); code != 0 {
		t.Fatalf("put -compression minlz: %d %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, "get", "-addr", addr, "m", "-")
	if code != 0 {
		t.Fatalf("get: %d %s", code, stderr)
	}
	checkSameBatches(t, readStream(t, stdout), recs)
}

// TestGetOutputFormat (issue 19 item 4): get writes the format the
// output's extension or -to names, as convert does; a name without an
// extension, and stdout, get an arrowpack stream; an extension that names
// no format is refused before anything is fetched.
func TestGetOutputFormat(t *testing.T) {
	addr := startFlight(t, nil)
	recs := putTest(t, addr, t.TempDir(), "g")
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want format
	}{
		{"g.parquet", nil, formatParquet},
		{"g.arrow", nil, formatIPCFile},
		{"g.arrows", []string{"-compression", "zstd"}, formatIPCStream},
		{"g.bin", []string{"-to", "ipc"}, formatIPCStream},
		{"g.parquet.apk", nil, formatArrowpack},
		{"g", nil, formatArrowpack},
		{"g-minlz", []string{"-compression", "minlz"}, formatArrowpack}, // refused by the server before
	} {
		out := filepath.Join(dir, c.name)
		args := append(append([]string{"get", "-addr", addr}, c.args...), "g", out)
		if code, _, stderr := runCmd(t, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
		f, got := readAll(t, out)
		if f != c.want {
			t.Errorf("%v wrote a %s, want a %s", args, f, c.want)
		}
		// Parquet's batches need not be the input's: compare the rows.
		checkSameBatches(t, []arrow.RecordBatch{concatBatches(t, got)}, []arrow.RecordBatch{concatBatches(t, recs)})
		batches.Release(got)
	}
	code, _, stderr := runCmd(t, "get", "-addr", addr, "g", filepath.Join(dir, "g.csv"))
	checkFailure(t, code, stderr, 2, "cannot tell the output format")
	code, _, stderr = runCmd(t, "get", "-addr", addr, "-to", "csv", "g", filepath.Join(dir, "h"))
	checkFailure(t, code, stderr, 2, "unknown output format")
}

// concatBatches returns the rows of recs in one batch, released when the
// test ends.
func concatBatches(t *testing.T, recs []arrow.RecordBatch) arrow.RecordBatch {
	t.Helper()
	mem := memory.NewGoAllocator()
	cols := make([]arrow.Array, recs[0].NumCols())
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		col, err := array.Concatenate(parts, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer col.Release()
		cols[i] = col
	}
	rec := array.NewRecordBatch(recs[0].Schema(), cols, rows)
	t.Cleanup(rec.Release)
	return rec
}

// unknownTotals reports every stream's rows and bytes as unknown (-1), as
// Flight servers that do not count them do.
type unknownTotals struct{ *flight.Server }

func (s unknownTotals) ListFlights(c *aflight.Criteria, stream aflight.FlightService_ListFlightsServer) error {
	return s.Server.ListFlights(c, minusOne{stream})
}

type minusOne struct {
	aflight.FlightService_ListFlightsServer
}

func (m minusOne) Send(fi *aflight.FlightInfo) error {
	fi.TotalRecords, fi.TotalBytes = -1, -1
	return m.FlightService_ListFlightsServer.Send(fi)
}

// TestList (issue 19 item 12): ls (or list) shows every stored stream with
// its rows and bytes, as a table or JSON; "-" where the server does not
// know them.
func TestList(t *testing.T) {
	addr := startFlight(t, nil)
	code, out, stderr := runCmd(t, "ls", "-addr", addr)
	if code != 0 || out != "" || !strings.Contains(stderr, "no streams") {
		t.Errorf("ls of an empty server: %d %q %q", code, out, stderr)
	}
	dir := t.TempDir()
	putTest(t, addr, dir, "tables/lineitem")
	pq := filepath.Join(dir, "small.parquet")
	writeParquet(t, pq, lineitem(t, 8))
	if code, _, stderr := runCmd(t, "put", "-addr", addr, pq, "small"); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr = runCmd(t, "ls", "-addr", addr)
	if code != 0 {
		t.Fatalf("ls: %d %s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 || !regexp.MustCompile(`^PATH +ROWS +BYTES$`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^small +8 +[1-9][0-9]*$`).MatchString(lines[1]) ||
		!regexp.MustCompile(`^tables/lineitem +700 +[1-9][0-9]*$`).MatchString(lines[2]) {
		t.Errorf("ls:\n%s", out)
	}
	if code, listed, _ := runCmd(t, "list", "-addr", addr); code != 0 || listed != out {
		t.Errorf("list differs from ls: %d\n%s", code, listed)
	}
	code, out, stderr = runCmd(t, "ls", "-addr", addr, "-json")
	var streams []struct {
		Path  string `json:"path"`
		Rows  int64  `json:"rows"`
		Bytes int64  `json:"bytes"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &streams) != nil || len(streams) != 2 ||
		streams[0].Path != "small" || streams[0].Rows != 8 || streams[0].Bytes <= 0 ||
		streams[1].Path != "tables/lineitem" || streams[1].Rows != 700 || streams[1].Bytes <= 0 {
		t.Errorf("ls -json: %d %q\n%s", code, stderr, out)
	}
	code, out, _ = runCmd(t, "ls", "-addr", addr, "tables/")
	if code != 0 || strings.Contains(out, "small") || !strings.Contains(out, "tables/lineitem") {
		t.Errorf("ls tables/:\n%s", out)
	}

	unknown := startFlight(t, func(s *flight.Server) aflight.FlightServer { return unknownTotals{s} })
	putTest(t, unknown, dir, "u")
	code, out, _ = runCmd(t, "ls", "-addr", unknown)
	if !regexp.MustCompile(`\nu +- +-\n$`).MatchString(out) {
		t.Errorf("ls of unknown totals: %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "ls", "-addr", unknown, "-json")
	if !bytes.Contains([]byte(out), []byte(`"rows": -1`)) {
		t.Errorf("ls -json of unknown totals: %d\n%s", code, out)
	}
	code, _, stderr = runCmd(t, "ls")
	checkFailure(t, code, stderr, 2, "-addr is required")
}

// syncRecorder is a durable.Syncer that records what it was asked to sync.
type syncRecorder struct {
	files, dirs []string
}

func (r *syncRecorder) SyncFile(f *os.File) error {
	r.files = append(r.files, f.Name())
	return f.Sync()
}

func (r *syncRecorder) SyncDir(dir string) error {
	r.dirs = append(r.dirs, dir)
	return nil
}

// TestGetSyncs (issue 22): get syncs its output file, then its directory,
// before it reports success; -no-sync skips both.
func TestGetSyncs(t *testing.T) {
	rec := &syncRecorder{}
	saved := syncer
	syncer = rec
	defer func() { syncer = saved }()
	addr := startFlight(t, nil)
	putTest(t, addr, t.TempDir(), "s")
	dir := t.TempDir()
	if code, _, stderr := runCmd(t, "get", "-addr", addr, "s", filepath.Join(dir, "s.apk")); code != 0 {
		t.Fatal(stderr)
	}
	if len(rec.files) != 1 || filepath.Dir(rec.files[0]) != dir || len(rec.dirs) != 1 || rec.dirs[0] != dir {
		t.Errorf("get synced files %v and directories %v, want a file in %s and %s", rec.files, rec.dirs, dir, dir)
	}
	*rec = syncRecorder{}
	if code, _, stderr := runCmd(t, "get", "-addr", addr, "-no-sync", "s", filepath.Join(dir, "t.apk")); code != 0 {
		t.Fatal(stderr)
	}
	if len(rec.files)+len(rec.dirs) != 0 {
		t.Errorf("get -no-sync synced files %v and directories %v", rec.files, rec.dirs)
	}
}

// TestGetParquetWarns (issue 19 items 4 and 7): get into a Parquet file
// warns, as convert does, about each type Parquet will give back as
// another, before it writes.
func TestGetParquetWarns(t *testing.T) {
	addr := startFlight(t, nil)
	dir := t.TempDir()
	b := array.NewDate64Builder(memory.NewGoAllocator())
	defer b.Release()
	b.AppendValues([]arrow.Date64{0, 86_400_000}, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "day", Type: arrow.FixedWidthTypes.Date64, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 2)
	defer rec.Release()
	in := filepath.Join(dir, "days.arrows")
	writeIPC(t, in, []arrow.RecordBatch{rec}, false)
	if code, _, stderr := runCmd(t, "put", "-addr", addr, in, "days"); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runCmd(t, "get", "-addr", addr, "days", filepath.Join(dir, "days.parquet"))
	if code != 0 || !strings.Contains(stderr, "arrowpack get: warning: Parquet cannot hold field day as date64") {
		t.Errorf("get into Parquet: %d %q", code, stderr)
	}
}
