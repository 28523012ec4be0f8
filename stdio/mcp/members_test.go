package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// membersSeeds are objects on which the hand-written decoders of the hot
// path must agree with encoding/json: exact and case-folded names (K is
// U+212A KELVIN SIGN, which folds to k), duplicates, nulls, escapes and
// wrong types.
var membersSeeds = []string{
	`{}`,
	`{"name":"echo"}`,
	`{"name":"echo","arguments":{"message":"hello"}}`,
	`{"name":"echo","arguments":null}`,
	`{"name":null}`,
	`{"name":3}`,
	`{"name":3,"name":"echo"}`,
	`{"name":"echo","name":3}`,
	`{"name":"echo","name":null}`,
	`{"name":"a","name":"b","arguments":1,"arguments":[2]}`,
	`{"Name":"echo"}`,
	`{"NAME":"x","name":"y"}`,
	`{"name":"y","NAME":"x"}`,
	`{"n\u0061me":"echo"}`,
	`{"name":"\u00e9\n\ud83d\ude00"}`,
	`{"name":"echo","version":"1"}`,
	`{"name":"echo","version":1}`,
	`{"name":"echo","Version":"1"}`,
	`{"name":"echo","version":"1","_meta":{"name":3}}`,
	`{"argumentſ":{}}`,
	`{"name":"echo","arguments":"x","_meta":{"progressToken":1}}`,
	`{"name":true,"arguments":{}}`,
	`{"name":["echo"]}`,
	`{"name":{"a":1},"version":"1"}`,
}

func TestToolCallParamsMatchesUnmarshal(t *testing.T) {
	for _, s := range membersSeeds {
		checkToolCallParams(t, []byte(s))
	}
}

func TestValidImplementationMatchesUnmarshal(t *testing.T) {
	for _, s := range membersSeeds {
		checkValidImplementation(t, []byte(s))
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range membersSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		obj, err := rawjson.Compact(b)
		if err != nil || !rawjson.IsObject(obj) {
			return
		}
		checkToolCallParams(t, obj)
		checkValidImplementation(t, obj)
	})
}

func checkToolCallParams(t *testing.T, params json.RawMessage) {
	t.Helper()
	var want toolCall
	wantOK := json.Unmarshal(params, &want) == nil
	got, ok := toolCallParams(params)
	if ok != wantOK || (ok && !cmp.Equal(want, got)) {
		t.Errorf("toolCallParams(%s) = %+v, %v; json.Unmarshal gives %+v, %v", params, got, ok, want, wantOK)
	}
}

func checkValidImplementation(t *testing.T, raw json.RawMessage) {
	t.Helper()
	var info struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	want := json.Unmarshal(raw, &info) == nil && info.Name != nil && info.Version != nil
	if got := validImplementation(raw); got != want {
		t.Errorf("validImplementation(%s) = %v, want %v (json.Unmarshal)", raw, got, want)
	}
}
