package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// fsstText returns n bytes of words drawn from a small vocabulary, like
// the comment columns of the benchmark batches.
func fsstText(rng *rand.Rand, n int) []byte {
	words := strings.Fields("the quick brown fox jumps over lazy dogs carefully final deposits sleep furiously among ironic requests packages accounts")
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.Bytes()[:n]
}

func TestFSSTRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := map[string][]byte{
		"empty": nil,
		"one":   []byte("a"),
		"short": []byte("abcabcab"),
		"text":  fsstText(rng, 100000),
		"zeros": make([]byte, 5000),
	}
	random := make([]byte, 3000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	inputs["random"] = random
	for name, data := range inputs {
		for _, tail := range []int{0, 5, 16} {
			t.Run(fmt.Sprintf("%s/%d", name, tail), func(t *testing.T) {
				raw := append(append([]byte(nil), data...), bytes.Repeat([]byte{7}, tail)...)
				tab := trainFSST(data)
				z := encodeFSST(make([]byte, fsstBound(len(data), tail)), raw, len(data), tab)
				got := make([]byte, len(raw))
				if err := decodeFSST(got, z); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, raw) {
					t.Fatalf("decoded differs")
				}
				if name == "text" && len(z) > len(raw)/2 {
					t.Errorf("text of %d bytes took %d, want under half", len(raw), len(z))
				}
				// Every shorter or longer section is refused.
				for _, cut := range []int{1, 2, len(z) / 2} {
					if cut <= len(z) && decodeFSST(got, z[:len(z)-cut]) == nil {
						t.Errorf("section cut by %d decoded", cut)
					}
				}
			})
		}
	}
}

// BenchmarkFSSTDecode times decoding an FSST section of text like the
// benchmark's comment columns.
func BenchmarkFSSTDecode(b *testing.B) {
	data := fsstText(rand.New(rand.NewPCG(3, 4)), 200000)
	tab := trainFSST(data)
	z := encodeFSST(make([]byte, fsstBound(len(data), 0)), data, len(data), tab)
	out := make([]byte, len(data))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := decodeFSST(out, z); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFSSTEncode times encoding it with a trained table.
func BenchmarkFSSTEncode(b *testing.B) {
	data := fsstText(rand.New(rand.NewPCG(3, 4)), 200000)
	tab := trainFSST(data)
	z := make([]byte, fsstBound(len(data), 0))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		encodeFSST(z, data, len(data), tab)
	}
}
