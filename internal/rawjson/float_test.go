package rawjson

import (
	"encoding/json"
	"testing"
)

func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, 0.5, 1, -3, 1e-7, 1.5e-6, 123456789, 1e21, 1.7976931348623157e308, 5e-324} {
		want, _ := json.Marshal(f)
		if got := AppendFloat(nil, f); string(got) != string(want) {
			t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}
