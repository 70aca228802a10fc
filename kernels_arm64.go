//go:build !purego

package arrowpack

import "golang.org/x/sys/cpu"

const vecName = "neon"

var vecSupported = cpu.ARM64.HasASIMD
