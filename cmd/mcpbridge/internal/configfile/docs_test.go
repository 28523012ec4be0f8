package configfile

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDocsConfigKeys holds the example of docs/operations.md, "The config
// file" (its first yaml block) to File: every key of the file, at every
// level, is a key of the example at the same place, and every key of the
// example is one of the file's. The example also loads as it is.
//
// A key is written at its place in the example's YAML: servers[].pool.min
// is min in the pool mapping of an element of servers (any element).
// Where a map's keys are the user's (env, tools, claims), the keys of its
// values are at name.*: servers[].tools.*.max_deadline. A key that cannot
// be given together with one shown (jwks_file beside jwks_url) is shown
// commented out, "# key: value" on a line of its own, indented as the key
// would be: it counts as a key of the example, and the example loads
// without it.
func TestDocsConfigKeys(t *testing.T) {
	const docPath = "docs/operations.md"
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	example := docExample(t, string(raw), "### The config file")

	if _, _, err := Parse(docPath+" (the config file example)", []byte(example)); err != nil {
		t.Errorf("%s's config file example does not load: %v", docPath, err)
	}

	var root yaml.Node
	if err := yaml.Unmarshal([]byte(uncommentKeys(example)), &root); err != nil {
		t.Fatalf("%s's config file example, its commented-out keys included, is not YAML: %v", docPath, err)
	}
	if len(root.Content) == 0 {
		t.Fatalf("%s's config file example is empty", docPath)
	}
	want := map[string]string{} // a key's place → the Go field it sets
	fileKeyPlaces(reflect.TypeFor[File](), "", "File", want)
	found := map[string]bool{}
	for _, e := range exampleKeys(root.Content[0], reflect.TypeFor[File](), "", found) {
		t.Errorf("%s's config file example has %s, which is not a key of the file", docPath, e)
	}
	for _, place := range slices.Sorted(maps.Keys(want)) {
		if !found[place] {
			t.Errorf("%s's config file example has no key %s (%s)", docPath, place, want[place])
		}
	}
}

// docExample is the first yaml block of doc after heading.
func docExample(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/operations.md has no heading %q", heading)
	}
	rest := doc[i:]
	j := strings.Index(rest, "\n```yaml\n")
	if next := strings.Index(rest[1:], "\n#"); j < 0 || next >= 0 && next+1 < j {
		t.Fatalf("docs/operations.md has no yaml block under %q", heading)
	}
	rest = rest[j+len("\n```yaml\n"):]
	k := strings.Index(rest, "\n```")
	if k < 0 {
		t.Fatalf("docs/operations.md's yaml block under %q does not end", heading)
	}
	return rest[:k+1]
}

// commentedKey is a line that is a commented-out key.
var commentedKey = regexp.MustCompile(`(?m)^(\s*)# ?([a-z][a-z0-9_]*:(?:\s.*)?)$`)

// uncommentKeys is the example with its commented-out keys in.
func uncommentKeys(example string) string {
	return commentedKey.ReplaceAllString(example, "$1$2")
}

// fileKeyPlaces adds to places the place of every key of t, a type of
// the file, under prefix, with the Go field each sets, under goPrefix.
func fileKeyPlaces(t reflect.Type, prefix, goPrefix string, places map[string]string) {
	t = shape(t)
	switch t.Kind() {
	case reflect.Pointer:
		fileKeyPlaces(t.Elem(), prefix, goPrefix, places)
	case reflect.Slice, reflect.Array:
		fileKeyPlaces(t.Elem(), prefix+"[]", goPrefix+"[i]", places)
	case reflect.Map:
		if elem := deref(t.Elem()); elem.Kind() == reflect.Struct {
			fileKeyPlaces(elem, prefix+".*", goPrefix+"[k]", places)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := yamlKey(f)
			if !ok {
				continue
			}
			place := strings.TrimPrefix(prefix+"."+name, ".")
			places[place] = goPrefix + "." + f.Name
			fileKeyPlaces(f.Type, place, goPrefix+"."+f.Name, places)
		}
	}
}

// exampleKeys marks in found the place of every key of n, a node of the
// example whose Go type is t, under prefix, and returns those that are
// not keys of t, each with its line.
func exampleKeys(n *yaml.Node, t reflect.Type, prefix string, found map[string]bool) []string {
	t = shape(deref(t))
	var unknown []string
	switch {
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for _, item := range n.Content {
			unknown = append(unknown, exampleKeys(item, t.Elem(), prefix+"[]", found)...)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode && deref(t.Elem()).Kind() == reflect.Struct:
		for i := 1; i < len(n.Content); i += 2 {
			unknown = append(unknown, exampleKeys(n.Content[i], t.Elem(), prefix+".*", found)...)
		}
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := map[string]reflect.StructField{}
		for i := range t.NumField() {
			if name, ok := yamlKey(t.Field(i)); ok {
				fields[name] = t.Field(i)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			place := strings.TrimPrefix(prefix+"."+key.Value, ".")
			f, ok := fields[key.Value]
			if !ok {
				unknown = append(unknown, place+" (line "+strconv.Itoa(key.Line)+" of the block)")
				continue
			}
			found[place] = true
			unknown = append(unknown, exampleKeys(n.Content[i+1], f.Type, place, found)...)
		}
	}
	return unknown
}

// yamlKey is the key of a field of the file; false for a field the file
// has no key for.
func yamlKey(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		return strings.ToLower(f.Name), true // yaml.v3's default
	}
	return name, true
}

// shape is the type whose keys t's YAML has: the result of its
// YAMLShape method, for a type that reads itself (Scopes), else t.
func shape(t reflect.Type) reflect.Type {
	if m, ok := t.MethodByName("YAMLShape"); ok && m.Type.NumOut() == 1 {
		return m.Type.Out(0)
	}
	return t
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
