package resultcheck

import _ "embed"

// InputSchema is the JSON Schema spar-check validates its stdin against.
//
//go:embed input.schema.json
var InputSchema []byte
