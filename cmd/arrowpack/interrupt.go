package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interruptGrace is how long a command may take, once a signal cancelled
// its context, to stop on its own (and remove its unfinished output through
// its own deferred Abort) before the program removes the unfinished outputs
// itself and exits.
const interruptGrace = time.Second

// gracefulCommands stop on their own at a signal and may take their time
// (serve finishes the calls under way): only a second signal makes the
// program exit without waiting for them.
var gracefulCommands = map[string]bool{"serve": true}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (i *interrupted) Error() string { return fmt.Sprintf("interrupted (%s)", i.sig) }

// exitCode is the shell's status for a process ended by the signal: 128+n.
func (i *interrupted) exitCode() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// runInterruptible runs the command line as run does, with a context that
// SIGINT or SIGTERM cancels. At a signal the command has interruptGrace to
// return (a graceful command, until a second signal); then every output file
// still unfinished is removed (abortOutputs) and the status is 128+signal,
// whatever the command was doing: blocked on a pipe, writing, waiting on a
// server. The targets stay as they were.
func runInterruptible(args []string, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan int, 1)
	go func() { done <- runContext(ctx, args, stdin, stdout, stderr) }()
	var sig os.Signal
	select {
	case code := <-done:
		return code
	case sig = <-sigs:
	}
	intr := &interrupted{sig}
	cancel(intr)
	var wait <-chan time.Time
	if !gracefulCommands[commandName(args)] {
		wait = time.After(interruptGrace)
	}
	select {
	case code := <-done:
		if gracefulCommands[commandName(args)] {
			return code // it stopped as it should at a signal
		}
	case <-sigs:
	case <-wait:
	}
	if removed := abortOutputs(); len(removed) > 0 {
		fmt.Fprintf(stderr, "arrowpack: %s: removed the unfinished output for %v; the target is as it was\n", intr, removed)
	}
	return intr.exitCode()
}

// notifySignals returns a channel that receives SIGINT and SIGTERM, which
// no longer end the process on their own.
func notifySignals() <-chan os.Signal {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	return sigs
}

// interruption returns the error to end a command with if its context was
// cancelled (by a signal), or nil.
func (e *env) interruption() error {
	if e.ctx == nil || e.ctx.Err() == nil {
		return nil
	}
	return context.Cause(e.ctx)
}
