// Package jsonscan walks JSON text to find members without decoding it: where a value is, what
// key an object member has, the end of a value. It is how the webhook server finds the objects
// inside an AdmissionReview and how the engine reads an object's metadata.name without decoding
// the whole object.
//
// A Scanner does not validate what it skips. Its callers use it only on text that is validated
// elsewhere or validate what they keep, and fall back to a decoder whenever the scan reports
// false — a key with an escape among them, which a scan comparing bytes cannot match.
//
//	scan.go  Scanner: values, strings and an object's members walked without decoding
package jsonscan
