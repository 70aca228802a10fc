package codec

import "encoding/binary"

// choices draws the decisions of the structure-aware builders from a byte
// source: the fuzzer's input, or seeded random bytes in TestStructured. Once
// the bytes run out every draw returns 0, which the builders read as "the
// valid, smallest choice", so that every input builds a finite, mostly
// well-formed block.
//
// The first byte sets how hostile the build is: each decision point that
// can go wrong (a length, an offset, an id, a flag) goes wrong with
// probability rate/256, where rate is that byte's low 6 bits (so at most
// one in four); a first byte with rate 0 gives a block that follows the
// format exactly.
type choices struct {
	data []byte
	pos  int
	rate int
}

func newChoices(data []byte) *choices {
	c := &choices{data: data}
	c.rate = int(c.byte() & 63)
	return c
}

func (c *choices) byte() byte {
	if c.pos >= len(c.data) {
		return 0
	}
	b := c.data[c.pos]
	c.pos++
	return b
}

// intn returns a value in [0, n), n > 0, from one byte (n <= 256) or two.
func (c *choices) intn(n int) int {
	if n <= 1 {
		return 0
	}
	if n <= 256 {
		return int(c.byte()) % n
	}
	return int(uint16(c.byte())|uint16(c.byte())<<8) % n
}

// oneIn returns true with probability about 1/n (never once the bytes run
// out).
func (c *choices) oneIn(n int) bool { return c.intn(n) == n-1 }

// u64 returns 8 bytes of the input as a word.
func (c *choices) u64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = c.byte()
	}
	return binary.LittleEndian.Uint64(b[:])
}

// bytes returns n bytes of the input (zeros past its end).
func (c *choices) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c.byte()
	}
	return b
}

// hostile decides whether the next decision goes wrong; if so it returns
// which of n ways (0..n-1), otherwise -1. Zero bytes never go wrong.
func (c *choices) hostile(n int) int {
	if int(c.byte()) < 256-c.rate {
		return -1
	}
	return c.intn(n)
}
