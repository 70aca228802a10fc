package arrowpack

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/arrowpack/arrowpack/internal/benchenv"
)

// BenchmarkScatterVariants compares the scatter kernels with the Go loop
// the partitioner ran before them (codec's scatterWords) and with one
// plain copy of the same bytes, side by side: rounds of one sample of each
// variant at each P, taking turns, each sample SCATTER_BATCHES batches of
// 8,192 rows (rows to partition benchenv.Splitmix64(row) mod P), the destinations
// 1 MiB a partition, as the partitioner's pending blocks are, so out of
// cache. It prints, per width, P and variant, the medians over
// SCATTER_ROUNDS rounds [min-max] of the time per batch over the copy's in
// the same round and over the Go loop's. Run it with -benchtime 1x.
func BenchmarkScatterVariants(b *testing.B) {
	rounds, batches := benchenv.Int("SCATTER_ROUNDS", 7), benchenv.Int("SCATTER_BATCHES", 32)
	const rows, bufBytes = 8192, 1 << 20
	ps := []int{16, 200, 1000}
	type variant struct {
		name string
		run  func(cur []Cursor, next []unsafe.Pointer, src []uint64, parts []uint32, w int)
	}
	vs := []variant{
		{"copy", nil},
		{"go-loop", func(_ []Cursor, next []unsafe.Pointer, src []uint64, parts []uint32, w int) {
			if w == 8 {
				goLoopScatter(next, src, parts)
			} else {
				goLoopScatter(next, unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), len(parts)), parts)
			}
		}},
		{"generic", func(cur []Cursor, _ []unsafe.Pointer, src []uint64, parts []uint32, w int) {
			if w == 8 {
				genericImpl.scatter64(cur, src, parts)
			} else {
				genericImpl.scatter32(cur, unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), len(parts)), parts)
			}
		}},
	}
	for _, v := range scatterBenchVariants() {
		vs = append(vs, variant{v.name, v.run})
	}
	for _, w := range []int{8, 4} {
		// res[p][v] holds the ratios over the copy and over the Go loop, a round each.
		overCopy := make([][][]float64, len(ps))
		overLoop := make([][][]float64, len(ps))
		for pi, np := range ps {
			overCopy[pi], overLoop[pi] = make([][]float64, len(vs)), make([][]float64, len(vs))
			bufs := make([][]byte, np)
			for q := range bufs {
				bufs[q] = make([]byte, bufBytes)
				touch(bufs[q])
			}
			src := make([]uint64, rows)
			parts := make([]uint32, rows)
			cnt := make([]int, np)
			for r := range parts {
				src[r] = benchenv.Splitmix64(uint64(r) + 1<<40)
				parts[r] = uint32(benchenv.Splitmix64(uint64(r)) % uint64(np))
				cnt[parts[r]]++
			}
			// Batches until a buffer would overflow, then every cursor goes back to 0.
			wrap := bufBytes / (w * slices.Max(cnt))
			cur := make([]Cursor, np)
			next := make([]unsafe.Pointer, np)
			copyDst := make([]byte, 64<<20)
			touch(copyDst)
			copyAt := 0
			srcBytes := unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), rows*w)
			sample := func(v variant) time.Duration {
				t0 := time.Now()
				for i := range batches {
					if v.run == nil {
						if copyAt+len(srcBytes) > len(copyDst) {
							copyAt = 0
						}
						copy(copyDst[copyAt:], srcBytes)
						copyAt += len(srcBytes)
						continue
					}
					if i%wrap == 0 {
						for q := range cur {
							cur[q] = Cursor{unsafe.Pointer(&bufs[q][0]), 0}
							next[q] = unsafe.Pointer(&bufs[q][0])
						}
					}
					v.run(cur, next, src, parts, w)
				}
				return time.Since(t0)
			}
			for _, v := range vs {
				sample(v) // warm: page faults of the destinations
			}
			for round := range rounds {
				t := make([]time.Duration, len(vs))
				for j := range vs {
					k := (j + round) % len(vs)
					t[k] = sample(vs[k])
				}
				for k := range vs {
					overCopy[pi][k] = append(overCopy[pi][k], float64(t[k])/float64(t[0]))
					overLoop[pi][k] = append(overLoop[pi][k], float64(t[k])/float64(t[1]))
				}
			}
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "\nwidth %d bytes, %d rounds of %d batches of %d rows; time / copy's, and time / go-loop's, medians [min-max]\n", w, rounds, batches, rows)
		fmt.Fprintf(&sb, "%-10s", "variant")
		for _, np := range ps {
			fmt.Fprintf(&sb, " | P=%-4d x copy       x go-loop    ", np)
		}
		sb.WriteString("\n")
		for k, v := range vs {
			fmt.Fprintf(&sb, "%-10s", v.name)
			for pi := range ps {
				fmt.Fprintf(&sb, " | %s  %s", medRange(overCopy[pi][k]), medRange(overLoop[pi][k]))
			}
			sb.WriteString("\n")
		}
		b.Log(sb.String())
	}
}

// goLoopScatter is the loop codec's scatterWords ran before the kernels,
// the baseline of BenchmarkScatterVariants.
func goLoopScatter[T uint32 | uint64](next []unsafe.Pointer, src []T, parts []uint32) {
	src = src[:len(parts)]
	for r, q := range parts {
		p := next[q]
		*(*T)(p) = src[r]
		next[q] = unsafe.Add(p, unsafe.Sizeof(src[r]))
	}
}

// touch writes every page of b, so that no sample pays its page faults.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
}

func medRange(x []float64) string {
	s := slices.Clone(x)
	slices.Sort(s)
	return fmt.Sprintf("%5.2f [%4.2f-%4.2f]", s[len(s)/2], s[0], s[len(s)-1])
}
