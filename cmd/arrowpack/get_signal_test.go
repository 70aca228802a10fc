//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/flight"
)

// stallServer sends DoGet's first messages (the schema is one), says so
// on stalled and then sends nothing more until the client goes away: a
// transfer caught in the middle.
type stallServer struct {
	*flight.Server
	after   int
	stalled chan struct{}
}

func (s stallServer) DoGet(t *aflight.Ticket, stream aflight.FlightService_DoGetServer) error {
	return s.Server.DoGet(t, &stallStream{FlightService_DoGetServer: stream, left: s.after, stalled: s.stalled})
}

type stallStream struct {
	aflight.FlightService_DoGetServer
	left    int
	stalled chan struct{}
}

func (s *stallStream) Send(d *aflight.FlightData) error {
	if s.left == 0 {
		close(s.stalled)
		<-s.Context().Done()
		return s.Context().Err()
	}
	s.left--
	return s.FlightService_DoGetServer.Send(d)
}

// TestGetInterrupted (issue 19 item 1): Ctrl-C (SIGINT) in the middle of
// a get leaves the target as it was and no temporary file, and the
// command exits with a failure, not killed by the signal.
func TestGetInterrupted(t *testing.T) {
	bin := buildCommand(t)
	stalled := make(chan struct{})
	addr := startFlight(t, func(s *flight.Server) aflight.FlightServer { return stallServer{s, 2, stalled} })
	putTest(t, addr, t.TempDir(), "big")

	dir := t.TempDir()
	target := filepath.Join(dir, "p.apk")
	old := []byte("what was there before")
	if err := os.WriteFile(target, old, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "get", "-addr", addr, "-f", "big", target)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stalled:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the get never reached the server: %s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() <= 0 {
		t.Errorf("get ended with %v after SIGINT, want a failure status; stderr %q", err, stderr.String())
	}
	// get itself stopped and removed its output, not the program's last
	// resort after a grace period (which says "removed the unfinished").
	if !strings.HasPrefix(stderr.String(), "arrowpack get: interrupted") {
		t.Errorf("stderr %q, want get's own message that it was interrupted", stderr.String())
	}
	checkIntact(t, target, old, dir, "p.apk")
}
