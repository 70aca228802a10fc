package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/arrowpack/arrowpack/internal/durable"
)

// waitForTemp waits until dir holds a temporary output file of at least
// minSize bytes and returns its name; it fails the test after a minute.
func waitForTemp(t *testing.T, dir string, minSize int64, exited <-chan struct{}) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !durable.IsTemp(e.Name()) {
				continue
			}
			if info, err := e.Info(); err == nil && info.Size() >= minSize {
				return e.Name()
			}
		}
		select {
		case <-exited:
			t.Fatal("the command ended before its output was under way")
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("no temporary output appeared")
	return ""
}

// TestSignalRemovesTempFiles runs convert as a process and stops it with a
// signal while it writes: the status is 128+signal, no temporary file is
// left, and the target it was to replace (-f) is as it was. The input is
// an IPC stream on a pipe the test feeds: without end (the command is busy
// converting when the signal comes, and stops at the next batch), or its
// schema only (the command is blocked reading, and the program removes its
// output itself).
func TestSignalRemovesTempFiles(t *testing.T) {
	bin := buildCommand(t)
	rec := lineitem(t, 20000)
	for _, tc := range []struct {
		name    string
		sig     syscall.Signal
		endless bool
		out, to string
		minSize int64 // bytes in the temporary file before the signal
	}{
		{"busy SIGINT", syscall.SIGINT, true, "x.apk", "arrowpack", 1},
		{"busy SIGTERM", syscall.SIGTERM, true, "x.apk", "arrowpack", 1},
		{"blocked SIGINT", syscall.SIGINT, false, "x.parquet", "parquet", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, tc.out)
			old := []byte("the old target, to keep\n")
			if err := os.WriteFile(target, old, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "convert", "-f", "-to", tc.to, "-", target)
			pw, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(exited) }()
			fed := make(chan struct{})
			go func() {
				defer close(fed)
				if !tc.endless {
					// The schema alone, without the end-of-stream
					// marker: the command waits for a batch.
					var buf bytes.Buffer
					w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
					w.Close()
					pw.Write(buf.Bytes()[:buf.Len()-8])
					return
				}
				w := ipc.NewWriter(pw, ipc.WithSchema(rec.Schema()))
				for w.Write(rec) == nil {
				}
				// The command has gone.
			}()
			if !tc.endless {
				<-fed
			}
			waitForTemp(t, dir, tc.minSize, exited)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				<-exited
				t.Fatal("the command did not end within a minute of the signal")
			}
			pw.Close()
			<-fed
			var ee *exec.ExitError
			if !errors.As(waitErr, &ee) || ee.ExitCode() != 128+int(tc.sig) {
				t.Errorf("exit: %v, want status %d; stderr %q", waitErr, 128+int(tc.sig), stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "goroutine") {
				t.Errorf("stderr %q does not say it was interrupted, in a line", stderr.String())
			}
			if !tc.endless && !strings.Contains(stderr.String(), "removed the unfinished output") {
				t.Errorf("stderr %q does not say the output was removed", stderr.String())
			}
			checkIntact(t, target, old, dir, tc.out)
		})
	}
}

// TestInterruptInProcess drives runInterruptible with a signal of the
// test's own: a command that stops at its context's end returns its error
// and 130 (graceful); one that never looks at it has its unfinished output
// removed by the program after the grace period (forced). Under -race this
// checks the output registry against a command still writing.
func TestInterruptInProcess(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		dir := t.TempDir()
		target := filepath.Join(dir, "out.bin")
		started := make(chan struct{})
		extraCommands = []command{{name: "writer", run: func(e *env, _ []string) error {
			sf, err := createSafe(target, false)
			if err != nil {
				return err
			}
			defer sf.Abort()
			close(started)
			for {
				if graceful {
					if err := e.interruption(); err != nil {
						return err
					}
				}
				if _, err := sf.Write([]byte("data")); err != nil && !graceful {
					select {} // closed under it: wait to be abandoned
				}
				time.Sleep(time.Millisecond)
			}
		}}}
		sigs := make(chan os.Signal, 1)
		var stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- runInterruptible([]string{"writer"}, nil, io.Discard, &syncWriter{w: &stderr}, sigs) }()
		<-started
		sigs <- syscall.SIGINT
		code := <-done
		extraCommands = nil
		if code != 130 {
			t.Errorf("graceful %v: status %d, want 130", graceful, code)
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("graceful %v: left %v", graceful, names)
		}
		if want := map[bool]string{true: "arrowpack writer: interrupted (interrupt)", false: "removed the unfinished output for [" + target + "]"}[graceful]; !strings.Contains(stderr.String(), want) {
			t.Errorf("graceful %v: stderr %q does not say %q", graceful, stderr.String(), want)
		}
	}
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
