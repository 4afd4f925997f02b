// Package cifit runs admit where CI runs it, on this machine: the repository's GitHub Action
// (action.yml at its root) as a GitHub runner runs a composite action, and its pre-commit hooks
// (.pre-commit-hooks.yaml) as pre-commit runs them. Nothing here is GitHub's or pre-commit's
// code: it is the part of their behaviour the action and the hooks rely on, written down and
// checked by its own tests, so that `make test` runs the action's steps and the hooks themselves
// rather than copies of them.
//
// The runner's part: an action's steps are run in order in a Job (a workspace, a RUNNER_TEMP the
// job's steps share, what steps left for the later ones); each step's if is evaluated, the
// ${{ }} expressions of its run, env, with and working-directory are substituted, and a run step
// is run by bash --noprofile --norc -eo pipefail with the runner's variables (RUNNER_OS,
// RUNNER_ARCH, GITHUB_ACTION_PATH...) and fresh per-step files (GITHUB_OUTPUT, GITHUB_ENV,
// GITHUB_PATH, GITHUB_STEP_SUMMARY), read back after it. Uses steps are not run: their if and
// with are evaluated, for the tests to check. Expressions are a subset of GitHub's language, and
// anything outside it is an error rather than a guess.
//
// pre-commit's part: a hook's files and exclude patterns (Python regular expressions, which the
// hooks keep to a subset that Go's regexp reads alike), types, entry, args and pass_filenames,
// applied to a commit's changed files in the repository's root.
//
//	action.go     Action, Step, LoadAction: action.yml read strictly; the inputs of one use;
//	              the per-step files' name=value and heredoc format
//	runner.go     Job, Run, StepRun: a composite action's steps run as the runner runs them
//	expr.go       Contexts: GitHub's expressions, interpolated and as conditions
//	precommit.go  Hook, LoadHooks, PortablePattern: a hook's file selection, command and run
//
// The tests: action_test.go uses the action in one job on this checkout (admit built from
// source) for test, lint and audit, passing, failing and refusing bad input, and checks exit
// codes, the JUnit and SARIF reports, the SARIF upload step's inputs and the job summary;
// release_test.go installs releases that hack/release-archive.sh packs and a loopback server
// serves, and refuses bad ones; precommit_test.go runs the hooks on commits' changed files, and
// under pre-commit itself (try-repo) where it is installed or installable (hack/ensure-tools.sh);
// docs_test.go runs docs/ci.md's workflow and pre-commit configuration and checks its tables;
// emulation_test.go checks the emulation itself. The tests run in make test's unit tests; they
// are built without the e2e tag, so that the e2e run (go test -tags e2e ./test/...) leaves them
// out rather than running them twice.
package cifit
