//go:build unix

package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// seedOf is the seed of the stream put under name.
func seedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// `arrowpack serve` killed with SIGKILL while clients put and get streams,
// then restarted, three times: after each restart every acknowledged put
// reads back equal, nothing listed is part of a put, no temporary file is
// left or listed. (Syncing, which a kill cannot show, is checked through
// the Syncer seam in the flight package's TestPutSyncs.)
func TestServeCrash(t *testing.T) {
	clients, rounds := 4, 3
	if testing.Short() {
		clients = 2
	}
	bin := arrowpackBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := newLedger()
	p := startServe(t, bin, dir)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var extra, leftTemps int
	for round := range rounds {
		var killing atomic.Bool
		var progress atomic.Int64
		var wg sync.WaitGroup
		acked := make([]int, clients)
		for id := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				acked[id] = crashClient(ctx, t, p.addr, fmt.Sprintf("c%d-r%d", id, round), l, &killing, &progress)
			}()
		}
		// Kill once the clients are busy (two puts each on average, however
		// slow the machine), at a random moment after that.
		for progress.Load() < int64(2*clients) && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(r.IntN(400)) * time.Millisecond)
		killing.Store(true)
		p.kill()
		wg.Wait()
		left := tempFiles(dir)
		leftTemps += len(left)
		total := 0
		for _, n := range acked {
			total += n
		}
		t.Logf("round %d: %d puts acknowledged before the kill; %d temporary file(s) left by it", round, total, len(left))
		if total < clients {
			t.Errorf("round %d: only %d puts acknowledged by %d clients: the server was not serving", round, total, clients)
		}
		p = startServe(t, bin, dir)
		if got := tempFiles(dir); len(got) != 0 {
			t.Errorf("after restart %d the directory still holds %q", round, got)
		}
		if len(left) > 0 {
			// The log line is written before the address, but stderr is
			// copied from its pipe by another goroutine: wait for it.
			for deadline := time.Now().Add(30 * time.Second); !strings.Contains(p.stderr.String(), "removed") && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if !strings.Contains(p.stderr.String(), fmt.Sprintf("removed %d temporary file(s)", len(left))) {
				t.Errorf("the restarted server did not report the %d temporary files it removed: %q", len(left), p.stderr)
			}
		}
		c := flightClient(t, p.addr)
		extra += verifyStore(ctx, t, c, l)
		c.Close()
	}
	l.mu.Lock()
	t.Logf("%d puts tried, %d acknowledged; %d committed but unacknowledged puts read back whole; %d temporary files removed at restarts", len(l.tried), len(l.acked), extra, leftTemps)
	l.mu.Unlock()
	p.kill()
}

// crashClient puts streams named prefix-0, prefix-1, ... and reads one of
// its acknowledged puts back after each, until the server dies; a failure
// while the server is up is an error. It returns the puts acknowledged.
func crashClient(ctx context.Context, t *testing.T, addr, prefix string, l *ledger, killing *atomic.Bool, progress *atomic.Int64) int {
	c := flightClient(t, addr)
	defer c.Close()
	var mine []string
	failed := func(what string, err error) {
		if !killing.Load() {
			t.Errorf("%s failed while the server was up: %v", what, err)
		}
	}
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		recs, sum := procStream(seedOf(name), 1+i%4, 500)
		var rows int64
		for _, rec := range recs {
			rows += rec.NumRows()
		}
		l.try(name, sent{sum, rows})
		err := procPut(ctx, c, name, recs)
		releaseAll(recs)
		if err != nil {
			failed("put "+name, err)
			return len(mine)
		}
		l.ack(name)
		progress.Add(1)
		mine = append(mine, name)
		back := mine[i%len(mine)]
		got, n, err := procGet(ctx, c, back)
		if err != nil {
			failed("get "+back, err)
			return len(mine)
		}
		l.mu.Lock()
		want := l.acked[back]
		l.mu.Unlock()
		if got != want.sum || n != want.rows {
			t.Errorf("get %s: %d rows, checksum %#x; put %d rows, checksum %#x", back, n, got, want.rows, want.sum)
		}
	}
}

// loadBound is the stated bound on the server's peak resident memory under
// the load test: the Go runtime and gRPC, and for each of 16 clients a
// put's buffers (a 1 MiB bufio.Writer, a block and its batch) and a get's.
const loadBound = 256 << 20

// 16 clients each put and get 50 streams of a few batches at once: nothing
// is lost or mixed, and the server's peak resident memory stays under
// loadBound.
func TestServeLoad(t *testing.T) {
	const clients = 16
	streams := 50
	if testing.Short() {
		streams = 10
	}
	bin := arrowpackBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := startServe(t, bin, dir)
	l := newLedger()
	start := time.Now()
	var wg sync.WaitGroup
	for id := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := flightClient(t, p.addr)
			defer c.Close()
			for i := range streams {
				name := fmt.Sprintf("load-c%d-%d", id, i)
				recs, sum := procStream(seedOf(name), 3, 2000)
				l.try(name, sent{sum, 3 * 2000})
				err := procPut(ctx, c, name, recs)
				releaseAll(recs)
				if err != nil {
					t.Errorf("put %s: %v", name, err)
					return
				}
				l.ack(name)
				got, rows, err := procGet(ctx, c, name)
				if err != nil || got != sum || rows != 3*2000 {
					t.Errorf("get %s: %d rows, checksum %#x, %v; put 6000 rows, checksum %#x", name, rows, got, err, sum)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	c := flightClient(t, p.addr)
	defer c.Close()
	verifyStore(ctx, t, c, l)
	if len(l.acked) != clients*streams {
		t.Errorf("%d puts acknowledged, want %d", len(l.acked), clients*streams)
	}
	rss := p.peakRSS()
	t.Logf("%d clients x %d streams of 3 batches of 2,000 rows, put and got back in %v; server peak RSS %.1f MiB (bound %d MiB)", clients, streams, elapsed.Round(time.Millisecond), float64(rss)/(1<<20), loadBound>>20)
	if rss > loadBound {
		t.Errorf("the server's peak resident memory is %d bytes, over the bound of %d", rss, loadBound)
	}
	p.kill()
}
