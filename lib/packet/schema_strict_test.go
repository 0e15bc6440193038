package packet

import (
	"encoding/json"
	"sort"
	"testing"
)

// TestSchemas_EveryCLIAccepts holds schema.json to what every reviewer CLI
// accepts (docs/review-round.md §2.2): no "$schema" line (the
// claude CLI refuses draft 2020-12), an object at the top (agy), and
// OpenAI's strict mode for codex: every object lists all its properties in
// "required" and has additionalProperties false (smallest_fix included;
// spar's own check still accepts a result without it, G5).
func TestSchemas_EveryCLIAccepts(t *testing.T) {
	for name, text := range map[string]string{"schema.json": Schema, "schema-standpoints.json": SchemaStandpoints} {
		var s map[string]any
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := s["$schema"]; ok {
			t.Errorf("%s: has $schema", name)
		}
		if s["type"] != "object" {
			t.Errorf("%s: top type %v", name, s["type"])
		}
		var walk func(path string, n map[string]any)
		walk = func(path string, n map[string]any) {
			if props, ok := n["properties"].(map[string]any); ok {
				if n["additionalProperties"] != false {
					t.Errorf("%s %s: additionalProperties is not false", name, path)
				}
				var req []string
				for _, r := range n["required"].([]any) {
					req = append(req, r.(string))
				}
				var keys []string
				for k, v := range props {
					keys = append(keys, k)
					walk(path+"."+k, v.(map[string]any))
				}
				sort.Strings(req)
				sort.Strings(keys)
				if len(req) != len(keys) {
					t.Errorf("%s %s: required %v, properties %v", name, path, req, keys)
				}
				for i := range req {
					if i < len(keys) && req[i] != keys[i] {
						t.Errorf("%s %s: required %v, properties %v", name, path, req, keys)
						break
					}
				}
			}
			if items, ok := n["items"].(map[string]any); ok {
				walk(path+"[]", items)
			}
		}
		walk("", s)
	}
}
