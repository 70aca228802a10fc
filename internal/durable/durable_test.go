package durable

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// recorder is a Syncer that records the order of what it was asked.
type recorder struct{ calls []string }

func (r *recorder) SyncFile(f *os.File) error {
	r.calls = append(r.calls, "file")
	return f.Sync()
}

func (r *recorder) SyncDir(dir string) error {
	r.calls = append(r.calls, "dir:"+filepath.Base(dir))
	return OS.SyncDir(dir)
}

func TestCommitSyncsFileThenDir(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.apk")
	rec := &recorder{}
	f, err := Create(target, Options{Sync: rec})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("data"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("target visible before Commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []string{"file", "dir:" + filepath.Base(dir)}
	if !slices.Equal(rec.calls, want) {
		t.Fatalf("sync calls %q, want %q", rec.calls, want)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "data" {
		t.Fatalf("target holds %q, %v", b, err)
	}
	assertNoTemps(t, dir)
}

func TestNoSyncerNoSync(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "x"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	assertNoTemps(t, dir)
}

func TestRefusesToReplace(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(target, Options{}); !errors.Is(err, ErrExists) {
		t.Fatalf("Create over an existing file: %v, want ErrExists", err)
	}
	// A target that appears between Create and Commit is not replaced.
	other := filepath.Join(dir, "late")
	f, err := Create(other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if err := os.WriteFile(other, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); !errors.Is(err, ErrExists) {
		t.Fatalf("Commit over a file that appeared: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "first" {
		t.Fatalf("late target replaced: %q", b)
	}
	assertNoTemps(t, dir)
}

func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(target, Options{Replace: true, Sync: OS})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(target)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
}

func TestAbortAndRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	f, err := Create(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("target after Abort: %v", err)
	}
	assertNoTemps(t, dir)

	// A killed writer's temp file: left open, never committed.
	g, err := Create(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := os.WriteFile(filepath.Join(dir, "keep.apk"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveTemps(dir)
	if err != nil || len(removed) != 1 || !IsTemp(removed[0]) {
		t.Fatalf("RemoveTemps = %q, %v", removed, err)
	}
	assertNoTemps(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "keep.apk")); err != nil {
		t.Fatalf("RemoveTemps removed a stored file: %v", err)
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Fatalf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}
