package codec

import "runtime/debug"

// onRecoveredPanic, if not nil, is called with every panic that decoding
// recovered from. The package's tests set it to fail loudly, since such a
// panic means a check is missing: the recovery is a second line of
// defence, never the way an input is refused.
var onRecoveredPanic func(p any, stack []byte)

// recoverCorrupt, deferred by the decoding entry points, turns a panic
// that escaped the checks (inside arrow-go's constructors, say) into an
// error wrapping ErrCorrupt stored in *err.
func recoverCorrupt(err *error) {
	p := recover()
	if p == nil {
		return
	}
	if onRecoveredPanic != nil {
		onRecoveredPanic(p, debug.Stack())
	}
	*err = corruptf("an inconsistency the decoder does not check made it fail (%v); please report the input", p)
}
