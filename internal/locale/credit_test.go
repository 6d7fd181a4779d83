package locale

import "testing"

// Credit writes whole numbers from 100 up, and below 100 at most two
// decimals, without trailing zeros: no "750.0" or "9,011.2" next to
// "12,345"; an amount too small to show is "< 0.01", never "0".
func TestCreditFormats(t *testing.T) {
	for _, tc := range []struct {
		v      float64
		en, de string
	}{
		{0, "0", "0"},
		{750, "750", "750"},
		{9011.2, "9,011", "9.011"},
		{9999.6, "10,000", "10.000"},
		{12345.4, "12,345", "12.345"},
		{100, "100", "100"},
		{99.5, "99.5", "99,5"},
		{42, "42", "42"},
		{0.25, "0.25", "0,25"},
		{0.001, "< 0.01", "< 0,01"},
		{-750, "-750", "-750"},
	} {
		if got := Default().Get("en").Credit(tc.v); got != tc.en {
			t.Errorf("en Credit(%v) = %q, want %q", tc.v, got, tc.en)
		}
		if got := Default().Get("de").Credit(tc.v); got != tc.de {
			t.Errorf("de Credit(%v) = %q, want %q", tc.v, got, tc.de)
		}
	}
}
