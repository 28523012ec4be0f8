package testkit

import "testing"

func TestCodeLines(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"empty", "", 0},
		{"blank and comments", "\n// a\n\n/* b\nc */\n  \t\n", 0},
		{"code", "package p\n\nfunc f() {}\n", 2},
		{"code with a comment", "package p // the package\n", 1},
		{"block comment around code", "package p\n/*\nfunc f() {}\n*/\nvar x = 1 /* one */\n", 2},
		{"raw string", "package p\n\nvar s = `a\n\nb`\n", 4},
		{"semicolons", "package p\nvar (\n\tx = 1\n)\n", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CodeLines([]byte(tc.src))
			if err != nil || got != tc.want {
				t.Errorf("CodeLines(%q) = %d, %v; want %d", tc.src, got, err, tc.want)
			}
		})
	}
}
