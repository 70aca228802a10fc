package codec

// What options set, for code that writes or reads blocks some other way
// than the codec's Writer and Reader (a Flight writer or reader, say) and
// must act on the same options.

// BlockTargets returns the block targets that WithBlockRows and
// WithBlockSize set among opts, 0 for one not set: what a Writer given opts
// coalesces batches to. Code that writes blocks some other way than a
// Writer (a Flight writer, say) uses it to learn whether to coalesce. An
// invalid option is an error, as NewWriter's.
func BlockTargets(opts ...Option) (rows, size int, err error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return 0, 0, err
	}
	return cfg.blockRows, cfg.blockSize, nil
}

// MaxBlockSize returns the cap on a block body, decompressed, that opts set
// (WithMaxBlockSize), DefaultMaxBlockSize when they set none: what a
// Decoder or Reader given opts accepts. Code that reads blocks or batches
// some other way (a Flight reader, say) uses it to bound what it allocates
// by the same cap. An invalid option is an error, as NewReader's.
func MaxBlockSize(opts ...Option) (int, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return 0, err
	}
	return cfg.maxBlock, nil
}
