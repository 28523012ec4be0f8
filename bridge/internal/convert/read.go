package convert

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
)

// ---- reading child results ----

func isNull(v json.RawMessage) bool { return string(v) == "null" }

// members calls fn for each member of the JSON object raw, skipping null
// values; what names raw in errors. fn's error ends the walk. The key fn
// gets shares raw's memory when it has no escapes (most do, and a result
// has many keys to read): it is valid only during fn, for comparing and
// formatting; strings.Clone it to keep it.
func members(raw json.RawMessage, what string, fn func(key string, v json.RawMessage) error) error {
	if !rawjson.IsObject(raw) {
		return fmt.Errorf("%s is not a JSON object", what)
	}
	var err error
	rawjson.EachRawField(raw, func(rawKey, v json.RawMessage) bool {
		if isNull(v) {
			return true
		}
		key := memberKey(rawKey)
		if err = fn(key, v); err != nil {
			err = fmt.Errorf("%s.%s: %w", what, key, err)
		}
		return err == nil
	})
	return err
}

// memberKey is the key of a member, as members gives it: sharing rawKey's
// memory when it has no escapes.
func memberKey(rawKey json.RawMessage) string {
	if inner, ok := rawjson.Plain(rawKey); ok {
		return unsafe.String(unsafe.SliceData(inner), len(inner))
	}
	key, _ := rawjson.StringValue(rawKey)
	return key
}

// elements calls fn for each element of the validated JSON array raw; fn's
// error ends the walk.
func elements(raw json.RawMessage, fn func(i int, v json.RawMessage) error) error {
	var err error
	if !rawjson.Elements(raw, func(n int, v json.RawMessage) bool {
		if err = fn(n, v); err != nil {
			err = fmt.Errorf("[%d]: %w", n, err)
		}
		return err == nil
	}) {
		return errors.New("not a JSON array")
	}
	return err
}

func jsonString(v json.RawMessage) (string, error) {
	if len(v) == 0 || v[0] != '"' {
		return "", errors.New("not a JSON string")
	}
	str, end, err := parseString(v, 0)
	if err == nil && end != len(v) {
		err = errBadJSON
	}
	return str, err
}

func jsonBool(v json.RawMessage) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errors.New("not a JSON boolean")
}

func jsonNumber(v json.RawMessage) (float64, error) {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, errors.New("not a JSON number")
	}
	return strconv.ParseFloat(string(v), 64)
}

// jsonInt reads a JSON number that is an integer (1 and 1.0 alike).
func jsonInt(v json.RawMessage) (int64, error) {
	if n, ok := wire.IntID(v); ok {
		return n, nil
	}
	f, err := jsonNumber(v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, errors.New("not an integer")
	}
	return int64(f), nil
}

func jsonStrings(v json.RawMessage) ([]string, error) {
	var out []string
	err := elements(v, func(_ int, el json.RawMessage) error {
		s, err := jsonString(el)
		out = append(out, s)
		return err
	})
	return out, err
}

// jsonBase64 decodes MCP's base64 (standard alphabet; missing padding is
// tolerated).
func jsonBase64(v json.RawMessage) ([]byte, error) {
	s, err := jsonString(v)
	if err != nil {
		return nil, err
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}
