//go:build !purego

package arrowpack

import "golang.org/x/sys/cpu"

const vecName = "avx2"

var vecSupported = cpu.X86.HasAVX2
