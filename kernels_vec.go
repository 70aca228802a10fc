//go:build (amd64 || arm64) && !purego

package arrowpack

// The vector path: assembly routines (codec_amd64.s, codec_arm64.s, with the
// same names and contracts on both) do whole vector blocks and return how
// much they did; the generic code finishes the tail. Inputs shorter than
// minVec go to the generic code directly, where a call would cost more.

const minVec = 64

var vectorImpl = impl{
	name:            vecName,
	rebase32:        rebase32Vector,
	rebase64:        rebase64Vector,
	nondecreasing32: nondecreasing32Vector,
	nondecreasing64: nondecreasing64Vector,
	shiftBits:       shiftBitsVector,
	popcount:        popcountVector,
}

func init() {
	if vecSupported {
		impls = append(impls, &vectorImpl)
		active = &vectorImpl
	}
}

func rebase32Vector(dst, src []int32, base int32) {
	n := 0
	if len(src) >= minVec {
		n = rebase32Vec(dst, src, base)
	}
	rebase32Generic(dst[n:], src[n:], base)
}

func rebase64Vector(dst, src []int64, base int64) {
	n := 0
	if len(src) >= minVec {
		n = rebase64Vec(dst, src, base)
	}
	rebase64Generic(dst[n:], src[n:], base)
}

func nondecreasing32Vector(x []int32) bool {
	n := 0
	if len(x) >= minVec {
		var ok bool
		if n, ok = nondecreasing32Vec(x); !ok {
			return false
		}
	}
	return nondecreasing32Generic(x[n:])
}

func nondecreasing64Vector(x []int64) bool {
	n := 0
	if len(x) >= minVec {
		var ok bool
		if n, ok = nondecreasing64Vec(x); !ok {
			return false
		}
	}
	return nondecreasing64Generic(x[n:])
}

func shiftBitsVector(dst, src []byte, k uint) {
	n := 0
	if len(dst) >= minVec {
		n = shiftBitsVec(dst, src, k)
	}
	shiftBitsGeneric(dst[n:], src[n:], k)
}

func popcountVector(b []byte) int {
	c, n := 0, 0
	if len(b) >= minVec {
		c, n = popcountVec(b)
	}
	return c + popcountGeneric(b[n:])
}
