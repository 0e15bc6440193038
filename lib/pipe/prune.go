package pipe

import "encoding/json"

// spec says which parts of a JSON value a stage schema can look at, so that
// Read builds only those for the validator (docs/pipeline.md "Memory"): a
// reviewer's 40 MB result under a schema that asks only "a string" is
// validated as the string "", 60,000 findings under a schema that names
// four of their keys as objects of those four keys. A part the schema
// cannot see is replaced by a stand-in of the same JSON type, in its place
// (array indexes and the keys "required" names stay), so the validator
// gives the same verdict and the same location it would give on the whole.
//
// Only keywords whose reach is known are followed; any other keyword makes
// the whole part "full" (built as received), which is always exact.
type spec struct {
	full     bool             // build everything below as received
	strings  bool             // a string's text matters (minLength, pattern, format)
	props    map[string]*spec // properties: members to follow
	required map[string]bool  // members whose presence matters
	items    *spec            // every array element
}

// member is the spec of the member k of an object under sp, and whether
// the member is built at all.
func (sp *spec) member(k string) (*spec, bool) {
	if sp == nil {
		return nil, false
	}
	if sp.full {
		return sp, true
	}
	if sub, ok := sp.props[k]; ok {
		return sub, true
	}
	return nil, sp.required[k]
}

var fullSpec = &spec{full: true}

// specOf derives the spec of a JSON Schema (already compiled by the
// validator, so well-formed).
func specOf(s any) *spec {
	m, ok := s.(map[string]any)
	if !ok {
		if b, isBool := s.(bool); isBool && b {
			return nil // true: anything
		}
		return fullSpec
	}
	sp := &spec{}
	for k, v := range m {
		switch k {
		case "$schema", "$id", "$comment", "title", "description", "default", "examples",
			// a stand-in keeps the type; numbers, booleans and null are
			// always built as received; stand-ins keep array lengths.
			"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minItems", "maxItems":
		case "minLength", "maxLength", "pattern", "format":
			sp.strings = true
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return fullSpec
			}
			sp.props = map[string]*spec{}
			for name, sub := range props {
				sp.props[name] = specOf(sub)
				if sp.props[name] == nil {
					// An unconstrained property is still a member that
					// "required" may name: build its stand-in.
					sp.props[name] = &spec{}
				}
			}
		case "required":
			names, ok := v.([]any)
			if !ok {
				return fullSpec
			}
			sp.required = map[string]bool{}
			for _, n := range names {
				if s, ok := n.(string); ok {
					sp.required[s] = true
				}
			}
		case "items":
			if _, isObj := v.(map[string]any); !isObj {
				return fullSpec // a list of schemas, or a boolean
			}
			sp.items = specOf(v)
		default:
			// enum, const, additionalProperties, patternProperties,
			// uniqueItems, contains, allOf, anyOf, oneOf, not, if, $ref…
			return fullSpec
		}
	}
	return sp
}

// topSpec is the spec of a stage schema document; "schema" is always built
// (Read checks its value itself).
func topSpec(schema []byte) *spec {
	var doc any
	sp := &spec{}
	if schema != nil {
		if err := json.Unmarshal(schema, &doc); err != nil {
			return fullSpec
		}
		sp = specOf(doc)
		if sp == nil {
			sp = &spec{}
		}
		if sp.full {
			return sp
		}
	}
	if sp.props == nil {
		sp.props = map[string]*spec{}
	}
	if s, ok := sp.props["schema"]; !ok || !s.full {
		sp.props["schema"] = fullSpec
	}
	return sp
}
