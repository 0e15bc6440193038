package packet

import _ "embed"

// The result schema given to reviewers (schema.json in the round folder).
// Two fixed texts: a round without standpoints gets Schema byte for byte as
// it was before standpoints existed; a round with standpoints gets the same
// schema with standpoint_report added to properties and required, with type
// ["object","null"] ("Standpoint reports and records": CLIs that enforce a
// strict schema need every key in required; the runtime check still lets an
// unassigned reviewer omit it). TestSchemas_DifferOnlyByStandpointReport
// holds the two texts together.
var (
	//go:embed schema.json
	Schema string
	//go:embed schema-standpoints.json
	SchemaStandpoints string
)

// SchemaFor returns the schema text of a round.
func SchemaFor(standpoints bool) string {
	if standpoints {
		return SchemaStandpoints
	}
	return Schema
}

// InputSchema is the JSON Schema spar-packet validates its stdin against:
// an envelope holding spar-config's "config" with the keys the packet uses.
//
//go:embed input.schema.json
var InputSchema []byte
