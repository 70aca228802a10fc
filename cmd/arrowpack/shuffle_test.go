//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/internal/batches"
)

// The schema of the shuffle tests' rows: a key, a payload, and the
// partition the test sends the row to.
var shufSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64},
	{Name: "part", Type: arrow.PrimitiveTypes.Int32},
}, nil)

// shufTally is what a partition holds: its rows and the sum of their
// hashes, which does not depend on the order they arrive in.
type shufTally struct {
	rows int64
	sum  uint64
}

// shufRows returns n batches of rows random rows of seed, each row's
// partition in [0, parts) drawn at random, and the tally of each partition.
func shufRows(seed uint64, n, rows, parts int) ([]arrow.RecordBatch, []shufTally) {
	base, _ := procStream(seed, n, rows)
	defer batches.Release(base)
	r := rand.New(rand.NewPCG(seed, 11))
	tally := make([]shufTally, parts)
	var recs []arrow.RecordBatch
	for _, rec := range base {
		b := array.NewInt32Builder(memory.DefaultAllocator)
		for range rec.NumRows() {
			b.Append(int32(r.IntN(parts)))
		}
		part := b.NewArray()
		b.Release()
		out := array.NewRecordBatch(shufSchema, append(rec.Columns()[:3:3], part), rec.NumRows())
		part.Release()
		addTally(tally, out, -1)
		recs = append(recs, out)
	}
	return recs, tally
}

// addTally adds the rows of rec to their partitions' tallies; with want >=
// 0 it returns an error for a row of another partition.
func addTally(tally []shufTally, rec arrow.RecordBatch, want int) error {
	ids := rec.Column(0).(*array.Int64)
	names := rec.Column(1).(*array.String)
	prices := rec.Column(2).(*array.Float64)
	parts := rec.Column(3).(*array.Int32)
	for i := range int(rec.NumRows()) {
		p := int(parts.Value(i))
		if want >= 0 && p != want {
			return fmt.Errorf("a row of partition %d arrived at reducer %d", p, want)
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%d|%v|%d|%s", ids.Value(i), names.IsNull(i), math.Float64bits(prices.Value(i)), names.Value(i))
		tally[p].rows++
		tally[p].sum += h.Sum64()
	}
	return nil
}

// writeShufInput writes recs as an arrowpack stream file.
func writeShufInput(t *testing.T, path string, recs []arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := codec.NewWriter(&buf, shufSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if path != "" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// mapTestInput writes the rows of shufRows(seed, n, rows, parts) as an
// input file, maps it with `arrowpack map args...` into a map output in
// the same new directory, and returns its path and the rows' tallies.
func mapTestInput(t *testing.T, seed uint64, n, rows, parts int, args ...string) (string, []shufTally) {
	t.Helper()
	dir := t.TempDir()
	recs, want := shufRows(seed, n, rows, parts)
	defer batches.Release(recs)
	in := filepath.Join(dir, "in.apk")
	writeShufInput(t, in, recs)
	mo := filepath.Join(dir, "m.apkm")
	if code, _, stderr := runCmd(t, append(append([]string{"map", "-no-sync"}, args...), in, mo)...); code != 0 {
		t.Fatal(stderr)
	}
	return mo, want
}

// fetchTest reads partition p of the map output mo with `arrowpack fetch`;
// the caller releases the batches.
func fetchTest(t *testing.T, mo string, p int) []arrow.RecordBatch {
	t.Helper()
	out := filepath.Join(filepath.Dir(mo), "p.apk")
	if code, _, stderr := runCmd(t, "fetch", "-p", fmt.Sprint(p), "-f", "-no-sync", mo, out); code != 0 {
		t.Fatal(stderr)
	}
	_, got := readAll(t, out)
	return got
}

// TestMapPartitionsFetch: map writes a map output by a partition column,
// partitions shows its index, and fetch reads each partition back from the
// file with exactly the rows the input sent it.
func TestMapPartitionsFetch(t *testing.T) {
	mo, want := mapTestInput(t, 3, 4, 500, 5, "-partitions", "5", "-partition-column", "part")
	code, out, stderr := runCmd(t, "partitions", "-json", mo)
	if code != 0 {
		t.Fatal(stderr)
	}
	var rep partitionsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Partitions) != 5 {
		t.Fatalf("%d partitions listed", len(rep.Partitions))
	}
	for p, pr := range rep.Partitions {
		if pr.Rows != want[p].rows {
			t.Fatalf("partition %d: the index says %d rows, the input sent %d", p, pr.Rows, want[p].rows)
		}
	}
	if code, out, stderr := runCmd(t, "partitions", mo); code != 0 || !strings.Contains(out, "5 partitions") {
		t.Fatalf("partitions: %d %q %s", code, out, stderr)
	}
	for p := range 5 {
		got := fetchTest(t, mo, p)
		tally := make([]shufTally, 5)
		for _, rec := range got {
			if err := addTally(tally, rec, p); err != nil {
				t.Fatal(err)
			}
		}
		batches.Release(got)
		if tally[p] != want[p] {
			t.Fatalf("partition %d: fetched %+v, sent %+v", p, tally[p], want[p])
		}
	}
}

func TestMapFetchBadArguments(t *testing.T) {
	dir := t.TempDir()
	recs, _ := shufRows(4, 1, 50, 3)
	defer batches.Release(recs)
	in := filepath.Join(dir, "in.apk")
	writeShufInput(t, in, recs)
	mo := filepath.Join(dir, "m.apkm")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"map", "-partitions", "0", "-partition-column", "part", in, mo}, 2, "-partitions must be"},
		{[]string{"map", "-partitions", "3", in, mo}, 2, "exactly one of -key and -partition-column"},
		{[]string{"map", "-partitions", "3", "-partition-column", "nosuch", in, mo}, 2, `no column "nosuch"`},
		{[]string{"map", "-partitions", "3", "-partition-column", "name", in, mo}, 2, "not an integer column"},
		{[]string{"map", "-partitions", "2", "-partition-column", "part", in, mo}, 1, "is not in [0, 2)"},
		{[]string{"map", "-partitions", "3", "-partition-column", "part", in, "-"}, 2, "a map output is a file"},
		{[]string{"fetch", in, mo}, 2, "-p (the partition) is required"},
		{[]string{"fetch", "-p", "0", "grpc://", mo}, 2, "want grpc://HOST:PORT/PATH"},
		{[]string{"fetch", "-p", "0", in, filepath.Join(dir, "o.apk")}, 1, "not a map output"},
		{[]string{"partitions", in}, 1, "not a map output"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		checkFailure(t, code, stderr, c.code, c.want)
	}
	// The failed map left nothing.
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("the failed commands left %v", names)
	}
}

// TestMapByKey: map -key sends each row to the partition HashPartitions
// gives its key, and every row arrives once.
func TestMapByKey(t *testing.T) {
	mo, want := mapTestInput(t, 8, 3, 400, 1, "-partitions", "6", "-key", "id,name")
	var rows int64
	for p := range 6 {
		got := fetchTest(t, mo, p)
		for _, rec := range got {
			ids, err := codec.HashPartitions(nil, 6, rec.Column(0), rec.Column(1))
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				if int(id) != p {
					t.Fatalf("row %d of partition %d hashes to %d", i, p, id)
				}
			}
			rows += rec.NumRows()
		}
		batches.Release(got)
	}
	if rows != want[0].rows {
		t.Fatalf("%d rows fetched, %d sent", rows, want[0].rows)
	}
	code, _, stderr := runCmd(t, "map", "-partitions", "6", "-key", "price", filepath.Join(filepath.Dir(mo), "in.apk"), filepath.Join(filepath.Dir(mo), "x.apkm"))
	checkFailure(t, code, stderr, 2, "-key price")
}
