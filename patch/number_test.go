package patch

import "testing"

func TestNumbersEqual(t *testing.T) {
	tests := []struct {
		x, y string
		want bool
	}{
		{"1", "1", true},
		{"1", "1.0", true},
		{"1", "1e0", true},
		{"1", "10e-1", true},
		{"1", "0.1E1", true},
		{"100", "1e2", true},
		{"100", "1E+2", true},
		{"0", "-0", true},
		{"0", "0.000e5", true},
		{"-0.0", "0e-7", true},
		{"0.05", "5e-2", true},
		{"-1.5", "-15e-1", true},
		{"1", "2", false},
		{"1", "-1", false},
		{"1", "1.0000000000000001", false}, // equal as float64, not as decimals
		{"9007199254740993", "9007199254740992", false},
		{"1e2", "1e3", false},
		{"123", "1230e-1", true},
		{"123", "12300", false},
		{"1e1099511627777", "10e1099511627776", false}, // exponents past ±2^40 compare as text
	}
	for _, tt := range tests {
		if got := numbersEqual([]byte(tt.x), []byte(tt.y)); got != tt.want {
			t.Errorf("numbersEqual(%s, %s) = %t, want %t", tt.x, tt.y, got, tt.want)
		}
		if got := numbersEqual([]byte(tt.y), []byte(tt.x)); got != tt.want {
			t.Errorf("numbersEqual(%s, %s) = %t, want %t", tt.y, tt.x, got, tt.want)
		}
	}
}
