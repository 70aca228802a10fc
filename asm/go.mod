module github.com/arrowpack/arrowpack/asm

go 1.26.0

require github.com/mmcloughlin/avo v0.6.0

// avo v0.6.0 asks for golang.org/x/tools v0.16.1, whose internal/tokeninternal
// no longer compiles with current Go; the newer x/tools below is required.
require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
