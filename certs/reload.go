package certs

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultPollInterval is how often a watcher re-reads its files even without a file event.
const DefaultPollInterval = 10 * time.Second

// fileReloader calls load with the contents of a fixed set of files at start and again
// whenever those contents change.
//
// Change detection has two layers because neither is enough alone. File events (inotify)
// are fast, but a Kubernetes Secret volume replaces files by swapping a "..data" symlink,
// editors and tools replace files by rename, and a path may be a symlink into a directory
// nobody watches; events get lost in all of these. So the reloader watches the parent
// directories (which see renames and symlink swaps) and the files themselves (which
// follow symlinks to their targets), re-adds watches that a removal dropped, and on top of
// that polls: every interval it re-reads the files and compares their digest.
type fileReloader struct {
	paths    []string
	interval time.Duration
	logger   *slog.Logger
	// load parses contents (one entry per path, in order) and, if they are valid, makes
	// them current. An error leaves the previous contents in use.
	load func(contents [][]byte) error

	// lastDigest is the digest of the contents last passed to load, valid or not, so that
	// a bad file is reported once rather than at every poll. Only the run goroutine uses
	// it after start returns.
	lastDigest [sha256.Size]byte
}

// start loads the files once, returning any error, and then watches them in a goroutine
// until ctx is done.
func (r *fileReloader) start(ctx context.Context) error {
	for _, p := range r.paths {
		if p == "" {
			return errors.New("file path is empty")
		}
	}
	// Watch before the first read, so a change in between is not missed.
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("creating file watcher: %w", err)
	}
	r.addWatches(fsw)
	contents, err := r.read()
	if err == nil {
		err = r.load(contents)
	}
	if err != nil {
		fsw.Close()
		return err
	}
	r.lastDigest = digest(contents)
	go r.run(ctx, fsw)
	return nil
}

func (r *fileReloader) run(ctx context.Context, fsw *fsnotify.Watcher) {
	defer fsw.Close()
	ticker := time.NewTicker(r.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case event, ok := <-fsw.Events:
			if !ok {
				return
			}
			// A removed or renamed file takes its inotify watch with it; watch whatever
			// now sits at the path.
			if event.Has(fsnotify.Remove) || event.Has(fsnotify.Rename) {
				r.addWatches(fsw)
			}
			r.reloadIfChanged("file event " + event.String())
		case err, ok := <-fsw.Errors:
			if !ok {
				return
			}
			r.logger.Warn("file watcher error; relying on polling", "files", r.paths, "error", err)
		case <-ticker.C:
			// A directory removed and created again is only noticed here.
			r.addWatches(fsw)
			r.reloadIfChanged("poll")
		}
	}
}

func (r *fileReloader) reloadIfChanged(trigger string) {
	contents, err := r.read()
	if err != nil {
		// Usually transient (a file being replaced); the next event or poll retries.
		r.logger.Warn("cannot read files; keeping the current ones", "trigger", trigger, "error", err)
		return
	}
	d := digest(contents)
	if d == r.lastDigest {
		return
	}
	r.lastDigest = d
	if err := r.load(contents); err != nil {
		r.logger.Error("reload failed; keeping the current ones", "trigger", trigger, "error", err)
		return
	}
}

// addWatches watches each file and its directory. Adding an existing watch is harmless;
// paths that do not exist right now are picked up by a later call.
func (r *fileReloader) addWatches(fsw *fsnotify.Watcher) {
	seen := map[string]bool{}
	for _, p := range r.paths {
		for _, target := range []string{filepath.Dir(p), p} {
			if seen[target] {
				continue
			}
			seen[target] = true
			if err := fsw.Add(target); err != nil && !errors.Is(err, os.ErrNotExist) {
				r.logger.Debug("cannot watch path; relying on polling", "path", target, "error", err)
			}
		}
	}
}

func (r *fileReloader) read() ([][]byte, error) {
	contents := make([][]byte, len(r.paths))
	for i, p := range r.paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err // *PathError names the file
		}
		contents[i] = b
	}
	return contents, nil
}

// digest hashes each file's length and content, so moving bytes from one file to the next
// still counts as a change.
func digest(contents [][]byte) [sha256.Size]byte {
	h := sha256.New()
	for _, c := range contents {
		fmt.Fprintf(h, "%d:", len(c))
		h.Write(c)
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

func pollIntervalOrDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultPollInterval
	}
	return d
}

func loggerOrDefault(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
