package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// This file pages the four lists (docs/protocol.md, "Pagination"). Lists
// are sorted by their key (a tool's or prompt's name, a resource's URI, a
// template's URI template), so pages are deterministic. A cursor names the
// last key of the previous page and the list it belongs to, signed with the
// Server's cursor key: it stays valid when items come and go (the next page
// starts after that key), and a cursor that was altered, forged or taken
// from another list or server is -32602.

const cursorMACBytes = 12

func (k keys) makeCursor(list, last string) string {
	payload := list + "\x00" + last
	m := hmac.New(sha256.New, k.cursor)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:cursorMACBytes])
}

// after returns the last key a cursor of list names.
func (k keys) after(list, cursor string) (string, bool) {
	p, sig, ok := strings.Cut(cursor, ".")
	if !ok {
		return "", false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return "", false
	}
	m := hmac.New(sha256.New, k.cursor)
	m.Write(payload)
	if !hmac.Equal(mac, m.Sum(nil)[:cursorMACBytes]) {
		return "", false
	}
	name, last, ok := strings.Cut(string(payload), "\x00")
	if !ok || name != list {
		return "", false
	}
	return last, true
}

// paginate returns the bounds of the page of keys (sorted) that the
// params' cursor asks for, and the cursor of the next page ("" on the last
// one).
func paginate(s *Server, list string, params json.RawMessage, keys []string) (start, end int, next string, err error) {
	if raw, ok := rawjson.Member(params, "cursor"); ok && string(raw) != "null" {
		cursor, ok := rawjson.StringValue(raw)
		if !ok {
			return 0, 0, "", invalidParams("cursor must be a string")
		}
		last, ok := s.keys.after(list, cursor)
		if !ok {
			return 0, 0, "", invalidParams("invalid cursor")
		}
		start, _ = slices.BinarySearch(keys, last)
		if start < len(keys) && keys[start] == last {
			start++
		}
	}
	end = min(start+s.cfg.PageSize, len(keys))
	if end < len(keys) {
		next = s.keys.makeCursor(list, keys[end-1])
	}
	return start, end, next, nil
}
