// Command linteval evaluates admit lint on the webhook manifests real projects publish, and
// writes the result to docs/lint-evaluation.md.
//
// Run it from the repository's root:
//
//	go run ./hack/linteval [flags]
//	make lint-eval LINTEVAL_FLAGS='[flags]'
//
// For each project of hack/linteval/corpus.yaml it
//
//  1. writes the project's files, as they are at the pinned commit, to
//     <cache>/<owner>+<name>/<commit>/ (directories are read recursively; symbolic links are
//     replaced by their target's content; a file the corpus names whose name does not end in
//     .yaml, .yml or .json is written with a ".yaml" suffix, so that the linter reads it);
//  2. runs `admit lint -R -o json --severity info` on them, from that directory, so that the
//     findings name files as the repository does;
//  3. gives each finding the verdict of the most specific matching entry of
//     hack/linteval/judgments.yaml ("unjudged" if none matches).
//
// The git objects come from --mirrors DIR when DIR/<owner>+<name>/repo is a git directory, else
// from a bare partial clone of https://github.com/<owner>/<name> that is kept in the cache (so
// the cache is itself a mirrors directory). Only the network needs the clone: nothing fetched
// is committed.
//
// Flags:
//
//	--admit PATH       the admit binary to evaluate (default: build ./cmd/admit)
//	--cache DIR        where files and clones are kept (default .cache/linteval)
//	--check            exit 1 if a warning or error is unjudged, or a judgment is stale
//	--corpus FILE      the projects (default hack/linteval/corpus.yaml)
//	--judgments FILE   the verdicts (default hack/linteval/judgments.yaml)
//	--analysis FILE    Markdown placed after the verdicts (default hack/linteval/analysis.md)
//	--mirrors DIR      read git objects from DIR/<owner>+<name>/repo where there is one
//	--out FILE         the report (default docs/lint-evaluation.md)
//	--print-unjudged   print the unjudged warnings and errors as judgments.yaml entries
//
// To judge: run with --print-unjudged, replace each entry's TODO verdict and reason, paste the
// entries into judgments.yaml under their project, and run again (with --check) to regenerate
// the report. To measure a change to the rules on projects they were not tuned on, add projects
// with `unseen: "<the change>"`, judge their findings before changing any rule, then mark the
// verdicts given afterwards (on findings the change made) `afterChange: true`: the report gives
// the precision of each part of the corpus, and of the unseen verdicts given before and after;
// a verdict whose finding a change removed stays, marked `goneAfter`, for the part's precision
// before the change. The program exits 1 when a project could not be evaluated (the report says why),
// and 2 on a bad flag.
//
//	main.go         the flags, the admit binary, each project evaluated, the report and --check
//	corpus.go       Project: corpus.yaml read strictly
//	gitsource.go    a repository's objects read with git, from a mirror or a partial clone
//	materialize.go  a project's files at its commit written into the cache, links followed
//	kustomize.go    a kustomization built with kustomize's library, its output the one thing linted
//	lintrun.go      admit built, run on a project's files, its JSON findings read
//	judgments.go    Verdict, Judgment: judgments.yaml read, findings judged, unjudged ones printed
//	report.go       docs/lint-evaluation.md: the tables, the precision of each part of the corpus
//	tally.go        the verdicts counted: over all, by rule, by severity, by part of the corpus
package main
