// Package words holds the small rules of admit's messages that every package writing them
// follows alike.
//
//	words.go  Plural, OneLine, List
package words
