package testsuite

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// holdAtMost is how many case reports a file's run holds in memory; beyond it they are written
// to a temporary file and read back when written out, so that a file of many cases is not
// held. A few hundred covers every hand-written file without a temporary file.
const holdAtMost = 512

// caseLog is a file's case reports, in its cases' order, added as each case is decided. The
// control run's verdicts (vacuous cases) and the counts are kept beside the reports, so that
// a report once added is not written again.
type caseLog struct {
	// holdAtMost is the number of reports held before the log spills to spool.
	holdAtMost int
	held       []*CaseReport
	spool      *os.File
	spooled    *bufio.Writer
	n          int
	// passed marks the reports that passed, by position: the control run admits those again.
	passed []uint64
	// vacuous are the control run's failures, by position.
	vacuous                map[int]string
	passes, fails, errored int
	took                   time.Duration
}

// spooledReport is a report as the spool keeps it: with its duration, which CaseReport's JSON
// gives only in seconds.
type spooledReport struct {
	Took   time.Duration `json:"took"`
	Report *CaseReport   `json:"report"`
}

func newCaseLog(hold int) *caseLog { return &caseLog{holdAtMost: hold, vacuous: map[int]string{}} }

// add appends the next case's report.
func (l *caseLog) add(cr *CaseReport) error {
	k := l.n
	l.n++
	l.took += cr.Took
	switch {
	case cr.Error != "":
		l.errored++
	case cr.Passed:
		l.passes++
		for len(l.passed) <= k/64 {
			l.passed = append(l.passed, 0)
		}
		l.passed[k/64] |= 1 << (k % 64)
	default:
		l.fails++
	}
	if l.spool == nil && len(l.held) < l.holdAtMost {
		l.held = append(l.held, cr)
		return nil
	}
	if l.spool == nil {
		if err := l.spill(); err != nil {
			return err
		}
	}
	return l.write(cr)
}

// spill moves the held reports to a temporary file.
func (l *caseLog) spill() error {
	f, err := os.CreateTemp("", "admit-test-reports-")
	if err != nil {
		return fmt.Errorf("keeping the case reports: %w", err)
	}
	l.spool, l.spooled = f, bufio.NewWriter(f)
	for _, cr := range l.held {
		if err := l.write(cr); err != nil {
			return err
		}
	}
	l.held = nil
	return nil
}

func (l *caseLog) write(cr *CaseReport) error {
	b, err := json.Marshal(spooledReport{Took: cr.Took, Report: cr})
	if err != nil {
		return fmt.Errorf("keeping case %q's report: %w", cr.Name, err)
	}
	if _, err := l.spooled.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("keeping the case reports: %w", err)
	}
	return nil
}

// hasPassed says whether the report at position k passed (before the control run).
func (l *caseLog) hasPassed(k int) bool {
	return k/64 < len(l.passed) && l.passed[k/64]&(1<<(k%64)) != 0
}

// failVacuous fails the passed report at position k: it passes without what it tests.
func (l *caseLog) failVacuous(k int, failure string) {
	if _, done := l.vacuous[k]; done || !l.hasPassed(k) {
		return
	}
	l.vacuous[k] = failure
	l.passes--
	l.fails++
}

// each calls fn with every report, in order, the control run's failures added.
func (l *caseLog) each(fn func(*CaseReport) error) error {
	if l.spool == nil {
		for k, cr := range l.held {
			if err := fn(l.verdict(k, cr)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := l.spooled.Flush(); err != nil {
		return fmt.Errorf("keeping the case reports: %w", err)
	}
	size, err := l.spool.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("reading the case reports back: %w", err)
	}
	dec := json.NewDecoder(bufio.NewReader(io.NewSectionReader(l.spool, 0, size)))
	for k := range l.n {
		var sr spooledReport
		if err := dec.Decode(&sr); err != nil {
			return fmt.Errorf("reading the case reports back (report %d of %d): %w", k+1, l.n, err)
		}
		sr.Report.Took = sr.Took
		if err := fn(l.verdict(k, sr.Report)); err != nil {
			return err
		}
	}
	return nil
}

// verdict is the report at position k with the control run's failure, when it has one; a held
// report is copied rather than changed, so that reading the log twice gives the same reports.
func (l *caseLog) verdict(k int, cr *CaseReport) *CaseReport {
	failure, vacuous := l.vacuous[k]
	if !vacuous {
		return cr
	}
	c := *cr
	c.Passed = false
	c.Failures = append(append([]string(nil), cr.Failures...), failure)
	return &c
}

// close removes the spool.
func (l *caseLog) close() error {
	if l == nil || l.spool == nil {
		return nil
	}
	name := l.spool.Name()
	err := l.spool.Close()
	l.spool, l.spooled = nil, nil
	return errors.Join(err, os.Remove(name))
}
