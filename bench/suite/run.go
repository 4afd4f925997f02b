package suite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/admitkit/admit/bench/usage"
)

// Run runs the serving comparison then the dispatcher comparison and returns all their samples
// with the machine they ran on. command is recorded as the way to reproduce the run.
func Run(ctx context.Context, cfg Config, command string) (*Results, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "admitbench-")
	if err != nil {
		return nil, fmt.Errorf("creating a directory for certificates: %w", err)
	}
	defer os.RemoveAll(tmp)

	res := &Results{
		Machine: usage.DescribeMachine(),
		Command: command,
		Started: time.Now().UTC().Truncate(time.Second),
		Rounds:  cfg.Rounds,
		Config:  cfg,
	}
	if load, err := usage.LoadAverage(); err == nil {
		res.LoadStart = load[0]
	}
	if res.Serving, err = RunServing(ctx, cfg, filepath.Join(tmp, "serving")); err != nil {
		return nil, fmt.Errorf("serving comparison: %w", err)
	}
	if res.Dispatch, err = RunDispatch(ctx, cfg, filepath.Join(tmp, "dispatch")); err != nil {
		return nil, fmt.Errorf("dispatcher comparison: %w", err)
	}
	if load, err := usage.LoadAverage(); err == nil {
		res.LoadEnd = load[0]
	}
	return res, nil
}
