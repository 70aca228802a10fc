package codec

import (
	"errors"
	"fmt"
	"testing"
)

// Every test and fuzz run of this package fails on a panic that decoding
// recovered from: the recovery must never hide a missing check.
func init() {
	onRecoveredPanic = func(p any, stack []byte) {
		panic(fmt.Sprintf("codec: decoding recovered from a panic, so a check is missing: %v\n%s", p, stack))
	}
}

// TestRecoverCorrupt checks the safety net itself: a panic under
// recoverCorrupt becomes an ErrCorrupt error and is reported to the hook.
func TestRecoverCorrupt(t *testing.T) {
	saved := onRecoveredPanic
	defer func() { onRecoveredPanic = saved }()
	var seen any
	onRecoveredPanic = func(p any, _ []byte) { seen = p }
	f := func() (err error) {
		defer recoverCorrupt(&err)
		panic("boom")
	}
	err := f()
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
	if seen != "boom" {
		t.Fatalf("hook saw %v, want boom", seen)
	}
	g := func() (err error) {
		defer recoverCorrupt(&err)
		return nil
	}
	if err := g(); err != nil {
		t.Fatalf("no panic: err = %v", err)
	}
}
