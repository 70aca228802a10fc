package codec

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/arrio"
)

// Readers and Writers fit wherever arrow-go takes its own: arrio.Copy, say.
var (
	_ array.RecordReader = (*Reader)(nil)
	_ arrio.Reader       = (*Reader)(nil)
	_ arrio.Writer       = (*Writer)(nil)
)
