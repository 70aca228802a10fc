package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arrowpack/arrowpack/internal/durable"
)

// recordingSyncer records the syncs asked of it, with what the file held
// (its size) and whether the target existed yet.
type recordingSyncer struct {
	target string
	calls  []string
}

func (r *recordingSyncer) SyncFile(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	_, terr := os.Lstat(r.target)
	r.calls = append(r.calls, "file "+filepath.Base(f.Name())+
		map[bool]string{true: " empty", false: " full"}[st.Size() == 0]+
		map[bool]string{true: " target-absent", false: " target-present"}[terr != nil])
	return nil
}

func (r *recordingSyncer) SyncDir(dir string) error {
	_, terr := os.Lstat(r.target)
	r.calls = append(r.calls, "dir "+dir+map[bool]string{true: " target-absent", false: " target-present"}[terr != nil])
	return nil
}

// useSyncer makes s the command's syncer for the test.
func useSyncer(t *testing.T, s durable.Syncer) {
	old := syncer
	syncer = s
	t.Cleanup(func() { syncer = old })
}

// TestConvertSyncs: convert syncs its whole output file before moving it
// into place, then the directory, and only then reports success; with
// -no-sync it syncs nothing.
func TestConvertSyncs(t *testing.T) {
	dir := t.TempDir()
	src, _ := testStream(t, dir)
	out := filepath.Join(dir, "out.apk")
	rec := &recordingSyncer{target: out}
	useSyncer(t, rec)
	code, stdout, stderr := runCmd(t, "convert", src, out)
	if code != 0 {
		t.Fatal(stderr)
	}
	if len(rec.calls) != 2 || !strings.HasPrefix(rec.calls[0], "file .out.apk.tmp-") ||
		!strings.HasSuffix(rec.calls[0], " full target-absent") || rec.calls[1] != "dir "+dir+" target-present" {
		t.Errorf("syncs %q, want the whole temporary file before the move, then %s after it", rec.calls, dir)
	}
	if !strings.Contains(stdout, "out.apk") {
		t.Errorf("no success line: %q", stdout)
	}

	rec.calls = nil
	if code, _, stderr := runCmd(t, "convert", "-no-sync", "-f", src, out); code != 0 {
		t.Fatal(stderr)
	}
	if len(rec.calls) != 0 {
		t.Errorf("-no-sync: syncs %q, want none", rec.calls)
	}
	rec.calls = nil
	if code, _, stderr := runCmd(t, "convert", "-f", src, out); code != 0 || len(rec.calls) != 2 {
		t.Errorf("-f: status %d, syncs %q, want 2: %s", code, rec.calls, stderr)
	}
}
