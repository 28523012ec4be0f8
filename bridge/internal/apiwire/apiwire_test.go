package apiwire

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSpell: a dotted path of proto names in each language's spelling.
func TestSpell(t *testing.T) {
	for _, tc := range []struct{ in, json, pascal string }{
		{"params_json", "paramsJson", "ParamsJson"},
		{"error.data_json", "error.dataJson", "Error.DataJson"},
		{"uri", "uri", "Uri"},
		{"resource_template_uri", "resourceTemplateUri", "ResourceTemplateUri"},
	} {
		if got := Spell(tc.in, StyleJSON); got != tc.json {
			t.Errorf("Spell(%q, JSON) = %q, want %q", tc.in, got, tc.json)
		}
		if got := Spell(tc.in, StylePascal); got != tc.pascal {
			t.Errorf("Spell(%q, Pascal) = %q, want %q", tc.in, got, tc.pascal)
		}
		if got := Spell(tc.in, StyleProto); got != tc.in {
			t.Errorf("Spell(%q, proto) = %q", tc.in, got)
		}
	}
}
