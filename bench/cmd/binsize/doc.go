// Command binsize checks the release binary's size against its goal, for `make test`: the admit
// that make's test-binaries builds, built as the release is built (make release-binary: static,
// the release tags, stripped) but perhaps without -trimpath, which only makes it a little larger
// than the release: an upper bound. Over the goal, it builds an unstripped twin of the
// same configuration with the linker's dependency dump and says what the linker kept: whether
// it had to keep every exported method (a call through reflection it cannot see), from where,
// and the modules by the bytes linked.
//
//	binsize -binary FILE [-max-bytes N] [-tags TAGS] [-dir DIR] [-package PKG]
//
//	main.go  the flags, the binary's build settings checked, its size, the explanation
package main
