package cifit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Action is an action's metadata file (action.yml): its inputs, outputs and, for a composite
// action, its steps. Dir is the directory it was read from, the action's github.action_path.
type Action struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]Input  `yaml:"inputs"`
	Outputs     map[string]Output `yaml:"outputs"`
	Runs        Runs              `yaml:"runs"`

	Dir string `yaml:"-"`
}

// Input is one of an action's inputs.
type Input struct {
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
	Default     string `yaml:"default"`
}

// Output is one of a composite action's outputs: an expression over its steps' outputs.
type Output struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

// Runs says how an action runs; only composite actions are read here.
type Runs struct {
	Using string `yaml:"using"`
	Steps []Step `yaml:"steps"`
}

// Step is a composite action's step: a script (run, with its shell) or another action (uses,
// with its inputs in with).
type Step struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	ContinueOnError  bool              `yaml:"continue-on-error"`
}

// Label names a step in messages: its id, else its name, else its index.
func (s Step) Label(index int) string {
	switch {
	case s.ID != "":
		return s.ID
	case s.Name != "":
		return s.Name
	}
	return fmt.Sprintf("step %d", index+1)
}

// LoadAction reads dir/action.yml (or action.yaml) strictly: a key the runner does not know is
// an error, as are a composite action's steps that are neither run nor uses, or a run step
// without a shell.
func LoadAction(dir string) (*Action, error) {
	var data []byte
	var err error
	for _, name := range []string{"action.yml", "action.yaml"} {
		if data, err = os.ReadFile(filepath.Join(dir, name)); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	a := &Action{}
	if err := dec.Decode(a); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if a.Dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	return a, a.check()
}

func (a *Action) check() error {
	if a.Runs.Using != "composite" {
		return fmt.Errorf("runs.using is %q: only composite actions run here", a.Runs.Using)
	}
	var ids []string
	for i, s := range a.Runs.Steps {
		switch {
		case (s.Run == "") == (s.Uses == ""):
			return fmt.Errorf("%s: a step has either run or uses", s.Label(i))
		case s.Run != "" && s.Shell == "":
			return fmt.Errorf("%s: a composite action's run step needs a shell", s.Label(i))
		case s.ID != "" && slices.Contains(ids, s.ID):
			return fmt.Errorf("%s: two steps have this id", s.ID)
		}
		ids = append(ids, s.ID)
	}
	return nil
}

// inputs are the values of the action's inputs for one use: those given, the defaults for the
// others. An input the action does not declare is an error (the runner warns of it and ignores
// it), as is a required one missing.
func (a *Action) inputs(given map[string]string) (map[string]any, error) {
	values := map[string]any{}
	for name, value := range given {
		if _, ok := a.Inputs[name]; !ok {
			return nil, fmt.Errorf("the action has no input %q", name)
		}
		values[name] = value
	}
	for name, in := range a.Inputs {
		if _, ok := values[name]; ok {
			continue
		}
		if in.Required {
			return nil, fmt.Errorf("input %q is required", name)
		}
		values[name] = in.Default
	}
	return values, nil
}

// parseFileCommands reads a file the runner hands a step (GITHUB_OUTPUT, GITHUB_ENV): lines
// "name=value", or "name<<DELIMITER", the value's lines and the delimiter alone on a line.
func parseFileCommands(data string) (map[string]string, error) {
	values := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq := strings.Index(line, "=")
		heredoc := strings.Index(line, "<<")
		if eq > 0 && (heredoc < 0 || eq < heredoc) {
			values[line[:eq]] = line[eq+1:]
			continue
		}
		if heredoc <= 0 {
			return nil, fmt.Errorf("line %d: %q is neither name=value nor name<<DELIMITER", i+1, line)
		}
		name, delimiter := line[:heredoc], line[heredoc+2:]
		end := slices.Index(lines[i+1:], delimiter)
		if end < 0 {
			return nil, fmt.Errorf("line %d: %s's delimiter %q never comes", i+1, name, delimiter)
		}
		values[name] = strings.Join(lines[i+1:i+1+end], "\n")
		i += end + 1
	}
	return values, nil
}
