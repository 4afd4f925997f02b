// Package fuzzcorpus reads a fuzz target's committed corpus (testdata/fuzz/<target>), so that a
// test can count how many of the inputs reach the code under test. A fuzz target that compares a
// fast path with a reference proves nothing about the inputs the fast path declines; a test that
// counts the decided inputs, seeds and corpus alike, and fails below a floor, keeps the corpus
// worth running.
//
//	corpus.go  Read: the corpus files of a target, each decoded into its values
package fuzzcorpus
