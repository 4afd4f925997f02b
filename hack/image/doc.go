// Command image builds admit's container image without Docker (package internal/image): `make
// image` builds the static binary and runs it.
//
//	main.go  the flags, image.Build, and where the image was written
package main
