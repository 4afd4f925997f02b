package cifit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Job is one job of a workflow on a runner: its workspace, its temporary directory
// (RUNNER_TEMP, emptied by the runner between jobs, shared by the job's steps) and what steps
// left for the later ones (GITHUB_PATH and GITHUB_ENV additions, the job summary). Actions run
// in it one after the other, as a job's steps.
type Job struct {
	// Workspace is GITHUB_WORKSPACE, where run steps start unless they say otherwise.
	Workspace string
	// Temp is RUNNER_TEMP.
	Temp string
	// OS and Arch are RUNNER_OS (Linux, macOS, Windows) and RUNNER_ARCH (X64, ARM64, ...).
	OS, Arch string
	// Env is the runner's environment, which every step gets with the runner's variables.
	Env []string
	// Log, when set, receives each step's output as it runs.
	Log io.Writer

	control string            // the directory of the runner's per-step files
	path    []string          // directories steps added to PATH, the latest first
	env     map[string]string // variables steps set for the later ones
	steps   int               // steps run so far, for the per-step files' names
	summary strings.Builder   // the job summary: every step's, in order
}

// NewJob makes a job whose workspace is workspace, with its runner's directories under root and
// the runner's platform this machine's.
func NewJob(workspace, root string) (*Job, error) {
	j := &Job{
		Workspace: workspace, Temp: filepath.Join(root, "temp"), control: filepath.Join(root, "runner"),
		OS: runnerOS(runtime.GOOS), Arch: runnerArch(runtime.GOARCH), Env: os.Environ(), env: map[string]string{},
	}
	for _, dir := range []string{j.Temp, j.control} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	return j, nil
}

func runnerOS(goos string) string {
	switch goos {
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return "Linux"
}

func runnerArch(goarch string) string {
	switch goarch {
	case "amd64":
		return "X64"
	case "arm64":
		return "ARM64"
	case "386":
		return "X86"
	}
	return strings.ToUpper(goarch)
}

// Summary is the job summary so far: what the steps wrote to GITHUB_STEP_SUMMARY.
func (j *Job) Summary() string { return j.summary.String() }

// Run is one use of an action: its steps and its outputs.
type Run struct {
	Steps   []StepRun
	Outputs map[string]string
	// Failed says that a step failed (and did not continue on error): the action failed, and so
	// does the workflow's step that used it.
	Failed bool
	// Summary is what this use's steps wrote to the job summary.
	Summary string
}

// StepRun is what became of one step.
type StepRun struct {
	Label string
	// Skipped says that the step's if was false.
	Skipped bool
	// Uses is the action a uses step names; such steps are not run here: With holds the
	// inputs it would have been given.
	Uses string
	With map[string]string
	// ExitCode, Output (stdout and stderr) and Outputs are a run step's.
	ExitCode int
	Output   string
	Outputs  map[string]string
}

// Step returns the step of the run with this label (its id, or name).
func (r *Run) Step(label string) *StepRun {
	for i := range r.Steps {
		if r.Steps[i].Label == label {
			return &r.Steps[i]
		}
	}
	return nil
}

// Run runs an action in the job with the inputs a workflow's with: gives it, as the runner runs
// a composite action: each step's if evaluated, its expressions substituted, run steps run with
// bash as the runner's bash shell runs them (bash --noprofile --norc -eo pipefail SCRIPT) with the
// runner's variables and per-step files, and the outputs evaluated last. Uses steps are not
// run: their if and with are evaluated. The error is the emulation's (an expression it cannot
// evaluate, an undeclared input); a failing step is Run.Failed.
func (j *Job) Run(ctx context.Context, a *Action, with map[string]string) (*Run, error) {
	inputs, err := a.inputs(with)
	if err != nil {
		return nil, err
	}
	steps := map[string]any{}
	c := &Contexts{Values: map[string]any{
		"inputs": inputs,
		"github": map[string]any{"action_path": a.Dir, "workspace": j.Workspace},
		"runner": map[string]any{"temp": j.Temp, "os": j.OS, "arch": j.Arch},
		"steps":  steps,
		"env":    map[string]any{},
	}}
	run := &Run{Outputs: map[string]string{}}
	for i, s := range a.Runs.Steps {
		for k, v := range j.env {
			c.Values["env"].(map[string]any)[k] = v
		}
		sr, err := j.step(ctx, a, s, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Label(i), err)
		}
		sr.Label = s.Label(i)
		run.Steps = append(run.Steps, sr.StepRun)
		outcome, conclusion := "success", "success"
		switch {
		case sr.Skipped:
			outcome, conclusion = "skipped", "skipped"
		case sr.ExitCode != 0 && s.ContinueOnError:
			outcome = "failure"
		case sr.ExitCode != 0:
			outcome, conclusion = "failure", "failure"
			c.Failed = true
		}
		if s.ID != "" {
			steps[s.ID] = map[string]any{"outputs": anyMap(sr.Outputs), "outcome": outcome, "conclusion": conclusion}
		}
		run.Summary += sr.summary
	}
	run.Failed = c.Failed
	for name, out := range a.Outputs {
		if run.Outputs[name], err = c.Interpolate(out.Value); err != nil {
			return nil, fmt.Errorf("output %s: %w", name, err)
		}
	}
	return run, nil
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stepResult is a StepRun and the summary its step wrote.
type stepResult struct {
	StepRun
	summary string
}

func (j *Job) step(ctx context.Context, a *Action, s Step, c *Contexts) (*stepResult, error) {
	ok, err := c.Condition(s.If)
	if err != nil || !ok {
		return &stepResult{StepRun: StepRun{Skipped: true}}, err
	}
	if s.Uses != "" {
		with := map[string]string{}
		for k, v := range s.With {
			if with[k], err = c.Interpolate(v); err != nil {
				return nil, fmt.Errorf("with.%s: %w", k, err)
			}
		}
		return &stepResult{StepRun: StepRun{Uses: s.Uses, With: with}}, nil
	}
	if s.Shell != "bash" {
		return nil, fmt.Errorf("shell %q: only bash steps run here", s.Shell)
	}
	script, err := c.Interpolate(s.Run)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for k, v := range s.Env {
		if env[k], err = c.Interpolate(v); err != nil {
			return nil, fmt.Errorf("env.%s: %w", k, err)
		}
	}
	dir, err := c.Interpolate(s.WorkingDirectory)
	if err != nil {
		return nil, fmt.Errorf("working-directory: %w", err)
	}
	return j.runScript(ctx, a, script, env, dir)
}

// The per-step files the runner hands a run step, by variable.
var fileCommands = []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"}

func (j *Job) runScript(ctx context.Context, a *Action, script string, stepEnv map[string]string, dir string) (*stepResult, error) {
	j.steps++
	files := map[string]string{}
	for _, name := range append([]string{"script"}, fileCommands...) {
		files[name] = filepath.Join(j.control, fmt.Sprintf("%d-%s", j.steps, strings.ToLower(name)))
		if err := os.WriteFile(files[name], nil, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(files["script"], []byte(script), 0o644); err != nil {
		return nil, err
	}
	if dir == "" {
		dir = j.Workspace
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(j.Workspace, dir)
	}
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", files["script"])
	cmd.Dir = dir
	cmd.Env = j.environment(a, files, stepEnv)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if j.Log != nil {
		cmd.Stdout = io.MultiWriter(&out, j.Log)
		cmd.Stderr = cmd.Stdout
	}
	res := &stepResult{}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, err
		}
		res.ExitCode = exit.ExitCode()
	}
	res.Output = out.String()
	return res, j.readFileCommands(files, res)
}

// environment is a run step's: the runner's environment, its variables, what earlier steps set
// (GITHUB_ENV, GITHUB_PATH) and the step's env, which wins.
func (j *Job) environment(a *Action, files map[string]string, stepEnv map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range j.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	vars["CI"], vars["GITHUB_ACTIONS"] = "true", "true"
	vars["GITHUB_WORKSPACE"], vars["GITHUB_ACTION_PATH"] = j.Workspace, a.Dir
	vars["RUNNER_TEMP"], vars["RUNNER_OS"], vars["RUNNER_ARCH"] = j.Temp, j.OS, j.Arch
	for _, name := range fileCommands {
		vars[name] = files[name]
	}
	for k, v := range j.env {
		vars[k] = v
	}
	if len(j.path) > 0 {
		vars["PATH"] = strings.Join(append(slices.Clone(j.path), vars["PATH"]), string(os.PathListSeparator))
	}
	for k, v := range stepEnv {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

// readFileCommands takes in what a step wrote to its files: its outputs, the variables and PATH
// entries of the later steps, its summary.
func (j *Job) readFileCommands(files map[string]string, res *stepResult) error {
	read := func(name string) (string, error) {
		data, err := os.ReadFile(files[name])
		return string(data), err
	}
	output, err := read("GITHUB_OUTPUT")
	if err == nil {
		res.Outputs, err = parseFileCommands(output)
	}
	if err != nil {
		return fmt.Errorf("GITHUB_OUTPUT: %w", err)
	}
	env, err := read("GITHUB_ENV")
	var vars map[string]string
	if err == nil {
		vars, err = parseFileCommands(env)
	}
	if err != nil {
		return fmt.Errorf("GITHUB_ENV: %w", err)
	}
	for k, v := range vars {
		j.env[k] = v
	}
	paths, err := read("GITHUB_PATH")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(paths, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			j.path = append([]string{line}, j.path...) // each line is prepended, as the runner does
		}
	}
	if res.summary, err = read("GITHUB_STEP_SUMMARY"); err != nil {
		return err
	}
	j.summary.WriteString(res.summary)
	return nil
}
