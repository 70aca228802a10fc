package codec

import "unsafe"

// What an encoder knows of each buffer it writes, for the lightweight
// section codecs (Light): the writer notes a hint beside the mark of every
// buffer, and the planner (section_light.go) picks a codec for the piece of
// body that starts there from it.

// hintKind says what the bytes of a buffer are.
type hintKind uint8

const (
	hNone  hintKind = iota // bytes of no known shape: validity, views, decimals, bits
	hInt                   // little-endian integers of width bytes (values, indices, lengths)
	hFloat                 // IEEE 754 floats of width bytes
	hText                  // the data bytes of a string or binary array
)

// bufHint is the hint of one buffer.
type bufHint struct {
	kind  hintKind
	width uint8 // hInt, hFloat: bytes per value
	n     int   // the buffer's bytes, set when it is reserved
	col   *plan // the node it belongs to: the key of the column's encoder state
}

// of returns h for a buffer of n bytes.
func (h bufHint) of(n int) bufHint {
	h.n = n
	return h
}

// intHint is the hint of integers of width bytes of the node p.
func intHint(p *plan, width int) bufHint {
	if width != 4 && width != 8 && width != 16 {
		return bufHint{}
	}
	return bufHint{kind: hInt, width: uint8(width), col: p}
}

// transposed reports whether an LZ4 block holds the buffer byte-transposed
// (plan.transpose: fixed-width integers and dictionary indices, not
// offsets, lengths or run ends).
func (h bufHint) transposed() bool { return h.col != nil && h.col.transpose }

// asBytes returns the memory of x as bytes.
func asBytes[T any](x []T) []byte {
	if len(x) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), len(x)*int(unsafe.Sizeof(zero)))
}
