package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpbridge/mcpbridge/internal/testkit"
	mcpbridgev1 "github.com/mcpbridge/mcpbridge/proto/mcpbridge/v1"
)

// The Grafana dashboard (docs/grafana/mcpbridge.json) is importable and
// laid out sanely, and queries only what the bridge exports: every metric
// family and label its queries name is in a real scrape of `mcpbridge
// serve --metrics-listen` after a little traffic, so that renaming a
// metric or a label fails here rather than leaving a blank panel.
func TestGrafanaDashboard(t *testing.T) {
	path := filepath.Join(testkit.ModuleRoot(t), "docs", "grafana", "mcpbridge.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := parseDashboard(t, raw)
	for _, p := range d.structureProblems() {
		t.Errorf("%s: %s", path, p)
	}

	// The scrape: a session server, so that the session series are there
	// too, with a session's child that has answered a call and a tool
	// error.
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	env, command := slowFixture(t)
	b := startBridge(t, env, append([]string{"--metrics-listen", "127.0.0.1:0", "--name", "fx", "--policy", "session"}, command...)...)
	metricsAddr := metricsListenRE.FindStringSubmatch(b.log.WaitFor(ctx, t, `msg="mcpbridge: serving metrics"`))[1]
	bc := mcpbridgev1.NewBridgeServiceClient(b.conn(t))
	sessionCtx := metadata.AppendToOutgoingContext(ctx, "mcp-session", "dashboard")
	call := func(tool string) *mcpbridgev1.CallToolResponse {
		t.Helper()
		args, _ := structpb.NewStruct(map[string]any{"text": "hi"})
		res, err := bc.CallTool(sessionCtx, &mcpbridgev1.CallToolRequest{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res
	}
	call("echo")
	childPid(sessionCtx, t, bc)
	if !call("fail").GetIsError() {
		t.Fatal("fail: want an isError result")
	}
	families := scrapeFamilies(scrape(t, "http://"+metricsAddr+"/metrics"))

	problems, used := d.queryProblems(families)
	for _, p := range problems {
		t.Errorf("%s: %s", path, p)
	}
	t.Logf("the dashboard's %d panels query %d metric families: %s",
		len(d.allPanels()), len(used), strings.Join(slices.Sorted(maps.Keys(used)), " "))

	// The check can fail: a metric renamed, or a label, is caught.
	for _, r := range []struct{ from, to string }{
		{"mcpbridge_child_restarts_total{", "mcpbridge_child_restart_total{"},
		{"by (server, gen_ai_tool_name, le)", "by (server, tool, le)"},
		{`gen_ai_tool_name=~"$tool"`, `tool_name=~"$tool"`},
		{"grpc_server_handling_seconds_bucket", "grpc_server_handling_second_bucket"},
	} {
		broken := parseDashboard(t, raw)
		if broken.replaceInQueries(r.from, r.to) == 0 {
			t.Errorf("the dashboard has no %q to break", r.from)
			continue
		}
		if problems, _ := broken.queryProblems(families); len(problems) == 0 {
			t.Errorf("with %q for %q, the dashboard passes", r.to, r.from)
		}
	}
}

// dashboard is what the test reads of a Grafana dashboard.
type dashboard struct {
	Title         string      `json:"title"`
	UID           string      `json:"uid"`
	SchemaVersion int         `json:"schemaVersion"`
	Panels        []dashPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      any             `json:"query"`
			Datasource *dashDatasource `json:"datasource"`
			Multi      bool            `json:"multi"`
			IncludeAll bool            `json:"includeAll"`
		} `json:"list"`
	} `json:"templating"`
}

type dashPanel struct {
	ID         int             `json:"id"`
	Type       string          `json:"type"`
	Title      string          `json:"title"`
	Datasource *dashDatasource `json:"datasource"`
	GridPos    struct {
		X, Y, W, H int
	} `json:"gridPos"`
	Targets []struct {
		RefID      string          `json:"refId"`
		Expr       string          `json:"expr"`
		Datasource *dashDatasource `json:"datasource"`
	} `json:"targets"`
	Panels []dashPanel `json:"panels"` // a collapsed row's
}

type dashDatasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// replaceInQueries replaces from with to in every query and returns how
// many it changed.
func (d *dashboard) replaceInQueries(from, to string) int {
	n := 0
	var replace func(ps []dashPanel)
	replace = func(ps []dashPanel) {
		for i := range ps {
			for j := range ps[i].Targets {
				if e := &ps[i].Targets[j].Expr; strings.Contains(*e, from) {
					*e = strings.ReplaceAll(*e, from, to)
					n++
				}
			}
			replace(ps[i].Panels)
		}
	}
	replace(d.Panels)
	return n
}

// dashboardDatasource is the data source every query names: the variable.
const dashboardDatasource = "${datasource}"

func parseDashboard(t *testing.T, raw []byte) *dashboard {
	t.Helper()
	d := &dashboard{}
	if err := json.Unmarshal(raw, d); err != nil {
		t.Fatalf("parsing the dashboard: %v", err)
	}
	return d
}

// allPanels is every panel, a collapsed row's too.
func (d *dashboard) allPanels() []dashPanel {
	var out []dashPanel
	for _, p := range d.Panels {
		out = append(out, p)
		out = append(out, p.Panels...)
	}
	return out
}

// structureProblems checks what Grafana needs to import the dashboard and
// lay it out: unique ids, titles, queries with a data source from the
// variable, and panels inside the 24 columns that do not overlap.
func (d *dashboard) structureProblems() []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if d.Title == "" || d.UID == "" {
		bad("the dashboard has no title or uid")
	}
	if d.SchemaVersion < 36 {
		bad("schemaVersion %d, want 36 or later (data sources by uid)", d.SchemaVersion)
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
		switch {
		case v.Name == "datasource":
			if v.Type != "datasource" || v.Query != "prometheus" {
				bad("variable datasource: type %q, query %v; want a Prometheus data source variable", v.Type, v.Query)
			}
		case v.Type == "query":
			if v.Datasource == nil || v.Datasource.UID != dashboardDatasource {
				bad("variable %s: data source %+v, want uid %s", v.Name, v.Datasource, dashboardDatasource)
			}
		}
	}
	for _, name := range []string{"datasource", "server", "tool"} {
		if !vars[name] {
			bad("no %s variable", name)
		}
	}
	for _, v := range d.Templating.List {
		if (v.Name == "server" || v.Name == "tool") && (!v.Multi || !v.IncludeAll) {
			bad("variable %s is not multi-select with All", v.Name)
		}
	}

	ids := map[int]string{}
	for _, p := range d.allPanels() {
		name := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if p.ID <= 0 {
			bad("%s: no id", name)
		} else if other, dup := ids[p.ID]; dup {
			bad("%s: id also used by %q", name, other)
		}
		ids[p.ID] = p.Title
		if strings.TrimSpace(p.Title) == "" {
			bad("%s: no title", name)
		}
		g := p.GridPos
		if g.W <= 0 || g.H <= 0 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
			bad("%s: gridPos %+v is not inside the 24 columns", name, g)
		}
		if p.Type == "row" {
			if len(p.Targets) > 0 || g.X != 0 || g.W != 24 || g.H != 1 {
				bad("%s: a row has gridPos %+v and %d queries; want the full width, height 1, none", name, g, len(p.Targets))
			}
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != dashboardDatasource {
			bad("%s: data source %+v, want uid %s", name, p.Datasource, dashboardDatasource)
		}
		if len(p.Targets) == 0 {
			bad("%s: no queries", name)
		}
		refs := map[string]bool{}
		for _, q := range p.Targets {
			if strings.TrimSpace(q.Expr) == "" {
				bad("%s: query %s has no expr", name, q.RefID)
			}
			if q.RefID == "" || refs[q.RefID] {
				bad("%s: query refId %q missing or repeated", name, q.RefID)
			}
			refs[q.RefID] = true
			if q.Datasource != nil && q.Datasource.UID != dashboardDatasource {
				bad("%s: query %s has data source %+v, want uid %s", name, q.RefID, q.Datasource, dashboardDatasource)
			}
		}
	}
	for i, p := range d.Panels {
		for _, q := range d.Panels[:i] {
			a, b := p.GridPos, q.GridPos
			if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				bad("panel %d %q (%+v) overlaps panel %d %q (%+v)", p.ID, p.Title, a, q.ID, q.Title, b)
			}
		}
	}
	return out
}

// metricFamily is what a scrape shows of a metric family: its labels, from
// any of its series, and whether it is a histogram.
type metricFamily struct {
	labels    map[string]bool
	histogram bool
}

// scrapeFamilies sums up a scrape by family. A histogram is told by its
// observations (sample has no type), so the traffic before the scrape
// must reach every histogram the dashboard queries.
func scrapeFamilies(m map[string][]sample) map[string]metricFamily {
	out := map[string]metricFamily{}
	for name, series := range m {
		f := metricFamily{labels: map[string]bool{}}
		for _, s := range series {
			for l := range s.labels {
				f.labels[l] = true
			}
			if s.count > 0 {
				f.histogram = true
			}
		}
		out[name] = f
	}
	return out
}

// targetLabels are the labels Prometheus gives every series of a target
// as it scrapes; they are not in the exposition.
var targetLabels = map[string]bool{"job": true, "instance": true}

// grafanaVariables are Grafana's own variables a query may use.
var grafanaVariables = map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}

// grafanaVariableRE is a $name or ${name}, in a string or not.
var grafanaVariableRE = regexp.MustCompile(`\$\{?([a-zA-Z_][a-zA-Z0-9_]*)`)

var labelValuesRE = regexp.MustCompile(`(?s)^\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$`)

// queryProblems checks the dashboard's queries against a scrape: every
// metric a query selects is a family of the scrape (a histogram's _bucket,
// _sum and _count standing for the family), every label a selector
// matches is on that family (le on a _bucket), every label a by, on or
// ignoring names is on one of the query's families (or is le, or a target
// label), every variable is defined, and rate windows are
// $__rate_interval. used is the families the queries name.
func (d *dashboard) queryProblems(families map[string]metricFamily) (out []string, used map[string]bool) {
	used = map[string]bool{}
	vars := maps.Clone(grafanaVariables)
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	check := func(where, expr string) {
		bad := func(format string, args ...any) {
			out = append(out, fmt.Sprintf("%s: ", where)+fmt.Sprintf(format, args...))
		}
		q, err := parsePromQL(expr)
		if err != nil {
			bad("%v in %q", err, expr)
			return
		}
		var exprFamilies []metricFamily
		buckets := false
		for _, sel := range q.selectors {
			f, ok := families[sel.metric]
			base, bucket := sel.metric, false
			if !ok {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if b, cut := strings.CutSuffix(sel.metric, suffix); cut {
						if hf, found := families[b]; found && hf.histogram {
							f, ok, base, bucket = hf, true, b, suffix == "_bucket"
						}
					}
				}
			}
			if !ok {
				bad("metric %s is not in the scrape", sel.metric)
				continue
			}
			used[base] = true
			exprFamilies = append(exprFamilies, f)
			buckets = buckets || bucket
			for _, l := range sel.labels {
				if !f.labels[l] && !(bucket && l == "le") && !targetLabels[l] {
					bad("%s has no label %s", base, l)
				}
			}
		}
		if len(exprFamilies) < len(q.selectors) {
			return // a metric is missing: its labels cannot be told
		}
		for _, l := range q.grouping {
			ok := targetLabels[l] || (l == "le" && buckets)
			for _, f := range exprFamilies {
				ok = ok || f.labels[l]
			}
			if !ok {
				bad("no metric of %q has the label %s", expr, l)
			}
		}
		for _, v := range q.variables {
			if !vars[v] {
				bad("undefined variable $%s", v)
			}
		}
		for _, w := range q.rateWindows {
			if w != "$__rate_interval" {
				bad("a rate over [%s], want [$__rate_interval]", w)
			}
		}
	}
	for _, p := range d.allPanels() {
		for _, q := range p.Targets {
			check(fmt.Sprintf("panel %d %q query %s", p.ID, p.Title, q.RefID), q.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var text string
		switch q := v.Query.(type) {
		case string:
			text = q
		case map[string]any:
			text, _ = q["query"].(string)
		}
		m := labelValuesRE.FindStringSubmatch(text)
		if m == nil {
			out = append(out, fmt.Sprintf("variable %s: query %q is not label_values(selector, label)", v.Name, text))
			continue
		}
		// The label must be on the selector's family: check it as a by.
		check("variable "+v.Name, fmt.Sprintf("max by (%s) (%s)", m[2], m[1]))
	}
	return out, used
}

// promQuery is what parsePromQL finds in a query.
type promQuery struct {
	selectors   []promSelector
	grouping    []string // the labels of by, without, on, ignoring, group_left and group_right
	variables   []string // Grafana's, without the $
	rateWindows []string // the range of each rate and irate
}

// promSelector is a metric named in a query and the labels it matches on.
type promSelector struct {
	metric string
	labels []string
}

// promKeywords are PromQL's words that are neither metrics nor functions.
var promKeywords = []string{"and", "or", "unless", "atan2", "bool", "offset", "by", "without", "on", "ignoring",
	"group_left", "group_right", "inf", "nan", "start", "end"}

// promAggregations are the aggregation operators, which a by or without
// may separate from their (.
var promAggregations = []string{"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
	"bottomk", "topk", "quantile", "limitk", "limit_ratio"}

// groupingKeywords take a parenthesised list of labels.
var groupingKeywords = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// parsePromQL reads a PromQL query far enough to find the metrics, labels
// and variables it names: a scanner, not a parser, that knows a name
// before ( is a function, one before { or [ or standing alone is a
// metric, a {...} holds label matchers and a by (...) labels.
func parsePromQL(s string) (*promQuery, error) {
	q := &promQuery{}
	i := 0
	skipSpace := func() {
		for i < len(s) && strings.ContainsRune(" \t\r\n", rune(s[i])) {
			i++
		}
	}
	ident := func() string {
		start := i
		for i < len(s) && isIdentChar(s[i]) {
			i++
		}
		return s[start:i]
	}
	str := func() error { // a quoted string, at its quote
		quote := s[i]
		for i++; i < len(s); i++ {
			switch {
			case s[i] == '\\' && quote != '`':
				i++
			case s[i] == quote:
				i++
				return nil
			}
		}
		return fmt.Errorf("unterminated string")
	}
	for _, m := range grafanaVariableRE.FindAllStringSubmatch(s, -1) {
		q.variables = append(q.variables, m[1])
	}
	last := -1           // the selector just read, which a { or [ continues
	pendingRate := false // a rate( whose range is yet to come
	for {
		skipSpace()
		if i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			if err := str(); err != nil {
				return nil, err
			}
			last = -1
		case c == '$': // a Grafana variable outside a string
			i++
			if i < len(s) && s[i] == '{' {
				end := strings.IndexByte(s[i:], '}')
				if end < 0 {
					return nil, fmt.Errorf("unterminated ${")
				}
				i += end + 1
			} else {
				ident()
			}
			last = -1
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unterminated [")
			}
			if pendingRate {
				q.rateWindows = append(q.rateWindows, strings.TrimSpace(s[i+1:i+end]))
				pendingRate = false
			}
			i += end + 1
		case c == '{':
			if last < 0 {
				return nil, fmt.Errorf("a selector without a metric name at %d", i)
			}
			i++
			for {
				skipSpace()
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated {")
				}
				if s[i] == '}' {
					i++
					break
				}
				if s[i] == ',' {
					i++
					continue
				}
				if !isIdentStart(s[i]) {
					return nil, fmt.Errorf("a label matcher at %d: %q", i, s[i:])
				}
				q.selectors[last].labels = append(q.selectors[last].labels, ident())
				skipSpace()
				for i < len(s) && strings.ContainsRune("=!~", rune(s[i])) {
					i++
				}
				skipSpace()
				if i >= len(s) || !strings.ContainsRune("\"'`", rune(s[i])) {
					return nil, fmt.Errorf("a label matcher without a quoted value at %d", i)
				}
				if err := str(); err != nil {
					return nil, err
				}
			}
		case '0' <= c && c <= '9' || c == '.':
			for i < len(s) && (isIdentChar(s[i]) || s[i] == '.' || (s[i] == '-' || s[i] == '+') && (s[i-1] == 'e' || s[i-1] == 'E')) {
				i++
			}
			last = -1
		case isIdentStart(c):
			name := ident()
			skipSpace()
			open := i < len(s) && s[i] == '('
			lower := strings.ToLower(name)
			switch {
			case slices.Contains(groupingKeywords, lower) && open:
				end := strings.IndexByte(s[i:], ')')
				if end < 0 {
					return nil, fmt.Errorf("unterminated %s (", name)
				}
				for _, l := range strings.Split(s[i+1:i+end], ",") {
					if l = strings.TrimSpace(l); l != "" {
						q.grouping = append(q.grouping, l)
					}
				}
				i += end + 1
				last = -1
			case open || slices.Contains(promAggregations, name): // a function or an aggregation
				if name == "rate" || name == "irate" {
					pendingRate = true
				}
				last = -1
			case slices.Contains(promKeywords, lower):
				last = -1
			default:
				q.selectors = append(q.selectors, promSelector{metric: name})
				last = len(q.selectors) - 1
			}
		default: // an operator or a parenthesis
			i++
			last = -1
		}
	}
	return q, nil
}
