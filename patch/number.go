package patch

import "bytes"

// numbersEqual reports whether two validated JSON numbers denote the same
// decimal value: 1, 1.0, 10e-1 and 1E0 are equal; -0 equals 0. The
// comparison is exact, never through float64, so int64 values above 2^53
// that differ stay different. Exponents beyond ±2^40 are compared as
// text, a harmless simplification: at worst an unchanged number is
// rewritten with an equal value.
func numbersEqual(x, y []byte) bool {
	if bytes.Equal(x, y) {
		return true
	}
	var xBuf, yBuf [32]byte
	a, b := normalize(x, xBuf[:0]), normalize(y, yBuf[:0])
	if a.huge || b.huge {
		return false
	}
	if len(a.digits) == 0 || len(b.digits) == 0 { // zero, whatever its sign and exponent
		return len(a.digits) == len(b.digits)
	}
	return a.negative == b.negative && a.exponent == b.exponent && bytes.Equal(a.digits, b.digits)
}

// decimal is a number as digits × 10^exponent with no leading or trailing
// zero digits, so equal values have equal representations.
type decimal struct {
	negative bool
	digits   []byte
	exponent int64
	huge     bool // exponent outside ±2^40: not normalised
}

const hugeExponent = 1 << 40

func normalize(number, buf []byte) decimal {
	var d decimal
	i := 0
	if number[0] == '-' {
		d.negative = true
		i++
	}
	digits := buf
	for ; i < len(number) && isDigit(number[i]); i++ {
		if len(digits) > 0 || number[i] != '0' {
			digits = append(digits, number[i])
		}
	}
	if i < len(number) && number[i] == '.' {
		for i++; i < len(number) && isDigit(number[i]); i++ {
			if len(digits) > 0 || number[i] != '0' {
				digits = append(digits, number[i])
			}
			d.exponent-- // every fraction digit, kept or not, scales by 1/10
		}
	}
	if i < len(number) { // 'e' or 'E'
		i++
		negative := false
		if number[i] == '+' || number[i] == '-' {
			negative = number[i] == '-'
			i++
		}
		var e int64
		for ; i < len(number); i++ {
			e = e*10 + int64(number[i]-'0')
			if e > hugeExponent {
				return decimal{huge: true}
			}
		}
		if negative {
			e = -e
		}
		d.exponent += e
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		d.exponent++
	}
	d.digits = digits
	return d
}
