package rawjson

import (
	"math"
	"strconv"
)

// AppendFloat appends f as encoding/json formats a float64: the shortest
// decimal that round-trips, in exponent form below 1e-6 and from 1e21 up.
// f must be finite (JSON has no NaN or infinities).
func AppendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
