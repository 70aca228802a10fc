package flight

import (
	"bytes"
	"context"
	"errors"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// lockedBuffer is a log destination safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startStore starts a Server with options o in a new directory, logging to
// the returned buffer.
func startStore(t *testing.T, o ServerOptions) (*testServer, *lockedBuffer) {
	t.Helper()
	logs := &lockedBuffer{}
	o.Log = log.New(logs, "", 0)
	s, err := NewServerWith(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, s)
	ts.dir, ts.store = s.dir, s
	return ts, logs
}

func pathDescr(p ...string) *aflight.FlightDescriptor {
	return &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: p}
}

// putStatus is put, returning the server's status when the server ended
// the call before the client had sent everything (a Send then fails with
// io.EOF, and the status follows).
func putStatus(ctx context.Context, c aflight.Client, path []string, recs []arrow.RecordBatch) error {
	stream, err := c.DoPut(ctx)
	if err != nil {
		return err
	}
	w, err := NewWriter(stream, recs[0].Schema())
	if err != nil {
		return err
	}
	w.SetFlightDescriptor(&aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path})
	if err := batches.WriteAll(w, recs); err != nil {
		if serr := closePut(stream); serr != nil {
			return serr
		}
		return err
	}
	return closePut(stream)
}

// listAll returns the FlightInfos ListFlights sends.
func listAll(ctx context.Context, t *testing.T, c aflight.Client) []*aflight.FlightInfo {
	t.Helper()
	lf, err := c.ListFlights(ctx, &aflight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*aflight.FlightInfo
	for {
		info, err := lf.Recv()
		if err != nil {
			if status.Code(err) != codes.OK && !strings.Contains(err.Error(), "EOF") {
				t.Fatalf("ListFlights: %v", err)
			}
			return out
		}
		out = append(out, info)
	}
}

func tickets(infos []*aflight.FlightInfo) []string {
	var out []string
	for _, i := range infos {
		out = append(out, string(i.Endpoint[0].Ticket.Ticket))
	}
	return out
}

// A symbolic link in the store is never followed, whatever it points to;
// a file that is not a stream is damaged, and no status quotes its bytes.
func TestStoreServesOnlyItsRegularFiles(t *testing.T) {
	ts, logs := startStore(t, ServerOptions{})
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	recs := lineitemBatches(100)
	defer batches.Release(recs)
	if err := put(ctx, c, []string{"good"}, recs[0].Schema(), recs); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.apk")
	data, err := os.ReadFile(filepath.Join(ts.dir, "good.apk"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, data, 0o644); err != nil {
		t.Fatal(err)
	}
	passwd := filepath.Join(outside, "passwd")
	if err := os.WriteFile(passwd, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"stream": secret, "text": passwd} {
		if err := os.Symlink(target, filepath.Join(ts.dir, "link-"+name+".apk")); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(ts.dir, "junk.apk"), []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error, want codes.Code) {
		t.Helper()
		if status.Code(err) != want {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "root") {
			t.Errorf("%s: the status quotes the file: %v", what, err)
		}
	}
	for _, key := range []string{"link-stream", "link-text", "junk"} {
		want := codes.FailedPrecondition
		if key == "junk" {
			want = codes.DataLoss
		}
		stream, err := c.DoGet(ctx, &aflight.Ticket{Ticket: []byte(key)})
		if err == nil {
			_, err = stream.Recv()
		}
		check("DoGet "+key, err, want)
		_, err = c.GetFlightInfo(ctx, pathDescr(key))
		check("GetFlightInfo "+key, err, want)
		_, err = c.GetSchema(ctx, pathDescr(key))
		check("GetSchema "+key, err, want)
	}
	if got := tickets(listAll(ctx, t, c)); len(got) != 1 || got[0] != "good" {
		t.Errorf("ListFlights lists %q, want only good", got)
	}
	if !strings.Contains(logs.String(), "junk is damaged") || !strings.Contains(logs.String(), "bad stream magic") {
		t.Errorf("the log does not say why junk is damaged:\n%s", logs)
	}
	// Putting onto a link's path replaces neither the link nor its target.
	err = putStatus(Replace(ctx), c, []string{"link-stream"}, recs)
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("a put onto a symbolic link: %v, want FailedPrecondition", err)
	}
	if got, _ := os.ReadFile(secret); !bytes.Equal(got, data) {
		t.Errorf("a put changed the file a link points to")
	}
}

// One damaged stream in the middle of the store: ListFlights lists the
// others, with their rows and bytes, and logs the damaged one.
func TestListFlightsSkipsDamaged(t *testing.T) {
	ts, logs := startStore(t, ServerOptions{})
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	rows := map[string]int64{"a": 1700, "b": 2000, "c": 300}
	for key, n := range rows {
		recs := lineitemBatches(int(n)/2, int(n)-int(n)/2)
		err := put(ctx, c, []string{key}, recs[0].Schema(), recs, codec.WithCompression(codec.LZ4))
		batches.Release(recs)
		if err != nil {
			t.Fatal(err)
		}
	}
	// b loses its last 100 bytes, as a disk or a hand might do.
	bpath := filepath.Join(ts.dir, "b.apk")
	st, err := os.Stat(bpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(bpath, st.Size()-100); err != nil {
		t.Fatal(err)
	}
	// A new server (as after a restart) knows nothing of the files yet.
	for _, fresh := range []bool{false, true} {
		cl := c
		if fresh {
			s, err := NewServerWith(ts.dir, ServerOptions{Log: log.New(logs, "", 0)})
			if err != nil {
				t.Fatal(err)
			}
			cl = dial(t, startServer(t, s).addr)
		}
		infos := listAll(ctx, t, cl)
		if got := tickets(infos); strings.Join(got, ",") != "a,c" {
			t.Fatalf("fresh=%v: ListFlights lists %q, want a,c", fresh, got)
		}
		for _, info := range infos {
			key := string(info.Endpoint[0].Ticket.Ticket)
			st, _ := os.Stat(filepath.Join(ts.dir, key+".apk"))
			if info.TotalRecords != rows[key] || info.TotalBytes != st.Size() {
				t.Errorf("fresh=%v: %s: %d records, %d bytes; want %d, %d", fresh, key, info.TotalRecords, info.TotalBytes, rows[key], st.Size())
			}
		}
	}
	if !strings.Contains(logs.String(), "stored stream b is damaged") {
		t.Errorf("the log does not name b:\n%s", logs)
	}
	// A stream replaced by a put is counted again, not from the cache.
	recs := lineitemBatches(42)
	defer batches.Release(recs)
	if err := put(Replace(ctx), c, []string{"a"}, recs[0].Schema(), recs); err != nil {
		t.Fatal(err)
	}
	if info, err := c.GetFlightInfo(ctx, pathDescr("a")); err != nil || info.TotalRecords != 42 {
		t.Errorf("after replacing a: %v, %v", info, err)
	}
}

// Temporary files of puts a killed server left are removed at start;
// those of a put in progress are never listed.
func TestStoreTempFiles(t *testing.T) {
	dir := t.TempDir()
	left := []string{".x.apk.tmp-123456", ".put-98765"}
	for _, name := range left {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half a stream"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var logs lockedBuffer
	s, err := NewServerWith(dir, ServerOptions{Log: log.New(&logs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Errorf("left after start: %v", ents)
	}
	if !strings.Contains(logs.String(), "removed 2 temporary file(s)") {
		t.Errorf("log: %q", logs.String())
	}
	// A put in progress: its temporary file, written by durable.
	if err := os.WriteFile(filepath.Join(dir, ".y.apk.tmp-42"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := dial(t, startServer(t, s).addr)
	if got := listAll(testCtx(t, 30*time.Second), t, c); len(got) != 0 {
		t.Errorf("ListFlights lists %q", tickets(got))
	}
}

// A put onto a stored stream is refused unless the client asks to replace
// it; of puts racing onto one new path, one wins and the others are
// refused, never overwriting it.
func TestPutReplace(t *testing.T) {
	ts, _ := startStore(t, ServerOptions{})
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	first := lineitemBatches(100)
	defer batches.Release(first)
	second := lineitemBatches(200)
	defer batches.Release(second)
	if err := put(ctx, c, []string{"p"}, first[0].Schema(), first); err != nil {
		t.Fatal(err)
	}
	err := putStatus(ctx, c, []string{"p"}, second)
	if status.Code(err) != codes.AlreadyExists || !strings.Contains(err.Error(), ReplaceKey) {
		t.Fatalf("a second put: %v, want AlreadyExists naming %s", err, ReplaceKey)
	}
	got, err := get(ctx, c, []string{"p"}, true, codec.None)
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, got, first)
	batches.Release(got)
	if err := put(Replace(ctx), c, []string{"p"}, second[0].Schema(), second); err != nil {
		t.Fatal(err)
	}
	got, err = get(ctx, c, []string{"p"}, true, codec.None)
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, got, second)
	batches.Release(got)

	// Racing puts of different streams onto one new path.
	const racers = 6
	sets := make([][]arrow.RecordBatch, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		sets[i] = lineitemBatches(50 + i)
		defer batches.Release(sets[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = putStatus(ctx, c, []string{"race"}, sets[i])
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch status.Code(err) {
		case codes.OK:
			if winner >= 0 {
				t.Errorf("puts %d and %d both succeeded", winner, i)
			}
			winner = i
		case codes.AlreadyExists:
		default:
			t.Errorf("put %d: %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no put succeeded")
	}
	got, err = get(ctx, c, []string{"race"}, true, codec.None)
	if err != nil {
		t.Fatal(err)
	}
	checkEqual(t, got, sets[winner])
	batches.Release(got)
}

// recordingSyncer records the syncs of a put and what was true at each:
// whether the target existed, whether the client had its answer.
type recordingSyncer struct {
	mu     sync.Mutex
	target string
	acked  bool
	events []string
	fail   error
}

func (r *recordingSyncer) note(what string) {
	_, err := os.Lstat(r.target)
	r.events = append(r.events, what+map[bool]string{true: "+target", false: "-target"}[err == nil]+map[bool]string{true: "+acked", false: ""}[r.acked])
}

func (r *recordingSyncer) SyncFile(f *os.File) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.note("file:" + filepath.Dir(f.Name()))
	if err := f.Sync(); err != nil {
		return err
	}
	return r.fail
}

func (r *recordingSyncer) SyncDir(dir string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.note("dir:" + dir)
	return nil
}

// DoPut syncs the file before it moves it into place and the directory
// after, both before the client has its answer; NoSync syncs nothing; a
// failed sync fails the put and stores nothing.
func TestPutSyncs(t *testing.T) {
	recs := lineitemBatches(300, 300)
	defer batches.Release(recs)
	rec := &recordingSyncer{}
	ts, _ := startStore(t, ServerOptions{Sync: rec})
	rec.target = filepath.Join(ts.dir, "s.apk")
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	if err := put(ctx, c, []string{"s"}, recs[0].Schema(), recs); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	rec.acked = true
	got := strings.Join(rec.events, " ")
	rec.mu.Unlock()
	want := "file:" + ts.dir + "-target dir:" + ts.dir + "+target"
	if got != want {
		t.Errorf("syncs %q, want %q", got, want)
	}

	quiet := &recordingSyncer{}
	ts2, _ := startStore(t, ServerOptions{Sync: quiet, NoSync: true})
	if err := put(ctx, dial(t, ts2.addr), []string{"s"}, recs[0].Schema(), recs); err != nil {
		t.Fatal(err)
	}
	if len(quiet.events) != 0 {
		t.Errorf("NoSync synced: %q", quiet.events)
	}

	broken := &recordingSyncer{fail: errors.New("disk on fire")}
	ts3, _ := startStore(t, ServerOptions{Sync: broken})
	broken.target = filepath.Join(ts3.dir, "s.apk")
	err := putStatus(ctx, dial(t, ts3.addr), []string{"s"}, recs)
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("a put whose sync failed: %v", err)
	}
	if ents, _ := os.ReadDir(ts3.dir); len(ents) != 0 {
		t.Errorf("a put whose sync failed left %v", ents)
	}
}

// Past the server-wide budget a put is refused with ResourceExhausted and
// gives back what it held; within it, puts go through.
func TestPutBudget(t *testing.T) {
	recs := lineitemBatches(20000) // a block of about 2 MiB raw
	defer batches.Release(recs)
	ts, _ := startStore(t, ServerOptions{MaxMemory: 1 << 20})
	c := dial(t, ts.addr)
	ctx := testCtx(t, 60*time.Second)
	err := putStatus(ctx, c, []string{"big"}, recs)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "max-memory") {
		t.Errorf("a put over the budget: %v", err)
	}
	if used := ts.store.budget.inUse(); used != 0 {
		t.Errorf("the budget holds %d bytes after a refused put", used)
	}
	small := lineitemBatches(100, 100)
	defer batches.Release(small)
	if err := put(ctx, c, []string{"small"}, small[0].Schema(), small); err != nil {
		t.Errorf("a put within the budget: %v", err)
	}
	// IPC FlightData are charged too.
	ts2, _ := startStore(t, ServerOptions{MaxMemory: 1 << 20})
	c2 := dial(t, ts2.addr)
	stream, err := c2.DoPut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := aflight.NewRecordWriter(stream, ipc.WithSchema(recs[0].Schema()))
	w.SetFlightDescriptor(pathDescr("ipc"))
	for _, r := range recs {
		if err = w.Write(r); err != nil {
			break
		}
	}
	w.Close()
	err = closePut(stream) // the server's status, whatever Write said
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("an IPC put over the budget: %v", err)
	}
	if used := ts2.store.budget.inUse(); used != 0 {
		t.Errorf("the budget holds %d bytes after a refused IPC put", used)
	}
}
