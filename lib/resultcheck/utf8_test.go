package resultcheck

import (
	"encoding/json"
	"testing"

	"github.com/jaekit/spar/lib/envelope"
)

// G1: a result that is not valid UTF-8 is not a JSON text; it is refused as
// received, also after a trip through the envelope.
func TestG1_NotUTF8(t *testing.T) {
	raw := "{\"reviewed_head\":\"abcdef0\",\"limits\":\"\xff\"}"
	b, err := json.Marshal(envelope.ReviewerRun{Reviewer: "r", Status: Completed, Result: &raw})
	if err != nil {
		t.Fatal(err)
	}
	var back envelope.ReviewerRun
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Result == nil || *back.Result != raw {
		t.Fatalf("the envelope changed the result bytes: %v", back.Result)
	}
	res := Check(Round{}, back)
	if res.Status != InvalidOutput || res.Reason != "result: not valid UTF-8" {
		t.Fatalf("status %s, reason %q", res.Status, res.Reason)
	}
	// A valid result keeps the plain "result" key.
	ok := `{"a":1}`
	b, _ = json.Marshal(envelope.ReviewerRun{Result: &ok})
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if m["result"] != ok || m["result_base64"] != nil {
		t.Fatalf("valid result encoded as %s", b)
	}
}
