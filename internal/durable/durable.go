// Package durable writes a file so that it appears complete or not at all,
// and survives a crash once its Commit returns: the data is written under a
// temporary name in the target's directory, synced, renamed (or linked) into
// place, and the directory is synced after that. SQLite, PostgreSQL, git
// (core.fsync) and etcd do the same before they say "done".
//
// The command and the Flight server both write through it, so that they make
// one promise: a target is replaced only by a complete, synced file.
package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrExists is wrapped when the target exists and replacing it was not
// asked for.
var ErrExists = errors.New("exists")

// Syncer is what makes writes reach the disk. Tests substitute one that
// records the calls, since a process kill cannot show a missing fsync.
type Syncer interface {
	// SyncFile flushes f's data and metadata to stable storage.
	SyncFile(f *os.File) error
	// SyncDir flushes the directory's entries (a rename into it) to
	// stable storage.
	SyncDir(dir string) error
}

// OS is the Syncer of the operating system: fsync of the file, then of the
// directory.
var OS Syncer = osSyncer{}

type osSyncer struct{}

func (osSyncer) SyncFile(f *os.File) error { return f.Sync() }

func (osSyncer) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems cannot sync a directory; their renames are
	// durable on their own or not at all, and nothing more can be done.
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrInvalid) {
		return nil
	}
	return err
}

// tempMarker is in the name of every temporary file: ".<base>.tmp-<random>".
const tempMarker = ".tmp-"

// IsTemp reports whether name (a base name) is one of this package's
// temporary files, left behind by a process that was killed before it
// committed or aborted.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// RemoveTemps removes the temporary files that killed writers left in dir
// and returns the names it removed. Call it only where no other process is
// writing into dir at the same time.
func RemoveTemps(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsTemp(e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}

// A File is an output file written under a temporary name in its target's
// directory. Commit makes it the target; Abort removes it and leaves the
// target as it was.
type File struct {
	*os.File
	target  string
	replace bool
	mode    fs.FileMode
	sync    Syncer
	done    bool
}

// Options say how Create and Commit treat the target.
type Options struct {
	// Replace lets Commit replace an existing target. Without it an
	// existing target is an error wrapping ErrExists, at Create and again
	// at Commit (a file that appeared meanwhile is not replaced either).
	Replace bool
	// Sync is the Syncer Commit uses; nil means do not sync (faster, but
	// a crash soon after Commit may leave the target empty or missing).
	Sync Syncer
	// Mode is the new file's permission bits (0 means 0o644). A replaced
	// target keeps its own.
	Mode fs.FileMode
}

// Create starts an output file for target.
func Create(target string, o Options) (*File, error) {
	mode := o.Mode
	if mode == 0 {
		mode = 0o644
	}
	if st, err := os.Lstat(target); err == nil {
		if !o.Replace {
			return nil, fmt.Errorf("%s %w", target, ErrExists)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file: will not replace it", target)
		}
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+tempMarker+"*")
	if err != nil {
		return nil, fmt.Errorf("creating a file next to %s: %w", target, err)
	}
	return &File{File: f, target: target, replace: o.Replace, mode: mode, sync: o.Sync}, nil
}

// Target returns the path Commit writes.
func (f *File) Target() string { return f.target }

// Commit syncs the file (when a Syncer is set), closes it, moves it to the
// target and syncs the directory. When it returns nil the target holds
// everything written, and with a Syncer it survives a crash. On error the
// temporary file is gone and the target is as it was.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	tmp := f.Name()
	err := f.Chmod(f.mode)
	if err == nil && f.sync != nil {
		err = f.sync.SyncFile(f.File)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.move(tmp)
	}
	os.Remove(tmp) // after a link, or a failure; gone after a rename
	if err == nil && f.sync != nil {
		err = f.sync.SyncDir(filepath.Dir(f.target))
	}
	return err
}

// move puts tmp at the target: a rename when replacing, otherwise a hard
// link, which fails if the target appeared meanwhile.
func (f *File) move(tmp string) error {
	if f.replace {
		return os.Rename(tmp, f.target)
	}
	err := os.Link(tmp, f.target)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %w", f.target, ErrExists)
	}
	if err != nil {
		// No hard links on this file system: check, then rename.
		if _, serr := os.Lstat(f.target); serr == nil {
			return fmt.Errorf("%s %w", f.target, ErrExists)
		}
		return os.Rename(tmp, f.target)
	}
	return nil
}

// Abort closes and removes the temporary file; the target stays as it was.
// It does nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}
