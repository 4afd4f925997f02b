package audit

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is the share of a source's writes one process audits, so that several processes — the
// pods of an Indexed Job — audit one source together and Merge adds their reports up to the
// report of one process: the writes whose object's key hashes to Index, of Count shards. Every
// shard reads the whole source for the state admission reads, so that a write's answer does not
// depend on the sharding, and every write of one object falls in one shard, in the source's
// order, so that each update's old object is the one before it.
//
// The zero Shard is the whole source, and its report is not a shard's.
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N": shard I (from 0) of N.
func ParseShard(s string) (Shard, error) {
	index, count, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(strings.TrimSpace(index))
	n, nerr := strconv.Atoi(strings.TrimSpace(count))
	if !ok || ierr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("shard %q: give INDEX/COUNT, as 0/4 for the first of four shards", s)
	}
	return Shard{Index: i, Count: n}.checked()
}

// Environment variables an Indexed Job's pod reads its shard from: the completion index
// Kubernetes sets in every pod of an Indexed Job, and the count, which the Job's manifest sets
// to its completions (Kubernetes does not give a pod its Job's completions).
const (
	EnvCompletionIndex = "JOB_COMPLETION_INDEX"
	EnvShardCount      = "ADMIT_AUDIT_SHARDS"
)

// ShardFromEnv is the shard of a pod of an Indexed Job, from getenv (os.Getenv): ok is false
// outside one (no completion index). A completion index without a count is an error: a pod
// cannot tell its share of the writes without it.
func ShardFromEnv(getenv func(string) string) (shard Shard, ok bool, err error) {
	index := getenv(EnvCompletionIndex)
	if index == "" {
		return Shard{}, false, nil
	}
	count := getenv(EnvShardCount)
	if count == "" {
		return Shard{}, true, fmt.Errorf("%s is %s, but %s is not set: set it to the Job's completions, or give --shard", EnvCompletionIndex, index, EnvShardCount)
	}
	shard, err = ParseShard(index + "/" + count)
	if err != nil {
		return Shard{}, true, fmt.Errorf("%s=%s and %s=%s: %w", EnvCompletionIndex, index, EnvShardCount, count, err)
	}
	return shard, true, nil
}

func (s Shard) checked() (Shard, error) {
	switch {
	case s.Count < 1:
		return Shard{}, fmt.Errorf("shard %s: the count must be 1 or more", s)
	case s.Index < 0 || s.Index >= s.Count:
		return Shard{}, fmt.Errorf("shard %s: the index must be from 0 to %d", s, s.Count-1)
	}
	return s, nil
}

// String is "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Sharded reports a shard of a source rather than the whole of it.
func (s Shard) Sharded() bool { return s.Count > 0 }

// Owns reports whether the shard audits the writes of the object key names: always, for the
// whole source.
func (s Shard) Owns(k ObjectKey) bool {
	return s.Count <= 1 || k.shard(s.Count) == s.Index
}

// ObjectKey names an object for sharding: its resource (any version), namespace and name.
type ObjectKey struct {
	Group, Resource, Namespace, Name string
}

// shard is the key's shard of count: the 64-bit FNV-1a hash of its parts, each ended by a zero
// byte, which every process computes alike (written out rather than with hash/fnv, which would
// allocate for every line of an audit log a shard skips).
func (k ObjectKey) shard(count int) int {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, part := range [...]string{k.Group, k.Resource, k.Namespace, k.Name} {
		for i := 0; i < len(part); i++ {
			h = (h ^ uint64(part[i])) * prime
		}
		h *= prime // the zero byte: h ^ 0 is h
	}
	return int(h % uint64(count))
}
