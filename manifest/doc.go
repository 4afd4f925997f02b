// Package manifest reads Kubernetes objects from files, directories and standard input, for
// every command of admit and for programs that read what it reads: `kubectl get -o yaml|json`
// dumps, multi-document YAML, JSON streams, Lists, kustomize and Helm output.
//
// The same input gives the same objects and the same errors wherever it is read. The decisions,
// each kubectl's where kubectl makes it:
//
//   - Paths (Expand): a file given is read whatever its name; a directory's *.yaml, *.yml and
//     *.json files in lexical order, its subdirectories' only with Options.Recursive (kubectl's
//     -R); "-" is standard input, which one input can read. A kustomization file describes a
//     build, not objects: a directory's is not read, one given by name is refused, and the files
//     of a kustomize base whose build changes them (placeholder namespaces, name prefixes,
//     patches) are refused with the command that builds them.
//   - An input that holds no objects is an error (Input.Empty): an empty pipe is most often a
//     command before it that failed, and reading nothing must not pass for reading something.
//   - Documents: YAML split at "---" lines, JSON values one after the other; a UTF-8 byte order
//     mark is skipped; a key set twice in one YAML mapping is an error (a key overriding one
//     merged in with "<<" is not); Lists — kind List, or any kind ending in List with items —
//     are read as their items, a typed List's items given its kind when they omit it.
//   - Errors start with "file:line: ", the line counted from the top of the file. Every problem
//     is reported (Read), or the first (Each). An object without a kind is an error, and a List
//     without its kind says the input looks cut off: kubectl writes a List's kind after its
//     items, so `head -c` of a dump never reads clean. A file that looks like a template gets a
//     last error saying to render it.
//
// Memory is bounded by a batch of documents, never by the input's size: a Reader reads a batch
// of documents at a time and decodes them in parallel. A document over 4 MiB that is a List
// (a whole cluster, `kubectl get -A -o yaml`) is read an item at a time; the same objects come
// out as from reading it whole, but its items cannot share YAML anchors and a typed List's
// kind, written after its items, cannot name theirs — both are errors, not silent differences.
//
// # Files
//
//	files.go      Expand, Inputs, Input, File: paths into files; Input.Empty; Spool
//	read.go       Inputs.Read, Inputs.Each, Inputs.ReadFile: every object of the inputs
//	reader.go     Reader: one stream's objects, a batch of documents at a time; Parse
//	split.go      a YAML stream into documents, and the pieces a file is split into
//	items.go      a large YAML List an item at a time
//	splitjson.go  a JSON stream into values, a large List an item at a time
//	decode.go     a piece into objects: Lists, kinds, the errors' places; Object, ObjectsOf
//	source.go     Source: where an object was read, and where its fields are
//	locate.go     the line of a field in a document
//	kustomize.go  KustomizeCheck: the files of a kustomize base whose build changes them
package manifest
