package codec

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
