package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
)

// The flag tables of docs/operations.md, one per subcommand, are held to
// the subcommands' flag sets: every flag has a row, every row names a
// flag, and every row's default is the flag's.
//
// A table is the first one after its anchor whose header is
// "| Flag | Default | Meaning |". A row's first cell names one flag or
// several (`--cert`, `--key`), spelled as the table's command spells them
// (serve and connect --name, demo -name). Its second cell starts with the
// default, written one of two ways; what follows it is a gloss, which the
// test does not read:
//   - none: the flag's default is empty (DefValue ""), whatever the
//     command then does without it, which the gloss may say ("none (the
//     system's roots)");
//   - a code span holding a value that, given to the flag, sets it to its
//     default: `16777216`, `10m` for 10m0s, `info` for INFO. So a default
//     computed from a constant (bridge.DefaultMaxMessageBytes) is checked
//     against what the code computes.
var flagTables = []struct {
	cmd    string // the subcommand
	anchor string // the text its table follows
	dash   string // how its table spells a flag
	flags  func() *flag.FlagSet
}{
	{"serve", "## The command line", "--", func() *flag.FlagSet { _, fs := newServeFlags(); return fs }},
	{"demo", "`mcpbridge demo` serves", "-", func() *flag.FlagSet { _, fs := newDemoFlags(); return fs }},
	{"connect", "## mcpbridge connect", "--", func() *flag.FlagSet { _, fs := newConnectFlags(); return fs }},
}

// flagCell is a flag as the first cell of a row spells it.
var flagCell = regexp.MustCompile("^(-{1,2})([A-Za-z0-9][A-Za-z0-9.-]*)$")

// TestDocsFlags holds docs/operations.md's flag tables to the flags of
// `mcpbridge serve`, `mcpbridge demo` and `mcpbridge connect`.
func TestDocsFlags(t *testing.T) {
	const docPath = "docs/operations.md"
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, tc := range flagTables {
		t.Run(tc.cmd, func(t *testing.T) {
			table := "the `mcpbridge " + tc.cmd + "` flag table of " + docPath
			rows := flagTableRows(t, doc, tc.anchor)
			fs := tc.flags()
			documented := map[string]bool{}
			for _, row := range rows {
				if len(row) < 3 {
					t.Errorf("%s has a row of %d cells, want 3: %q", table, len(row), row)
					continue
				}
				names := codeSpans(row[0])
				if len(names) == 0 {
					t.Errorf("%s has a row that names no flag: %q", table, row[0])
				}
				for _, spelled := range names {
					m := flagCell.FindStringSubmatch(spelled)
					if m == nil {
						t.Errorf("%s has a row for %q, which is not a flag's spelling", table, spelled)
						continue
					}
					name := m[2]
					if m[1] != tc.dash {
						t.Errorf("%s spells %s; the table spells its flags %s%s", table, spelled, tc.dash, name)
					}
					fl := fs.Lookup(name)
					if fl == nil {
						t.Errorf("%s has a row for %s, which `mcpbridge %s` does not have", table, spelled, tc.cmd)
						continue
					}
					if documented[name] {
						t.Errorf("%s has two rows for %s", table, spelled)
					}
					documented[name] = true
					if msg := checkDefault(row[1], name, fl.DefValue, tc.flags); msg != "" {
						t.Errorf("%s, %s: %s", table, spelled, msg)
					}
				}
			}
			fs.VisitAll(func(fl *flag.Flag) {
				if !documented[fl.Name] {
					t.Errorf("%s has no row for %s%s (default %q, usage %q)", table, tc.dash, fl.Name, fl.DefValue, fl.Usage)
				}
			})
		})
	}
}

// checkDefault says what is wrong with cell, the default column of the
// row of flag name, whose default is def; empty when nothing is. fresh
// makes a flag set on which the cell's value may be set.
func checkDefault(cell, name, def string, fresh func() *flag.FlagSet) string {
	cell = strings.TrimSpace(cell)
	if def == "" {
		if cell == "none" || strings.HasPrefix(cell, "none ") || strings.HasPrefix(cell, "none:") {
			return ""
		}
		return "the default is empty: the cell must start with none (and may say after it what the command does without the flag), not " + quoteCell(cell)
	}
	if !strings.HasPrefix(cell, "`") {
		return "the cell must start with the default `" + def + "` (or a value that sets the flag to it), not " + quoteCell(cell)
	}
	spans := codeSpans(cell)
	value := spans[0]
	if value == def {
		return ""
	}
	fs := fresh()
	if err := fs.Set(name, value); err != nil {
		return "the documented default `" + value + "` is not a value of the flag (" + err.Error() + "); its default is `" + def + "`"
	}
	if got := fs.Lookup(name).Value.String(); got != def {
		return "the documented default `" + value + "` sets the flag to " + got + ", but its default is `" + def + "`"
	}
	return ""
}

func quoteCell(cell string) string {
	if cell == "" {
		return "an empty cell"
	}
	return "\"" + cell + "\""
}

// flagTableRows returns the cells of the rows of the first flag table
// after anchor in doc.
func flagTableRows(t *testing.T, doc, anchor string) [][]string {
	t.Helper()
	i := strings.Index(doc, anchor)
	if i < 0 {
		t.Fatalf("docs/operations.md has no %q", anchor)
	}
	lines := strings.Split(doc[i:], "\n")
	start := -1
	for j, line := range lines {
		if cells := testkit.TableCells(line); len(cells) >= 2 && cells[0] == "Flag" && cells[1] == "Default" {
			start = j
			break
		}
	}
	if start < 0 || start+1 >= len(lines) || !strings.HasPrefix(lines[start+1], "|---") {
		t.Fatalf("docs/operations.md has no table headed | Flag | Default | after %q", anchor)
	}
	var rows [][]string
	for _, line := range lines[start+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows = append(rows, testkit.TableCells(line))
	}
	if len(rows) == 0 {
		t.Fatalf("the flag table after %q in docs/operations.md has no rows", anchor)
	}
	return rows
}

// codeSpans are the texts of the code spans of s, in order.
func codeSpans(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
