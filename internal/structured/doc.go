// Package structured is the one encoding of admit's structured output (-o json and -o yaml):
// indented JSON that leaves "<" and "&" as they are, and YAML as sigs.k8s.io/yaml writes it. A
// writer that streams a List an item at a time encodes each item here, so that its bytes are
// those of the whole List encoded at once.
//
//	structured.go  Write, the formats; JSONItem and YAMLItem, a List's items encoded alone, and
//	               JSONAt and YAMLItemAt, an item encoded alone where it stands deeper in a whole;
//	               Compact, the JSON a MarshalJSON of such output returns
package structured
