//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// runProc runs the command bin args... to its end (at most a minute).
func runProc(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	dieWithTest(cmd)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// startPiped starts cmd, whose pipes the caller has set up, to end with
// the test, and returns what it writes to stderr.
func startPiped(t *testing.T, cmd *exec.Cmd) *syncBuffer {
	t.Helper()
	dieWithTest(cmd)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stderr
}

// TestShuffleProcesses runs a shuffle of real processes on loopback:
// three `arrowpack map` processes each write a map output of their share
// of the rows into the directory of an `arrowpack serve` process; four
// `arrowpack fetch` processes each take their partition from all three
// servers. Every row arrives exactly once, at the reducer its partition
// names (per partition: the row count and the sum of the rows' hashes).
func TestShuffleProcesses(t *testing.T) {
	bin := arrowpackBinary(t)
	const mappers, reducers = 3, 4
	dir := t.TempDir()
	want := make([]shufTally, reducers)
	var sources []string
	done := make(chan error, mappers)
	for m := range mappers {
		recs, tally := shufRows(uint64(m), 5, 3000, reducers)
		for p := range want {
			want[p].rows += tally[p].rows
			want[p].sum += tally[p].sum
		}
		in := filepath.Join(dir, fmt.Sprintf("in%d.apk", m))
		writeShufInput(t, in, recs)
		releaseAll(recs)
		store := filepath.Join(dir, fmt.Sprintf("store%d", m))
		if err := os.Mkdir(store, 0o755); err != nil {
			t.Fatal(err)
		}
		srv := startServe(t, bin, store, "-no-sync")
		out, err := flight.MapOutputFile(store, []string{"job", fmt.Sprint(m)})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			msg, err := runProc(t, bin, "map", "-partitions", fmt.Sprint(reducers), "-partition-column", "part", "-block-rows", "1000", "-no-sync", in, out)
			if err != nil {
				err = fmt.Errorf("map %d: %v: %s", m, err, msg)
			}
			done <- err
		}()
		sources = append(sources, fmt.Sprintf("grpc://%s/job/%d", srv.addr, m))
	}
	for range mappers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	outs := make([]string, reducers)
	fetched := make(chan error, reducers)
	for r := range reducers {
		outs[r] = filepath.Join(dir, fmt.Sprintf("reduce%d.apk", r))
		go func() {
			msg, err := runProc(t, bin, append(append([]string{"fetch", "-p", fmt.Sprint(r), "-no-sync"}, sources...), outs[r])...)
			if err != nil {
				err = fmt.Errorf("fetch %d: %v: %s", r, err, msg)
			}
			fetched <- err
		}()
	}
	for range reducers {
		if err := <-fetched; err != nil {
			t.Fatal(err)
		}
	}
	got := make([]shufTally, reducers)
	for r, out := range outs {
		_, recs := readAll(t, out)
		for _, rec := range recs {
			if err := addTally(got, rec, r); err != nil {
				t.Fatal(err)
			}
		}
		releaseAll(recs)
		if got[r] != want[r] {
			t.Fatalf("reducer %d got %d rows (hash sum %#x), the mappers sent it %d (%#x)", r, got[r].rows, got[r].sum, want[r].rows, want[r].sum)
		}
	}
}

// TestShuffleMapperKilled: a map process killed with SIGKILL while it
// reads its input leaves no map output: none at its path, none listed or
// described by the server of its directory.
func TestShuffleMapperKilled(t *testing.T) {
	bin := arrowpackBinary(t)
	store := t.TempDir()
	srv := startServe(t, bin, store, "-no-sync")
	recs, _ := shufRows(9, 8, 3000, 4)
	input := writeShufInput(t, "", recs)
	releaseAll(recs)
	out, err := flight.MapOutputFile(store, []string{"job", "killed"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "map", "-partitions", "4", "-partition-column", "part", "-memory", "65536", "-", out)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	startPiped(t, cmd)
	// Half the stream: the process has read and partitioned rows, spilled
	// blocks (its memory is 64 KiB), and waits for more.
	if _, err := stdin.Write(input[:len(input)/2]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	stdin.Close()
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Fatalf("a killed map left %s: %v", out, err)
	}
	c := flightClient(t, srv.addr)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = c.GetFlightInfo(ctx, &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"job", "killed"}})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("the server describes a killed map's output: %v", err)
	}
	lf, err := c.ListFlights(ctx, &aflight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		info, err := lf.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Fatalf("the server lists %v after a killed map", info.FlightDescriptor.Path)
	}
}

// TestShuffleServerKilled: a server killed while a reducer fetches from it
// ends the fetch with an error that names it, and the reducer's output
// is not written: never a short partition taken as whole.
func TestShuffleServerKilled(t *testing.T) {
	bin := arrowpackBinary(t)
	store := t.TempDir()
	srv := startServe(t, bin, store, "-no-sync")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.apk")
	recs, _ := shufRows(5, 40, 5000, 1)
	writeShufInput(t, in, recs)
	releaseAll(recs)
	mo, _ := flight.MapOutputFile(store, []string{"big"})
	if msg, err := runProc(t, bin, "map", "-partitions", "1", "-partition-column", "part", "-compression", "none", "-no-sync", in, mo); err != nil {
		t.Fatalf("map: %v: %s", err, msg)
	}
	// The fetch writes to a pipe the test does not read yet, with a small
	// gRPC window and byte bound: it stops mid-partition until the pipe is
	// read, and the server is killed meanwhile.
	cmd := exec.Command(bin, "fetch", "-p", "0", "-max-bytes", "1", "-grpc-window", "65536", "grpc://"+srv.addr+"/big", "-")
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := startPiped(t, cmd)
	br := bufio.NewReader(pipe)
	if _, err := br.Peek(1); err != nil {
		t.Fatalf("the fetch wrote nothing: %v (%s)", err, stderr)
	}
	srv.kill()
	data, _ := io.ReadAll(br)
	err = cmd.Wait()
	if err == nil {
		t.Fatalf("the fetch succeeded with its server killed mid-partition (%d bytes written)", len(data))
	}
	if !strings.Contains(stderr.String(), srv.addr) {
		t.Fatalf("the error does not name the server %s: %s", srv.addr, stderr)
	}
	// What reached stdout is no whole stream: a reader refuses it.
	r, err := codec.NewReader(bytes.NewReader(data))
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
		r.Release()
	}
	if err == nil {
		t.Fatal("the fetch's cut output reads as a whole stream")
	}
}
