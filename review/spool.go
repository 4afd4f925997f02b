package review

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// spool keeps lines to be written later, in order: in memory up to limit bytes, then in a
// temporary file, so that what waits is bounded in memory whatever the input's size.
type spool struct {
	memory []string
	size   int
	// limit is what the spool keeps in memory before it moves to a file: spoolMemory, less in
	// a test.
	limit int
	file  *os.File
	out   *bufio.Writer
	err   error
}

// spoolMemory is what a spool keeps in memory before it moves to a file.
const spoolMemory = 4 << 20

func newSpool() *spool { return &spool{limit: spoolMemory} }

// add keeps one line (without its newline).
func (s *spool) add(line string) error {
	if s.err != nil {
		return s.err
	}
	if s.file == nil && s.size+len(line) <= s.limit {
		s.memory = append(s.memory, line)
		s.size += len(line)
		return nil
	}
	if s.file == nil {
		if s.file, s.err = os.CreateTemp("", "admit-summary-*"); s.err != nil {
			s.err = fmt.Errorf("spooling the summary: %w", s.err)
			return s.err
		}
		s.out = bufio.NewWriter(s.file)
		for _, l := range s.memory {
			s.write(l)
		}
		s.memory = nil
	}
	s.write(line)
	return s.err
}

func (s *spool) write(line string) {
	if s.err != nil {
		return
	}
	if _, err := s.out.WriteString(line + "\n"); err != nil {
		s.err = fmt.Errorf("spooling the summary: %w", err)
	}
}

// each calls fn with every line kept, in order.
func (s *spool) each(fn func(string) error) error {
	if s.err != nil {
		return s.err
	}
	if s.file == nil {
		for _, l := range s.memory {
			if err := fn(l); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.out.Flush(); err != nil {
		return fmt.Errorf("spooling the summary: %w", err)
	}
	if _, err := s.file.Seek(0, 0); err != nil {
		return fmt.Errorf("reading the spooled summary: %w", err)
	}
	r := bufio.NewReader(s.file)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if line != "" || !errors.Is(err, io.EOF) {
				return fmt.Errorf("reading the spooled summary: %w", err)
			}
			return nil
		}
		if err := fn(strings.TrimSuffix(line, "\n")); err != nil {
			return err
		}
	}
}

// remove deletes the temporary file, if there is one.
func (s *spool) remove() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file = nil
	}
	s.memory = nil
}
